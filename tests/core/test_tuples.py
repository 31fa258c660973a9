"""Functions returning tuples (annotated ``-> tuple[...]`` / ``-> Tuple[...]`` or not), tuple
unpacking, ``wp.tuple``, indexing and ``len`` of tuples, loops over tuples and starred
expressions in calls, tuple displays and assignments."""

from typing import Any, Tuple

import numpy as np
import pytest

import warp as wp


@wp.func
def divmod_floor(a: int, b: int) -> tuple[int, int]:
    q = a // b
    return q, a - q * b


@wp.func
def polar(v: wp.vec2) -> Tuple[float, float]:
    return wp.length(v), wp.atan2(v[1], v[0])


@wp.func
def min_max(a: Any, b: Any):
    if a < b:
        return a, b
    return b, a


@wp.func
def stats3(a: float, b: float, c: float) -> tuple[float, float, int]:
    return (a + b + c) / 3.0, wp.max(wp.max(a, b), c), 3


@wp.func
def add3(a: float, b: float, c: float) -> float:
    return a + b + c


@pytest.mark.needs_plugin("builtins")
def test_annotated_and_unannotated_tuple_returns():
    @wp.kernel
    def k(
        x: wp.array(dtype=int),
        y: wp.array(dtype=int),
        v: wp.array(dtype=wp.vec2),
        out: wp.array2d(dtype=float),
    ):
        i = wp.tid()
        q, r = divmod_floor(x[i], y[i])
        out[i, 0] = float(q)
        out[i, 1] = float(r)
        rad, ang = polar(v[i])
        out[i, 2] = rad
        out[i, 3] = ang
        lo, hi = min_max(float(x[i]), float(y[i]))
        out[i, 4] = hi - lo
        ilo, ihi = min_max(x[i], y[i])
        out[i, 5] = float(ilo * 100 + ihi)

    xs = np.array([7, -7, 9, 0], dtype=np.int32)
    ys = np.array([2, 2, -4, 5], dtype=np.int32)
    vs = np.array([[3.0, 4.0], [0.0, -1.0], [-2.0, 0.0], [1.0, 1.0]], dtype=np.float32)
    out = wp.zeros((4, 6), dtype=float)
    wp.launch(k, dim=4, inputs=[wp.array(xs), wp.array(ys), wp.array(vs, dtype=wp.vec2), out])
    res = out.numpy()
    np.testing.assert_array_equal(res[:, 0], xs // ys)
    np.testing.assert_array_equal(res[:, 1], xs % ys)
    np.testing.assert_allclose(res[:, 2], np.hypot(vs[:, 0], vs[:, 1]), rtol=1e-6)
    np.testing.assert_allclose(res[:, 3], np.arctan2(vs[:, 1], vs[:, 0]), rtol=1e-6)
    np.testing.assert_array_equal(res[:, 4], np.abs(xs - ys))
    np.testing.assert_array_equal(res[:, 5], np.minimum(xs, ys) * 100 + np.maximum(xs, ys))


def test_declared_tuple_return_types_are_checked():
    @wp.func
    def wrong(a: float) -> tuple[float, int]:
        return a, a

    @wp.kernel
    def k(out: wp.array(dtype=float)):
        x, y = wrong(1.0)
        out[0] = x + y

    message = r"annotated as `tuple\[float, int\]` but the code returns a tuple with types `\(float32, "
    with pytest.raises(wp.WarpCodegenTypeError, match=message):
        wp.launch(k, dim=1, inputs=[wp.zeros(1, dtype=float)])

    with pytest.raises(wp.WarpCodegenError, match="tuple\\[T, ...\\] is not supported"):

        @wp.func
        def variadic(a: float) -> tuple[float, ...]:
            return a, a


@pytest.mark.needs_plugin("builtins")
def test_wp_tuple_indexing_len_loops_and_starred():
    @wp.kernel
    def k(x: wp.array(dtype=float), out: wp.array2d(dtype=float)):
        i = wp.tid()
        a = x[i]
        t = wp.tuple(a, a * 2.0, a * 3.0)
        out[i, 0] = t[0] + t[-1]  # constant indices, negative from the end
        out[i, 1] = float(len(t))
        s = float(0.0)
        for item in t:  # unrolled
            s = s * 10.0 + item
        out[i, 2] = s
        out[i, 3] = add3(*t)  # spread into a call
        first, *rest = t
        out[i, 4] = first - rest[1] + float(len(rest))
        u = (*rest, 7.0)
        out[i, 5] = add3(*u)
        mean, top, n = stats3(*t)
        out[i, 6] = mean + top + float(n)
        v = wp.vec3(*t)  # constructors accept spread tuples too
        out[i, 7] = wp.dot(v, wp.vec3(1.0, 1.0, 1.0))
        *init, last = divmod_floor(17, 5)
        out[i, 8] = float(init[0] * 10 + last)

    xs = np.array([1.0, -0.5, 2.0], dtype=np.float32)
    out = wp.zeros((3, 9), dtype=float)
    wp.launch(k, dim=3, inputs=[wp.array(xs), out])
    for i, a in enumerate(xs):
        t = (a, a * 2, a * 3)
        exp = [
            a + 3 * a,
            3.0,
            (t[0] * 10 + t[1]) * 10 + t[2],
            sum(t),
            a - 3 * a + 2,
            2 * a + 3 * a + 7,
            sum(t) / 3 + max(t) + 3,
            sum(t),
            32.0,
        ]
        np.testing.assert_allclose(out.numpy()[i], exp, rtol=1e-6)


def test_return_starred_tuple():
    @wp.func
    def extend(a: float, b: float):
        t = wp.tuple(a, b)
        return *t, a + b

    @wp.kernel
    def k(out: wp.array(dtype=float)):
        x, y, z = extend(1.5, 2.0)
        out[0] = x
        out[1] = y
        out[2] = z

    out = wp.zeros(3, dtype=float)
    wp.launch(k, dim=1, inputs=[out])
    assert out.numpy().tolist() == [1.5, 2.0, 3.5]


def test_tuple_errors_are_located():
    @wp.kernel
    def not_a_tuple(out: wp.array(dtype=float)):
        x = out[0]
        out[0] = add3(*x)

    with pytest.raises(wp.WarpCodegenTypeError, match="Starred expressions .*'x' is float32"):
        wp.launch(not_a_tuple, dim=1, inputs=[wp.zeros(1, dtype=float)])

    @wp.kernel
    def too_few(out: wp.array(dtype=float)):
        a, b, *c, d = wp.tuple(1.0, 2.0)
        out[0] = a

    with pytest.raises(wp.WarpCodegenValueError, match="cannot unpack 2 values into at least 3 targets"):
        wp.launch(too_few, dim=1, inputs=[wp.zeros(1, dtype=float)])


# -- tuple-typed @wp.func parameters -------------------------------------------------------------


@wp.func
def weighted_sum(values: tuple[float, float, int]) -> float:
    return values[0] * values[1] + float(values[2]) + float(wp.static(len(values)))


@wp.func
def sum_ints(values: tuple[int, ...]) -> int:
    out = int(0)
    for i in range(len(values)):
        out += values[i] * (i + 1)
    return out


@wp.func
def sum_any(values: Any) -> int:
    out = int(0)
    for i in range(wp.static(len(values))):
        out += values[i]
    return out


@wp.kernel
def tuple_param_kernel(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    t = (x[0], x[1], 4)
    out[0] = weighted_sum(t)
    out[1] = weighted_sum((x[1], 2.0, 1))
    out[2] = float(sum_ints((1, 2, 3)))
    out[3] = float(sum_ints((5,)))
    u = (7, 8)
    out[4] = float(sum_any(u))


def test_tuple_parameters():
    x = wp.array([1.5, 3.0], dtype=float, device="cpu")
    out = wp.zeros(5, dtype=float, device="cpu")
    wp.launch(tuple_param_kernel, dim=1, inputs=[x, out], device="cpu")
    expected = [1.5 * 3.0 + 4 + 3, 3.0 * 2.0 + 1 + 3, 1 + 4 + 9, 5, 15]
    np.testing.assert_allclose(out.numpy(), expected)


def test_tuple_parameter_length_mismatch():
    @wp.kernel
    def bad(out: wp.array(dtype=float)):
        out[0] = weighted_sum((1.0, 2.0))

    with pytest.raises(wp.WarpCodegenTypeError, match=r"expects tuple\[float32, float32, int32\], got tuple"):
        wp.launch(bad, dim=1, inputs=[wp.zeros(1, dtype=float, device="cpu")], device="cpu")
