"""The shape of a launch: its grid (``dim``: 1 to 4 dimensions) and, on targets with blocks (CUDA),
its threads per block and grid cap (``block_dim``, ``max_blocks``), validated with errors naming
the kernel.

:func:`launch_dims` checks a ``dim``; :class:`LaunchShapes`, a mixin of
:class:`warp.runtime.launcher.Launcher`, memoizes the checked dims and block shapes of a compiled
kernel part (the launch hot path looks them up there).
"""

from __future__ import annotations

import operator
from typing import Any

from warp.errors import LaunchTypeError, LaunchValueError
from warp.types.array_type import MAX_DIMS

#: Largest extent of one launch dimension: thread coordinates are 32-bit signed integers (as Warp).
MAX_LAUNCH_DIM = 2**31 - 1
#: Largest number of threads of one launch (the linear thread index is a signed 64-bit integer).
MAX_LAUNCH_SIZE = 2**63 - 1
#: ``wp.launch``'s default ``block_dim`` (threads per CUDA block), as NVIDIA Warp
DEFAULT_BLOCK_DIM = 256


def launch_dims(dim: Any, kernel_name: str = "?") -> tuple[tuple[int, ...], int]:
    """Validate a launch ``dim`` (an int, or a sequence of 1 to 4 ints; NumPy integers accepted).

    Returns the dimensions padded to 4 with ones, and the number of threads. Raises ``TypeError``
    for non-integers and ``ValueError`` for negative or too large dimensions (each must fit a
    32-bit signed integer, as in NVIDIA Warp).
    """
    where = f"wp.launch of kernel '{kernel_name}'"
    expected = f"dim must be an int or a tuple of 1 to {MAX_DIMS} ints"
    if isinstance(dim, (str, bytes)):
        raise LaunchTypeError(f"{where}: {expected}, got {type(dim).__name__} {dim!r}")
    try:
        items: tuple[Any, ...] = (operator.index(dim),)
    except TypeError:
        try:
            items = tuple(dim)
        except TypeError:
            raise LaunchTypeError(f"{where}: {expected}, got {type(dim).__name__} {dim!r}") from None
    if not 1 <= len(items) <= MAX_DIMS:
        raise LaunchValueError(f"{where}: dim must have 1 to {MAX_DIMS} dimensions, got {dim!r}")
    dims = []
    for k, d in enumerate(items):
        try:
            value = operator.index(d)
        except TypeError:
            got = f"{type(d).__name__} {d!r}"
            raise LaunchTypeError(f"{where}: launch dimension {k} must be an int, got {got}") from None
        if value < 0:
            raise LaunchValueError(f"{where}: launch dimension {k} is negative ({value}) in dim={dim!r}")
        if value > MAX_LAUNCH_DIM:
            raise LaunchValueError(
                f"{where}: launch dimension {k} is {value}, more than the limit of 2**31 - 1 = "
                f"{MAX_LAUNCH_DIM} (thread indices are 32-bit signed integers); split the work over "
                "more dimensions"
            )
        dims.append(value)
    n = 1
    for value in dims:
        n *= value
    if n > MAX_LAUNCH_SIZE:
        raise LaunchValueError(f"{where}: dim={dim!r} has {n} threads, more than the limit of 2**63 - 1")
    return tuple(dims) + (1,) * (MAX_DIMS - len(dims)), n


def _exact_int_dim(dim: Any) -> bool:
    """True for an ``int`` or a tuple of ``int`` (not bool, float or NumPy integers)."""
    cls = dim.__class__
    return cls is int or (cls is tuple and all(d.__class__ is int for d in dim))


class LaunchShapes:
    """Validated launch dims and block shapes of one launcher, memoized (mixin of ``Launcher``)."""

    kernel: Any
    device: Any
    target: Any
    part: Any
    #: most threads per block (see ``Launcher.block_limit``), None where the target has no blocks
    block_limit: int | None
    _headers: dict[Any, tuple[tuple[int, ...], int]]
    _shapes: dict[tuple[int, int], Any]

    def _block_limit(self) -> int | None:
        limit = getattr(self.target, "max_block_dim", None)
        options = getattr(self.part, "options", None)
        bounds = getattr(options, "launch_bounds", None)
        if limit is None or bounds is None:
            return limit
        return min(limit, bounds[0])

    def launch_shape(self, block_dim: Any, max_blocks: Any) -> Any:
        """The runner's ``shape`` for ``wp.launch(block_dim=..., max_blocks=...)``, validated.

        ``block_dim`` <= 0 or 256 (the default) means 256, or the kernel's ``launch_bounds`` if
        lower; a larger ``block_dim`` than the device or the bounds allow is an error.
        ``max_blocks`` <= 0 means no cap on the grid. None on targets without blocks.
        """
        exact = block_dim.__class__ is int and max_blocks.__class__ is int
        if exact:
            hit = self._shapes.get((block_dim, max_blocks))
            if hit is not None:
                return hit
        if self.block_limit is None:
            return None
        where = f"wp.launch of kernel '{self.kernel.name}'"
        values = []
        for name, value in (("block_dim", block_dim), ("max_blocks", max_blocks)):
            if isinstance(value, bool):
                raise LaunchTypeError(f"{where}: {name} must be an int, got {value!r}")
            try:
                values.append(operator.index(value))
            except TypeError:
                got = f"{type(value).__name__} {value!r}"
                raise LaunchTypeError(f"{where}: {name} must be an int, got {got}") from None
        threads, blocks = values
        if threads <= 0 or threads == DEFAULT_BLOCK_DIM:
            threads = min(DEFAULT_BLOCK_DIM, self.block_limit)
        elif threads > self.block_limit:
            limit = getattr(self.target, "max_block_dim", None)
            if limit is not None and threads > limit:
                why = f"blocks on device '{self.device}' have at most {limit} threads"
            else:
                why = (
                    f"the kernel's launch_bounds allow at most {self.block_limit} threads per block "
                    f"(@wp.kernel(launch_bounds={self.kernel.launch_bounds!r}))"
                )
            if getattr(self.device, "is_cuda", False):
                # NVIDIA Warp's wording for the launch the driver refuses (CUDA_ERROR_INVALID_VALUE)
                where = f"Error launching kernel: {where} on device '{self.device}'"
                why += " (the CUDA driver refuses such a launch: Warp CUDA error 1, invalid argument)"
            raise LaunchValueError(f"{where}: block_dim={threads} is too large: {why}")
        shape = (threads, max(blocks, 0))
        if exact and len(self._shapes) < 64:
            self._shapes[(block_dim, max_blocks)] = shape
        return shape

    def header(self, dim: Any) -> tuple[tuple[int, ...], int]:
        """Validated launch dimensions, memoized for dims that are exactly ints or tuples of ints.

        Only those are looked up in the memo (:meth:`launch`): ``10.0 == 10`` and ``(2, 3.0) ==
        (2, 3)`` as dict keys, and a float dim must be rejected however often 10 was launched.
        """
        hit = launch_dims(dim, self.kernel.name)
        if len(self._headers) < 64 and _exact_int_dim(dim):
            self._headers[dim] = hit
        return hit
