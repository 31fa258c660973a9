"""Helpers shared by the wp.array tests (test_arrays.py, test_array_copies_composites.py): a
stand-in composite element type and a reader of an array's kernel descriptor."""

from __future__ import annotations

import struct

import warp as wp
from warp.types.array_type import ARRAY_DESC_FORMAT, ARRAY_DESC_SIZE


class vec3:
    """Stand-in for a composite type: three float32 components."""

    _shape_ = (3,)
    _wp_scalar_type_ = wp.float32
    _size_in_bytes_ = 12

    def __init__(self, *c):
        self.c = [float(x) for x in c]

    def __len__(self):
        return 3

    def __getitem__(self, i):
        return self.c[i]

    def __eq__(self, other):
        return isinstance(other, vec3) and self.c == other.c


def unpack_desc(a):
    """(data pointer, grad pointer, shape, strides) of the array's kernel descriptor."""
    assert isinstance(a._desc, bytes) and len(a._desc) == ARRAY_DESC_SIZE
    v = struct.unpack(ARRAY_DESC_FORMAT, a._desc)
    return v[0], v[1], v[2:6], v[6:10]
