"""``warp.jax_experimental.ffi``: warp kernels and functions as JAX operations (XLA FFI).

- :func:`jax_kernel` turns a warp kernel into a function of JAX arrays usable in ``jax.jit``,
  ``jax.vmap``, ``jax.grad`` (with ``enable_backward=True``) and ``shard_map``;
- :func:`jax_callable` does the same for a Python function annotated like a kernel that may
  launch several kernels;
- :func:`register_ffi_callback` registers a function receiving raw buffers, for
  ``jax.ffi.ffi_call``.

The targets run on JAX's CPU platform through XLA's FFI (the handler is Python, called by XLA
with the buffers; no data is copied). Inputs come before outputs in the kernel's parameters;
scalars must be static (constants or ``static_argnames``).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from warp_interop.frameworks import require

require("jax", "warp.jax_experimental")

from warp_interop.jax_experimental.callables import FfiCallable, GraphMode, register_ffi_callback  # noqa: E402
from warp_interop.jax_experimental.kernel import FfiKernel  # noqa: E402
from warp_interop.jax_interop import ModulePreloadMode, get_jax_device  # noqa: E402

#: wrappers already made, by their function and configuration: asking again for the same
#: configuration returns the same wrapper (and FFI target) rather than registering a new one
_WRAPPERS: dict[tuple[Any, ...], Any] = {}


def _frozen(value: Any) -> Any:
    """A hashable form of a configuration value (lists and dicts as tuples; empty as None)."""
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items())) or None
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value) or None
    if isinstance(value, np.integer):
        return int(value)
    return value


def _cached(key: tuple[Any, ...], make: Callable[[], Any]) -> Any:
    try:
        hash(key)
    except TypeError:  # an unusual configuration value: no reuse
        return make()
    wrapper = _WRAPPERS.get(key)
    if wrapper is None:
        wrapper = _WRAPPERS[key] = make()
    return wrapper


def _check_preload_mode(mode: Any) -> None:
    if mode is not None and not isinstance(mode, ModulePreloadMode):
        try:
            ModulePreloadMode(mode)
        except ValueError:
            raise ValueError(f"module_preload_mode must be a wp.JaxModulePreloadMode, got {mode!r}") from None


def _check_block_dim(block_dim: Any) -> int | None:
    if block_dim is None:
        return None
    if isinstance(block_dim, bool) or not isinstance(block_dim, (int, np.integer)):
        raise TypeError(f"jax_kernel: block_dim must be an integer or None, got {block_dim!r}")
    if block_dim <= 0:
        raise ValueError(f"jax_kernel: block_dim must be positive, got {block_dim}")
    return int(block_dim)


def jax_kernel(kernel: Any, num_outputs: int = 1, vmap_method: str = "broadcast_all", launch_dims: Any = None,
               output_dims: Any = None, in_out_argnames: Sequence[str] | None = None,
               module_preload_mode: Any = None, enable_backward: bool = False,
               block_dim: int | None = None) -> FfiKernel:
    """A JAX-callable wrapper of a warp kernel.

    The kernel's parameters are inputs followed by ``num_outputs`` outputs (which include the
    ``in_out_argnames`` arguments: inputs that are also returned, updated in place). The
    wrapper takes the inputs (JAX arrays; vector/matrix elements as trailing dimensions; static
    scalars) and returns the list of outputs. ``launch_dims`` default to the warp shape of the
    first array input; outputs take the launch dimensions unless ``output_dims`` (an int, a
    shape, or a dict by output name; warp or JAX convention) says otherwise. ``launch_dims``,
    ``output_dims`` and ``vmap_method`` may also be given per call. ``enable_backward=True``
    makes the wrapper differentiable with ``jax.grad`` through the kernel's adjoint.
    ``block_dim`` is passed to the launches (``wp.block_dim()`` in the kernel). The same
    arguments give the same wrapper. ``module_preload_mode`` (a ``wp.JaxModulePreloadMode``) is
    accepted for compatibility (kernels load on first use here).
    """
    _check_preload_mode(module_preload_mode)
    block_dim = _check_block_dim(block_dim)
    key = ("kernel", kernel, num_outputs, vmap_method, _frozen(launch_dims), _frozen(output_dims),
           _frozen(in_out_argnames), bool(enable_backward), block_dim)

    def make() -> FfiKernel:
        return FfiKernel(kernel, num_outputs=num_outputs, vmap_method=vmap_method, launch_dims=launch_dims,
                         output_dims=output_dims, in_out_argnames=in_out_argnames,
                         enable_backward=enable_backward, block_dim=block_dim)

    return _cached(key, make)


def jax_callable(func: Callable[..., Any], num_outputs: int = 1, graph_compatible: bool | None = None,
                 graph_mode: Any = GraphMode.JAX, vmap_method: str = "broadcast_all",
                 output_dims: Any = None, in_out_argnames: Sequence[str] | None = None,
                 stage_in_argnames: Sequence[str] | None = None,
                 stage_out_argnames: Sequence[str] | None = None,
                 module_preload_mode: Any = None) -> FfiCallable:
    """A JAX-callable wrapper of a Python function annotated like a warp kernel.

    The function is called with warp arrays viewing the XLA buffers and the static scalars; it
    fills its output arrays (launching kernels). Output shapes come from ``output_dims`` (per
    output name, warp or JAX convention) or the first array input. ``graph_mode`` (a
    ``wp.JaxCallableGraphMode`` or its integer value; the deprecated ``graph_compatible``)
    chooses CUDA graph capture: ``NONE`` and ``JAX`` run on the CPU, the ``WARP*`` modes raise
    there. The same arguments give the same wrapper.
    """
    _check_preload_mode(module_preload_mode)
    key = ("callable", func, num_outputs, graph_compatible, graph_mode, vmap_method, _frozen(output_dims),
           _frozen(in_out_argnames), _frozen(stage_in_argnames), _frozen(stage_out_argnames))

    def make() -> FfiCallable:
        return FfiCallable(func, num_outputs=num_outputs, graph_compatible=graph_compatible,
                           graph_mode=graph_mode, vmap_method=vmap_method, output_dims=output_dims,
                           in_out_argnames=in_out_argnames, stage_in_argnames=stage_in_argnames,
                           stage_out_argnames=stage_out_argnames)

    if graph_compatible is not None:  # warns at every call, as a deprecated argument should
        return make()
    return _cached(key, make)


__all__ = ["GraphMode", "get_jax_device", "jax_callable", "jax_kernel", "register_ffi_callback"]
