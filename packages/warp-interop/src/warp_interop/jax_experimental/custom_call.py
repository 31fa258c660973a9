"""``warp.jax_experimental.custom_call.jax_kernel``: the older ``jax_kernel`` signature.

``jax_kernel(kernel, launch_dims=None, quiet=False)``: the parameters the call does not supply
are the outputs (a kernel with five parameters called with three arrays has two outputs), and
the outputs are returned as a tuple when there are several (a single output is returned as is).
It runs on the same FFI targets as :func:`warp.jax_experimental.ffi.jax_kernel`.
"""

from __future__ import annotations

from typing import Any

from warp_interop.jax_experimental.kernel import FfiKernel


class _CustomCallKernel:
    def __init__(self, kernel: Any, launch_dims: Any):
        self.kernel = kernel
        self.launch_dims = launch_dims
        self._by_outputs: dict[int, FfiKernel] = {}

    def __call__(self, *args: Any) -> Any:
        num_outputs = len(self.kernel.arg_names) - len(args)
        if num_outputs < 1:
            raise TypeError(
                f"jax_kernel '{self.kernel.key}': {len(args)} arguments leave no output among the kernel's "
                f"{len(self.kernel.arg_names)} parameters"
            )
        wrapped = self._by_outputs.get(num_outputs)
        if wrapped is None:
            wrapped = FfiKernel(self.kernel, num_outputs=num_outputs, launch_dims=self.launch_dims)
            self._by_outputs[num_outputs] = wrapped
        outputs = wrapped(*args)
        return outputs[0] if len(outputs) == 1 else tuple(outputs)


def jax_kernel(kernel: Any, launch_dims: Any = None, quiet: bool = False) -> Any:
    """A JAX primitive from a warp kernel (older interface; see the module docstring)."""
    del quiet
    return _CustomCallKernel(kernel, launch_dims)
