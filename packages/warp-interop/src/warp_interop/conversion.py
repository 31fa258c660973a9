"""Foreign arrays passed to ``wp.launch`` or ``wp.as_array``: the ``warp_convert_array`` hook.

Framework tensors are recognised by their type without importing the framework (a tensor can
only exist if its framework was imported). Every conversion is zero-copy: a tensor passed as a
kernel argument is written in place, never silently copied. Plain NumPy arrays and objects with
``__array_interface__`` are left to warp-core (the hook returns None for them).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from warp_interop.frameworks import loaded
from warp.extending import array, from_dlpack
from warp_interop.torch_interop import tensor_launch_arg
from warp_interop.paddle_interop import tensor_launch_arg as paddle_launch_arg
from warp_interop.jax_interop import from_jax


def _is_instance(obj: Any, framework: str, attr: str) -> bool:
    module = loaded(framework)
    return module is not None and isinstance(obj, getattr(module, attr))


def convert(obj: Any, dtype: Any, device: Any) -> Any:
    """A launch argument / array for ``obj``, or None if this plugin does not handle it."""
    if isinstance(obj, np.ndarray):
        return None
    module = type(obj).__module__ or ""
    root = module.partition(".")[0]
    if root == "torch" and _is_instance(obj, "torch", "Tensor"):
        return tensor_launch_arg(obj, dtype)
    if root == "paddle" and _is_instance(obj, "paddle", "Tensor"):
        return paddle_launch_arg(obj, dtype)
    if root in ("jaxlib", "jax") and _is_instance(obj, "jax", "Array"):
        return from_jax(obj, dtype=dtype)
    if hasattr(obj, "__cuda_array_interface__"):
        return array(obj, dtype=dtype if dtype is not None else Any, device=device, copy=False)
    if hasattr(obj, "__dlpack__") and not hasattr(obj, "__array_interface__"):
        return from_dlpack(obj, dtype=dtype)
    return None
