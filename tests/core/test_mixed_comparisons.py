"""Comparisons between two different numeric scalar types convert both to one type first (C's
usual arithmetic conversions, as NVIDIA Warp's comparisons do): ``float < int`` compares as
floats, ``int32 == int64`` as int64, ``uint32 > int32`` as uint32."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
from warp.types.scalars import comparison_type

wp.init()


@wp.kernel
def _mixed(
    f: wp.array(dtype=float),
    i: wp.array(dtype=int),
    u: wp.array(dtype=wp.uint32),
    i64: wp.array(dtype=wp.int64),
    d: wp.array(dtype=wp.float64),
    out: wp.array2d(dtype=int),
):
    t = wp.tid()
    out[t, 0] = int(f[t] < i[t])
    out[t, 1] = int(i[t] >= f[t])
    out[t, 2] = int(i[t] < 1.5)
    out[t, 3] = int(u[t] > i[t])
    out[t, 4] = int(i64[t] == i[t])
    out[t, 5] = int(f[t] != d[t])
    out[t, 6] = int(i[t] < i64[t] < d[t])


def test_mixed_scalar_comparisons_match_numpy_with_c_conversions():
    f = np.array([0.5, 2.0, -1.0, 3.25], dtype=np.float32)
    i = np.array([1, 2, -1, 3], dtype=np.int32)
    u = np.array([0, 1, 5, 7], dtype=np.uint32)
    i64 = np.array([1, 3, -1, 2**40], dtype=np.int64)
    d = np.array([0.5, 2.1, -1.0, 2.0**41], dtype=np.float64)
    out = wp.zeros((4, 7), dtype=int)
    wp.launch(_mixed, 4, inputs=[wp.array(f), wp.array(i), wp.array(u), wp.array(i64), wp.array(d), out])
    ff, ii = f.astype(np.float32), i.astype(np.float32)
    expected = np.stack(
        [
            ff < ii,
            ii >= ff,
            ii < 1.5,
            u > i.astype(np.uint32),  # -1 becomes 4294967295 as in C
            i64 == i.astype(np.int64),
            f.astype(np.float64) != d,
            (i.astype(np.int64) < i64) & (i64.astype(np.float64) < d),
        ],
        axis=1,
    ).astype(np.int32)
    np.testing.assert_array_equal(out.numpy(), expected)


@pytest.mark.parametrize(
    ("a", "b", "common"),
    [
        (wp.float32, wp.int32, wp.float32),
        (wp.int64, wp.float16, wp.float16),
        (wp.float32, wp.float64, wp.float64),
        (wp.float16, wp.bfloat16, wp.float32),
        (wp.int8, wp.uint8, wp.int32),
        (wp.int32, wp.uint32, wp.uint32),
        (wp.uint16, wp.int64, wp.int64),
        (wp.uint64, wp.int64, wp.uint64),
    ],
)
def test_comparison_type_follows_usual_arithmetic_conversions(a, b, common):
    assert comparison_type(a, b) is common
    assert comparison_type(b, a) is common


@pytest.mark.needs_plugin("builtins")
def test_comparing_a_vector_with_a_scalar_still_fails_clearly():
    @wp.kernel
    def bad(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=int)):
        if v[0] < 1.0:
            out[0] = 1

    with pytest.raises(wp.errors.WarpCodegenTypeError, match="no overload of 'lt'"):
        wp.launch(bad, 1, inputs=[wp.zeros(1, dtype=wp.vec3), wp.zeros(1, dtype=int)])
