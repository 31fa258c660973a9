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

from warp_interop.frameworks import require

require("jax", "warp.jax_experimental")

from warp_interop.jax_experimental.callables import FfiCallable, GraphMode, register_ffi_callback  # noqa: E402
from warp_interop.jax_experimental.kernel import FfiKernel  # noqa: E402
from warp_interop.jax_interop import get_jax_device  # noqa: E402


def jax_kernel(kernel: Any, num_outputs: int = 1, vmap_method: str = "broadcast_all", launch_dims: Any = None,
               output_dims: Any = None, in_out_argnames: Sequence[str] | None = None,
               module_preload_mode: Any = None, enable_backward: bool = False) -> FfiKernel:
    """A JAX-callable wrapper of a warp kernel.

    The kernel's parameters are inputs followed by ``num_outputs`` outputs (which include the
    ``in_out_argnames`` arguments: inputs that are also returned, updated in place). The
    wrapper takes the inputs (JAX arrays; vector/matrix elements as trailing dimensions; static
    scalars) and returns the list of outputs. ``launch_dims`` default to the warp shape of the
    first array input; outputs take the launch dimensions unless ``output_dims`` (an int, a
    shape, or a dict by output name; warp or JAX convention) says otherwise. ``launch_dims``,
    ``output_dims`` and ``vmap_method`` may also be given per call. ``enable_backward=True``
    makes the wrapper differentiable with ``jax.grad`` through the kernel's adjoint.
    ``module_preload_mode`` is accepted for compatibility (kernels load on first use here).
    """
    del module_preload_mode
    return FfiKernel(kernel, num_outputs=num_outputs, vmap_method=vmap_method, launch_dims=launch_dims,
                     output_dims=output_dims, in_out_argnames=in_out_argnames,
                     enable_backward=enable_backward)


def jax_callable(func: Callable[..., Any], num_outputs: int = 1, graph_compatible: bool | None = None,
                 graph_mode: GraphMode = GraphMode.JAX, vmap_method: str = "broadcast_all",
                 output_dims: Any = None, in_out_argnames: Sequence[str] | None = None,
                 module_preload_mode: Any = None) -> FfiCallable:
    """A JAX-callable wrapper of a Python function annotated like a warp kernel.

    The function is called with warp arrays viewing the XLA buffers and the static scalars; it
    fills its output arrays (launching kernels). Output shapes come from ``output_dims`` (per
    output name, warp or JAX convention) or the first array input. ``graph_mode`` (and the
    deprecated ``graph_compatible``) choose CUDA graph capture; they have no effect on the CPU.
    """
    del module_preload_mode
    return FfiCallable(func, num_outputs=num_outputs, graph_compatible=graph_compatible,
                       graph_mode=graph_mode, vmap_method=vmap_method, output_dims=output_dims,
                       in_out_argnames=in_out_argnames)


__all__ = ["GraphMode", "get_jax_device", "jax_callable", "jax_kernel", "register_ffi_callback"]
