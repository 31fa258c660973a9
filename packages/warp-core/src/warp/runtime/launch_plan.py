"""Per-thread launch state of a compiled kernel on a target that launches from a reused buffer.

Targets whose :meth:`~warp.targets.base.Target.argument_buffer` gives a buffer (CUDA: the driver
copies the parameters when the launch is issued) are launched without building any bytes: the
launcher packs the parameters straight into this thread's buffer and calls the runner bound to
it. The header (launch dimensions, no error record, no scratch memory) is rewritten only when
the dimensions change: the launcher's memo hands out the same tuple for the same ``dim``.
"""

from __future__ import annotations

import struct
from typing import Any

from warp.compiler.abi import HEADER_FORMAT

_header = struct.Struct(HEADER_FORMAT)


class LaunchPlan:
    """One thread's argument buffer for one compiled kernel part, with the runners of its
    contiguous and strided entries bound to that buffer."""

    __slots__ = ("buffer", "run_contiguous", "run_strided", "dims")

    def __init__(
        self, target: Any, device: Any, entries: tuple[Any, Any], buffer: Any, vector_width: int = 0
    ) -> None:
        self.buffer = buffer
        self.run_contiguous = target.buffer_runner(device, entries[0], buffer)
        if vector_width > 1:  # the entry of contiguous launches is a vector entry
            self.run_contiguous = _vector_runner(self.run_contiguous, vector_width)
        self.run_strided = target.buffer_runner(device, entries[1], buffer)
        #: the launch dimensions the buffer's header holds (None: not written yet)
        self.dims: tuple[int, ...] | None = None

    def fill(self, data: bytes) -> None:
        """Copy a whole packed argument buffer (``len(data)`` is the buffer's size) into the buffer."""
        memoryview(self.buffer).cast("B")[:] = data
        self.dims = None  # (whatever the header holds, it is not from write_header)

    def write_header(self, dims: tuple[int, ...]) -> None:
        """Put launch dimensions ``dims`` (4 ints), no error record and no scratch memory in the header."""
        _header.pack_into(self.buffer, 0, *dims, 0, 0)
        self.dims = dims


def new_plan(
    target: Any, device: Any, entries: tuple[Any, Any], size: int, vector_width: int = 0
) -> LaunchPlan | None:
    """A :class:`LaunchPlan` with a fresh buffer of ``size`` bytes, or None where ``target``
    takes argument bytes instead (:meth:`~warp.targets.base.Target.runner`). ``entries``: the
    contiguous (or, with ``vector_width`` > 1, the vector) entry and the strided entry."""
    buffer = target.argument_buffer(device, size)
    return None if buffer is None else LaunchPlan(target, device, entries, buffer, vector_width)


def _vector_runner(run: Any, width: int) -> Any:
    """A buffer runner of a vector entry: a grid for ``ceil(n / width)`` threads (the entry reads
    the launch size from the header)."""

    def run_vector(n: int, stream: Any = None, keep: Any = None, shape: Any = None) -> None:
        run((n + width - 1) // width, stream, keep, shape)

    return run_vector
