"""Device implementations of ``warp.utils`` supplied by a plugin (the ``warp_device_array_utils``
hook): what such an implementation provides, and how ``warp.utils`` finds the one for a device.

warp-core computes ``warp.utils`` on the host with NumPy. For arrays on another device a plugin
may compute them in kernels on that device (warp-builtins does on CUDA devices): no host
staging, so graph capture records them and replaying the graph recomputes them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from warp.plugins.manager import get_plugin_manager

if TYPE_CHECKING:  # the argument types only
    from warp.runtime.devices import Device


class DeviceArrayUtils(Protocol):
    """Functions of ``warp.utils`` computed on the arrays' device.

    ``warp.utils`` checks the arguments first (types, sizes, devices, counts), as for the host
    path, then calls these. Each returns ``True`` when it computed the result and ``False`` when
    it does not handle those arguments (a dtype or layout it has no kernels for): ``warp.utils``
    then computes on the host, which graph capture refuses. They never read device memory from
    the host, so graph capture records them.
    """

    def radix_sort_pairs(self, keys: Any, values: Any, count: int, begin_bit: int, end_bit: int) -> bool:
        """Stable sort of the first ``count`` pairs by key bits ``[begin_bit, end_bit)``, in the
        keys' order (signed and float keys as a radix sort orders them), in place; the arrays are
        1-D, contiguous and at least ``2 * count`` long."""
        ...

    def array_scan(self, in_array: Any, out_array: Any, inclusive: bool) -> bool:
        """Prefix sums of ``in_array`` into ``out_array`` (same dtype and size) in row-major order."""
        ...

    def runlength_encode(
        self, values: Any, run_values: Any, run_lengths: Any, run_count: Any, value_count: int
    ) -> bool:
        """Runs of the first ``value_count`` int32 ``values``: their values and lengths, and their
        number stored into ``run_count[0]`` (a device array)."""
        ...

    def array_inner(self, a: Any, b: Any | None, out: Any, count: int) -> bool:
        """Sum of the first ``count`` elements of ``a`` (``b`` None) or of ``a * b``, stored into
        ``out[0]`` (a device array of the scalar type)."""
        ...

    def array_cast(self, in_array: Any, out_array: Any, count: int) -> bool:
        """Convert the first ``count`` scalar components of ``in_array`` into the first ``count``
        components of ``out_array`` (both arrays seen as their scalar components in row-major
        order, an element's components after each other), with the kernel language's scalar
        conversions (C casts: floats to integers truncate). ``count`` is at most either array's
        number of components."""
        ...

    def segmented_sort_pairs(
        self, keys: Any, values: Any, count: int, segment_starts: Any, segment_ends: Any
    ) -> bool:
        """Stable sort of (key, value) pairs (int32 or float32 keys, int32 values; 1-D contiguous
        arrays) inside every segment ``[segment_starts[i], segment_ends[i])`` (int32 device arrays
        of one size, read only on the device), in place; pairs outside every segment keep their
        place. Keys order as NumPy's stable sort orders them (-0.0 equal to +0.0, NaNs last).

        The segments are not checked on the host (as in NVIDIA Warp, nothing is copied back): one
        outside ``[0, count]`` or ending before it starts is empty, and pairs covered by more
        than one segment keep their place."""
        ...


def device_array_utils(device: Device | None) -> DeviceArrayUtils | None:
    """The plugin implementation of ``warp.utils`` for arrays on ``device``; None on the CPU (whose
    arrays NumPy reads in place) and when no plugin provides one."""
    if device is None or device.is_cpu:
        return None
    result: DeviceArrayUtils | None = get_plugin_manager().hook.warp_device_array_utils(device=device)
    return result
