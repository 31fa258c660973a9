"""Batch dimensions that ``jax.vmap`` adds to FFI buffers, and the per-example views they hold.

Under ``vmap`` an FFI target receives its buffers with extra leading (batch) dimensions: all of
them with ``vmap_method="broadcast_all"``, size-1 dimensions for unbatched arguments with
``"expand_dims"``, none with ``"sequential"`` (JAX loops). The batch dimensions of the
arguments broadcast against each other (NumPy rules, right-aligned); each example is the
contiguous row-major block at the example's offset (offset 0 along a size-1 dimension).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator, Sequence

import numpy as np

from warp_interop.jax_experimental.params import Param
from warp_interop.jax_experimental.xla_ffi import FfiBuffer


@dataclass(frozen=True)
class BatchedArg:
    """One array argument: its per-example JAX shape and how to find each example's data."""

    param: Param
    buffer: FfiBuffer
    example_shape: tuple[int, ...]
    batch_shape: tuple[int, ...]
    example_bytes: int

    @property
    def warp_shape(self) -> tuple[int, ...]:
        return self.param.warp_shape(self.example_shape)

    def pointer(self, index: tuple[int, ...]) -> int:
        """Address of the example at batch ``index`` (of the full, broadcast batch shape)."""
        own = index[len(index) - len(self.batch_shape):] if self.batch_shape else ()
        flat = 0
        for i, n in zip(own, self.batch_shape):
            flat = flat * n + (i if n != 1 else 0)
        return self.buffer.ptr + flat * self.example_bytes


def batch_args(params: Sequence[Param], buffers: Sequence[FfiBuffer], what: str
               ) -> tuple[tuple[int, ...], list[BatchedArg]]:
    """The common batch shape and one :class:`BatchedArg` per (param, buffer) pair."""
    args = []
    for p, buf in zip(params, buffers):
        extra = len(buf.shape) - p.jax_rank
        if extra < 0:
            raise ValueError(
                f"{what}: argument '{p.name}' has shape {buf.shape}, expected {p.jax_rank} dimensions"
            )
        example = tuple(buf.shape[extra:])
        example_bytes = math.prod(example) * buf.dtype.itemsize
        args.append(BatchedArg(p, buf, example, tuple(buf.shape[:extra]), example_bytes))
    try:
        batch_shape = tuple(np.broadcast_shapes(*(a.batch_shape for a in args))) if args else ()
    except ValueError:
        shapes = {a.param.name: a.batch_shape for a in args}
        raise ValueError(f"{what}: the batch dimensions of the arguments do not match: {shapes}") from None
    return batch_shape, args


def batch_indices(batch_shape: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """Every index of the batch shape, row-major (one empty index when there is no batch)."""
    return np.ndindex(*batch_shape) if batch_shape else iter([()])
