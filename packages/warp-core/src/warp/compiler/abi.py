"""The launch ABI: the argument buffer and the error record, shared by lowering and launcher.

The lowering loads launch dimensions and parameters at these offsets and writes bounds-check
failures into the error record; the launcher packs the buffer with :mod:`struct` and decodes the
record. Both read this module only, so they cannot disagree. Every target uses the same layout.

Argument buffer (little endian)::

    offset  0: int64 dims[4]       launch dimensions (unused ones are 1)
    offset 32: void* error_record  debug-mode error record, or NULL
    offset 40: void* scratch       per-launch scratch memory (adjoints storing loop iterations), or NULL
    offset 48: kernel parameters, each 8-byte aligned (arrays: 64-byte descriptors)

Error record (debug mode; the first failing thread claims it by setting ``flag`` 0 -> 1)::

    offset  0: int32 flag          0 = no error
    offset  4: int32 site          index into the kernel's bounds-check sites
    offset  8: int32 ndim          number of indices recorded
    offset 12: int32 padding
    offset 16: int64 index[4]      the offending index
    offset 48: int64 shape[4]      the array's shape
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from warp.errors import WarpCodegenTypeError
from warp.types.array_type import ARRAY_DESC_SIZE, ArrayType
from warp.types.packing import scalar_code
from warp.types.scalars import is_scalar_type, type_repr

HEADER_FORMAT = "<4qQQ"  # dims[4], error record pointer, scratch pointer
HEADER_SIZE = struct.calcsize(HEADER_FORMAT)
#: Byte offset of launch dimension ``k`` is ``HEADER_DIMS_OFFSET + 8 * k``.
HEADER_DIMS_OFFSET = 0
#: Byte offset of the error record pointer in the header.
HEADER_ERROR_RECORD_OFFSET = 32
#: Byte offset of the scratch memory pointer in the header (a kernel part's compile metadata
#: ``"scratch"`` says it needs one, see ``warp_autodiff.loop_memory``).
HEADER_SCRATCH_OFFSET = 40

ERROR_RECORD_SIZE = 80
ERROR_FLAG_OFFSET = 0
ERROR_SITE_OFFSET = 4
ERROR_NDIM_OFFSET = 8
ERROR_INDEX_OFFSET = 16
ERROR_SHAPE_OFFSET = 48

#: Bytes of the per-module scratch area where debug mode redirects out-of-bounds accesses.
SCRATCH_SIZE = 4096

#: Alignment in bytes of array memory that targets allocate (``Target.allocate``): enough for
#: any element type and for SIMD loads, and what JAX needs to import arrays without a copy.
ALIGNMENT = 64

#: Alignment in bytes that a vector entry (:mod:`warp.compiler.lowering.vector_entry`) assumes of
#: every array argument's data (128-bit loads and stores); the launcher checks it at each launch
#: and uses the entry only where it holds (views at other offsets take the strided entry).
VECTOR_ALIGNMENT = 16


@dataclass(frozen=True)
class ErrorRecord:
    """A decoded error record: which bounds-check site failed, with what index and shape."""

    site: int
    index: tuple[int, ...]
    shape: tuple[int, ...]


def decode_error_record(data: Any) -> ErrorRecord | None:
    """Decode an error record (bytes or a ctypes buffer); None when no error was recorded."""
    flag, site, ndim = struct.unpack_from("<3i", data, ERROR_FLAG_OFFSET)
    if not flag:
        return None
    ndim = max(0, min(ndim, 4))
    index = struct.unpack_from(f"<{ndim}q", data, ERROR_INDEX_OFFSET)
    shape = struct.unpack_from(f"<{ndim}q", data, ERROR_SHAPE_OFFSET)
    return ErrorRecord(site, index, shape)

def _round8(n: int) -> int:
    return (n + 7) & ~7


@dataclass(frozen=True)
class ParamSlot:
    """Where one parameter lives in the argument buffer and how it is packed."""

    offset: int
    size: int
    #: struct format of the slot (padded to a multiple of 8 bytes)
    format: str


def param_slot(t: Any, offset: int) -> ParamSlot:
    """The slot of a parameter of type ``t`` starting at ``offset``."""
    if isinstance(t, ArrayType):
        return ParamSlot(offset, ARRAY_DESC_SIZE, f"{ARRAY_DESC_SIZE}s")
    if is_scalar_type(t):
        code = scalar_code(t)
        size = t._bits_ // 8
        return ParamSlot(offset, 8, code + ("x" * (8 - size) if size < 8 else ""))
    hook = getattr(t, "_wp_abi_format_", None)
    if hook is not None:
        fmt = hook()
        size = struct.calcsize("<" + fmt)
        padded = _round8(size)
        return ParamSlot(offset, padded, fmt + "x" * (padded - size))
    raise WarpCodegenTypeError(f"type {type_repr(t)} cannot be passed to a kernel")


def param_layout(types: list[Any]) -> list[ParamSlot]:
    """Slots of all parameters, after the launch header."""
    slots = []
    offset = HEADER_SIZE
    for t in types:
        slot = param_slot(t, offset)
        slots.append(slot)
        offset += slot.size
    return slots


def buffer_format(types: list[Any]) -> str:
    """The struct format of a whole argument buffer (header + parameters)."""
    return HEADER_FORMAT + "".join(s.format for s in param_layout(types))
