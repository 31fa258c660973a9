"""``warp.jax_experimental``: call warp kernels and annotated functions from JAX.

Importing it imports JAX (an ``ImportError`` names the extra to install when JAX is missing).
See :mod:`warp_interop.jax_experimental.ffi` (``warp.jax_experimental.ffi``).
"""

from warp_interop.jax_experimental.ffi import (
    GraphMode,
    get_jax_device,
    jax_callable,
    jax_kernel,
    register_ffi_callback,
)

__all__ = ["GraphMode", "get_jax_device", "jax_callable", "jax_kernel", "register_ffi_callback"]
