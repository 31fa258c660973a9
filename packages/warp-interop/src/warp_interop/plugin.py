"""The warp plugin of warp-interop: Python-scope exports, foreign-array conversion, submodules.

Registered through the ``warp`` entry-point group. Nothing here imports a framework.
"""

from __future__ import annotations

from typing import Any

from warp.extending import hookimpl

from warp_interop import conversion, jax_interop, paddle_interop, torch_interop


@hookimpl
def warp_exports() -> dict[str, Any]:
    """``wp.from_torch``, ``wp.to_torch``, ... (each imports its framework when called)."""
    names = {}
    for module, prefix_names in (
        (torch_interop, ("from_torch", "to_torch", "device_from_torch", "device_to_torch", "dtype_from_torch",
                         "dtype_to_torch", "stream_from_torch", "stream_to_torch")),
        (jax_interop, ("from_jax", "to_jax", "device_from_jax", "device_to_jax", "dtype_from_jax",
                       "dtype_to_jax", "jax_kernel", "jax_callable")),
        (paddle_interop, ("from_paddle", "to_paddle", "device_from_paddle", "device_to_paddle",
                          "dtype_from_paddle", "dtype_to_paddle", "stream_from_paddle")),
    ):
        for name in prefix_names:
            names[name] = getattr(module, name)
    names["JaxCallableGraphMode"] = jax_interop.GraphMode
    names["JaxModulePreloadMode"] = jax_interop.ModulePreloadMode
    return names


@hookimpl
def warp_convert_array(obj: Any, dtype: Any, device: Any) -> Any:
    """Framework tensors, CUDA-array-interface and DLPack objects as launch arguments (zero-copy)."""
    return conversion.convert(obj, dtype, device)


@hookimpl
def warp_submodules() -> dict[str, str]:
    """``warp.jax_experimental`` (JAX FFI kernels; imports JAX when imported), and ``warp.torch``,
    ``warp.paddle``, ``warp.jax``: older spellings of the helpers (``warp.torch.from_torch``)."""
    return {
        "jax_experimental": "warp_interop.jax_experimental",
        "torch": "warp_interop.torch_interop",
        "paddle": "warp_interop.paddle_interop",
        "jax": "warp_interop.jax_interop",
    }
