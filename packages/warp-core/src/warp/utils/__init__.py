"""``warp.utils``: array reductions, scans, sorts and run-length encoding from Python scope.

These mirror NVIDIA Warp's ``warp.utils`` functions (same names, parameters, results and
errors). CPU arrays are computed on the host with NumPy, read and written in place (zero-copy).
Arrays on another device are computed there in kernels when a plugin provides them (the
``warp_device_array_utils`` hook; warp-builtins does for CUDA devices: ``radix_sort_pairs``,
``segmented_sort_pairs``, ``array_cast``, ``array_scan`` of int32/float32, ``runlength_encode``,
``array_sum``/``array_inner`` of float32/float64 without ``axis``): graph capture records those.
Otherwise they are staged through host memory, which graph capture refuses.

Modules: ``reductions`` (``array_sum``, ``array_inner``), ``scan`` (``array_scan``), ``cast``
(``array_cast``), ``sorting`` (``radix_sort_pairs``, ``segmented_sort_pairs``), ``runlength``
(``runlength_encode``); ``_access`` holds what they share (host reads and writes, the plugin
lookup, argument checks).
"""

from __future__ import annotations

from warp.utils.cast import array_cast
from warp.utils.reductions import array_inner, array_sum
from warp.utils.runlength import runlength_encode
from warp.utils.scan import array_scan
from warp.utils.sorting import radix_sort_pairs, segmented_sort_pairs

__all__ = [
    "array_cast",
    "array_inner",
    "array_scan",
    "array_sum",
    "radix_sort_pairs",
    "runlength_encode",
    "segmented_sort_pairs",
]
