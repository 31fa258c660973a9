"""Members of Python ``enum.IntEnum`` / ``IntFlag`` classes in kernels: used as integers, and
their ``.value`` / ``.name`` read at compile time; compared with the same expressions in Python."""

import enum

import numpy as np
import pytest

import warp as wp


class Shade(enum.IntEnum):
    LIGHT = 1
    MEDIUM = 2
    DARK = 3


class Perm(enum.IntFlag):
    READ = 1
    WRITE = 2
    EXEC = 4


def test_enum_members_and_their_value_attribute():
    @wp.kernel(module="unique")
    def members(out: wp.array(dtype=int), v: int):
        out[0] = int(Shade.LIGHT)
        out[1] = int(Shade.MEDIUM.value)
        out[2] = Shade.DARK.value
        out[3] = Shade.LIGHT + int(Shade.MEDIUM) + 0
        out[4] = Perm.READ | Perm.WRITE.value | Perm.EXEC
        out[5] = Perm.READ | int(Perm.WRITE)
        x = Shade.LIGHT
        for _ in range(3):
            x = x + 1
        out[6] = x
        if v == Shade.MEDIUM:
            out[7] = wp.static(Shade.DARK.value)

    out = wp.zeros(8, dtype=int)
    wp.launch(members, 1, inputs=[out, 2])
    expected = [
        int(Shade.LIGHT), int(Shade.MEDIUM.value), Shade.DARK.value, Shade.LIGHT + int(Shade.MEDIUM),
        Perm.READ | Perm.WRITE.value | Perm.EXEC, Perm.READ | int(Perm.WRITE),
        Shade.LIGHT + 3, Shade.DARK.value,
    ]
    np.testing.assert_array_equal(out.numpy(), expected)


def test_enum_member_unknown_attribute_is_a_located_error():
    @wp.kernel(module="unique")
    def bad(out: wp.array(dtype=int)):
        out[0] = Shade.LIGHT.colour

    with pytest.raises(wp.WarpCodegenError, match="colour"):
        wp.launch(bad, 1, inputs=[wp.zeros(1, dtype=int)])
