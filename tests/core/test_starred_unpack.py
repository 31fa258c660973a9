"""``*x`` in kernel calls for vectors, quaternions, matrices (rows), their constant slices and
constant slices of 1-d arrays; and the errors for what cannot be spread."""

import numpy as np
import pytest

import warp as wp


@wp.kernel
def spread_composites(
    out_v: wp.array(dtype=wp.vec4), out_m: wp.array(dtype=wp.mat22), out_s: wp.array(dtype=float)
):
    v3 = wp.vec3(1.0, 2.0, 3.0)
    out_v[0] = wp.vec4(*v3, 4.0)
    q = wp.quat(5.0, 6.0, 7.0, 8.0)
    out_v[1] = wp.vec4(*q)
    out_v[2] = wp.vec4(0.5, *q[1:3], 9.0)
    out_v[3] = wp.vec4(*v3[-2:], *q[:2])
    m = wp.mat33(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0)
    rows = wp.matrix_from_rows(*m[1:])  # 2x3
    out_m[0] = wp.mat22(rows[0, 0], rows[0, 2], rows[1, 0], rows[1, 2])
    out_s[0] = wp.max(*wp.vec2(-3.0, 2.5))


@wp.kernel
def spread_array_slices(arr: wp.array(dtype=int), out: wp.array(dtype=wp.vec3i), best: wp.array(dtype=int)):
    out[0] = wp.vec3i(*arr[:3])
    out[1] = wp.vec3i(*arr[1:7:2])
    out[2] = wp.vec3i(0, *arr[4:6])
    best[0] = wp.max(*arr[2:4])


@pytest.mark.needs_plugin("builtins")
def test_spread_composites_match_numpy():
    out_v = wp.zeros(4, dtype=wp.vec4)
    out_m = wp.zeros(1, dtype=wp.mat22)
    out_s = wp.zeros(1, dtype=float)
    wp.launch(spread_composites, dim=1, inputs=[out_v, out_m, out_s])
    v3 = np.array([1.0, 2.0, 3.0])
    q = np.array([5.0, 6.0, 7.0, 8.0])
    m = np.arange(1.0, 10.0).reshape(3, 3)
    expected = np.array(
        [np.r_[v3, 4.0], q, np.r_[0.5, q[1:3], 9.0], np.r_[v3[-2:], q[:2]]],
    )
    np.testing.assert_array_equal(out_v.numpy(), expected)
    np.testing.assert_array_equal(out_m.numpy()[0], m[1:][:, [0, 2]])
    assert out_s.numpy()[0] == 2.5


@pytest.mark.needs_plugin("builtins")
def test_spread_array_slices_match_numpy():
    data = np.array([3, 1, 4, 1, 5, 9, 2, 6], dtype=np.int32)
    out = wp.zeros(3, dtype=wp.vec3i)
    best = wp.zeros(1, dtype=int)
    wp.launch(spread_array_slices, dim=1, inputs=[wp.array(data, dtype=int), out, best])
    np.testing.assert_array_equal(out.numpy(), [data[:3], data[1:7:2], np.r_[0, data[4:6]]])
    assert best.numpy()[0] == max(data[2:4])


@wp.kernel(module="unique")
def spread_runtime_bound(arr: wp.array(dtype=int), n: int):
    v = wp.vec3i(*arr[:n])


@wp.kernel(module="unique")
def spread_no_stop(arr: wp.array(dtype=int), n: int):
    v = wp.vec3i(*arr[0:])


@wp.kernel(module="unique")
def spread_negative_stop(arr: wp.array(dtype=int), n: int):
    v = wp.vec3i(*arr[:-3])


@wp.kernel(module="unique")
def spread_negative_step(arr: wp.array(dtype=int), n: int):
    v = wp.vec3i(*arr[5:2:-1])


@wp.kernel(module="unique")
def spread_scalar(arr: wp.array(dtype=int), n: int):
    v = wp.vec3i(*n)


@pytest.mark.parametrize(
    ("kernel", "error", "message"),
    [
        (spread_runtime_bound, wp.WarpCodegenValueError, "must be a compile-time constant"),
        (spread_no_stop, wp.WarpCodegenValueError, "requires explicit upper bound"),
        (spread_negative_stop, wp.WarpCodegenValueError, "cannot be negative for arrays"),
        (spread_negative_step, wp.WarpCodegenValueError, "step cannot be negative"),
        (spread_scalar, wp.WarpCodegenTypeError, "Starred expressions are only supported for"),
    ],
)
def test_spread_errors(kernel: wp.Kernel, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        wp.launch(kernel, dim=1, inputs=[wp.zeros(10, dtype=int), 3])
