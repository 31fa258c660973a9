"""Views of the buffers of one XLA FFI call, shared by the forward (:mod:`.kernel`) and adjoint
(:mod:`.autodiff`) launches of ``jax_kernel``, and by ``jax_callable``."""

from __future__ import annotations

from typing import Any, Sequence

from warp.extending import contiguous_strides, element_info, make_descriptor

from warp_interop.jax_experimental.batching import BatchedArg
from warp_interop.jax_experimental.call_device import zero_memory

#: the FFI attribute carrying a call's launch dimensions
LAUNCH_DIMS_ATTR = "warp_launch_dims"


def view(arg: BatchedArg, index: tuple[int, ...], device: Any) -> Any:
    """A launch descriptor of one example of a batched argument (memory on ``device``)."""
    shape = arg.warp_shape or (1,)
    itemsize = element_info(arg.param.dtype).itemsize
    return make_descriptor(arg.pointer(index), shape, contiguous_strides(shape, itemsize), arg.param.dtype,
                           device, None)


def zero_outputs(args: Sequence[BatchedArg], device: Any) -> None:
    """Zero every output buffer (XLA hands them over uninitialized) on ``device``."""
    for a in args:
        zero_memory(a.buffer.ptr, a.buffer.nbytes, device)
