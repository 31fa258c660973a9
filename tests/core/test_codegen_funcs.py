"""Kernel language: @wp.func calls, return values, multiple returns, default and keyword
arguments, nested calls, array parameters and row slices passed to funcs."""

import typing

import numpy as np
import pytest

import warp as wp


@wp.func
def square(x: float):
    return x * x


@wp.func
def axpy(a: float, x: float, y: float) -> float:
    return a * x + y


@wp.func
def divmod_c(a: int, b: int):
    return a / b, a % b


@wp.func
def min_max_sum(a: float, b: float, c: float):
    lo = a
    hi = a
    if b < lo:
        lo = b
    if c < lo:
        lo = c
    if b > hi:
        hi = b
    if c > hi:
        hi = c
    return lo, hi, a + b + c


@wp.func
def mixed_results(x: float):
    return x * 2.0, int(x), x > 1.0, wp.int64(x) * wp.int64(1000000000)


@wp.func
def scaled(x: float, scale: float = 2.0, offset: float = 0.5):
    return x * scale + offset


@wp.func
def clamp_int(x: int, lo: int = 0, hi: int = 10):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


@wp.func
def uses_later(x: float):
    return defined_later(x) + 1.0


@wp.func
def defined_later(x: float):
    return x * 3.0


@wp.func
def poly(x: float):
    # nested calls of other funcs
    return axpy(square(x), 2.0, axpy(x, 3.0, 1.0))


@wp.func
def write_twice(a: wp.array(dtype=float), i: int, v: float):
    a[i] = v
    a[i + 1] = v * 2.0


@wp.func
def row_sum(row: wp.array(dtype=float)):
    s = float(0.0)
    for k in range(row.shape[0]):
        s += row[k]
    return s


@wp.func
def row_scale(row: wp.array(dtype=float), f: float):
    for k in range(row.shape[0]):
        row[k] = row[k] * f


@wp.func
def plane_sum(plane: wp.array2d(dtype=float)):
    s = float(0.0)
    for a in range(plane.shape[0]):
        for b in range(plane.shape[1]):
            s += plane[a, b]
    return s


@wp.func
def f64_half(x: wp.float64):
    return x * 0.5


@wp.func
def i8_inc(x: wp.int8):
    return x + 1


def test_func_calls_and_return_values():
    @wp.kernel
    def calls(x: wp.array(dtype=float), out: wp.array2d(dtype=float)):
        i = wp.tid()
        v = x[i]
        out[i, 0] = square(v)
        out[i, 1] = axpy(v, 3.0, -1.0)
        out[i, 2] = poly(v)
        out[i, 3] = uses_later(v)
        out[i, 4] = square(square(v) + 1.0)
        out[i, 5] = float(wp.float64(f64_half(wp.float64(v))))
        out[i, 6] = float(i8_inc(wp.int8(127)))

    xs = np.array([-2.0, -0.5, 0.0, 1.0, 3.25], dtype=np.float32)
    out = wp.zeros((5, 7), dtype=float)
    wp.launch(calls, dim=5, inputs=[wp.array(xs, dtype=float), out])
    f = np.float32
    for i, v in enumerate(xs):
        exp = [v * v, v * f(3.0) - f(1.0), (v * v) * f(2.0) + (v * f(3.0) + f(1.0)), v * f(3.0) + f(1.0),
               (v * v + f(1.0)) * (v * v + f(1.0)), v * f(0.5), -128.0]
        np.testing.assert_array_equal(out.numpy()[i], np.array(exp, dtype=np.float32))


def test_multiple_return_values():
    @wp.kernel
    def multi(a: wp.array(dtype=int), b: wp.array(dtype=int), x: wp.array(dtype=float),
              iout: wp.array2d(dtype=int), fout: wp.array2d(dtype=float)):
        i = wp.tid()
        q, r = divmod_c(a[i], b[i])
        iout[i, 0] = q
        iout[i, 1] = r
        lo, hi, s = min_max_sum(x[i], 1.0, -float(i))
        fout[i, 0] = lo
        fout[i, 1] = hi
        fout[i, 2] = s
        # reassigning existing variables from a tuple-returning call
        q, r = divmod_c(r + 10, 3)
        iout[i, 2] = q * 100 + r
        f, n, flag, big = mixed_results(x[i])
        fout[i, 3] = f
        iout[i, 3] = n
        iout[i, 4] = int(flag)
        iout[i, 5] = int(big / wp.int64(1000))

    xs = [17, -17, 5, 0, 9]
    ys = [5, 5, -3, 4, 0]
    fx = np.array([0.5, 3.0, -2.0, 1.0, 10.0], dtype=np.float32)
    iout = wp.zeros((5, 6), dtype=int)
    fout = wp.zeros((5, 4), dtype=float)
    wp.launch(
        multi,
        dim=5,
        inputs=[wp.array(xs, dtype=int), wp.array(ys, dtype=int), wp.array(fx, dtype=float), iout, fout],
    )
    for i, (a, b) in enumerate(zip(xs, ys)):
        q = 0 if b == 0 else int(a / b)
        r = 0 if b == 0 else a - b * q
        r2 = r + 10
        xi = float(fx[i])
        assert iout.numpy()[i].tolist() == [q, r, (r2 // 3) * 100 + r2 % 3, int(xi), int(xi > 1.0),
                                            int(xi) * 1000000], (a, b)
        vals = [fx[i], np.float32(1.0), np.float32(-i)]
        exp = [min(vals), max(vals), (vals[0] + vals[1]) + vals[2], fx[i] * np.float32(2.0)]
        np.testing.assert_array_equal(fout.numpy()[i], np.array(exp, dtype=np.float32))


def test_default_and_keyword_arguments():
    @wp.kernel
    def kw(x: wp.array(dtype=float), n: wp.array(dtype=int), out: wp.array2d(dtype=float),
           iout: wp.array2d(dtype=int)):
        i = wp.tid()
        v = x[i]
        out[i, 0] = scaled(v)
        out[i, 1] = scaled(v, 3.0)
        out[i, 2] = scaled(v, 3.0, 1.0)
        out[i, 3] = scaled(v, offset=-1.0)
        out[i, 4] = scaled(x=v, scale=0.5)
        out[i, 5] = scaled(offset=4.0, scale=-1.0, x=v)
        out[i, 6] = axpy(y=1.0, x=v, a=2.0)
        k = n[i]
        iout[i, 0] = clamp_int(k)
        iout[i, 1] = clamp_int(k, -5)
        iout[i, 2] = clamp_int(k, hi=3)
        iout[i, 3] = clamp_int(k, lo=-100, hi=100)

    xs = np.array([-1.5, 0.0, 2.0, 10.25], dtype=np.float32)
    ns = [-50, -3, 4, 200]
    out = wp.zeros((4, 7), dtype=float)
    iout = wp.zeros((4, 4), dtype=int)
    wp.launch(kw, dim=4, inputs=[wp.array(xs, dtype=float), wp.array(ns, dtype=int), out, iout])
    f = np.float32

    def sc(x, scale=f(2.0), offset=f(0.5)):
        return f(x) * f(scale) + f(offset)

    for i, v in enumerate(xs):
        exp = [sc(v), sc(v, 3.0), sc(v, 3.0, 1.0), sc(v, offset=-1.0), sc(v, scale=0.5), sc(v, -1.0, 4.0),
               f(2.0) * v + f(1.0)]
        np.testing.assert_array_equal(out.numpy()[i], np.array(exp, dtype=np.float32))
        k = ns[i]
        assert iout.numpy()[i].tolist() == [min(max(k, 0), 10), min(max(k, -5), 10), min(max(k, 0), 3),
                                            min(max(k, -100), 100)]


def test_func_with_array_parameter_and_no_return_value():
    @wp.kernel
    def writer(a: wp.array(dtype=float)):
        i = wp.tid()
        write_twice(a, 2 * i, float(i) + 0.5)

    a = wp.zeros(8, dtype=float)
    wp.launch(writer, dim=4, inputs=[a])
    np.testing.assert_array_equal(a.numpy(), [0.5, 1.0, 1.5, 3.0, 2.5, 5.0, 3.5, 7.0])


def test_row_slices_passed_to_funcs():
    @wp.kernel
    def rows(m: wp.array2d(dtype=float), sums: wp.array(dtype=float)):
        i = wp.tid()
        sums[i] = row_sum(m[i])
        row_scale(m[i], 2.0)

    @wp.kernel
    def planes(v: wp.array3d(dtype=float), sums: wp.array(dtype=float), rsums: wp.array2d(dtype=float)):
        i, j = wp.tid()
        if j == 0:
            sums[i] = plane_sum(v[i])
        rsums[i, j] = row_sum(v[i][j])
        rsums[i, j] += row_sum(v[i, j]) * 0.0

    data = np.arange(12, dtype=np.float32).reshape(3, 4) * 0.5
    m = wp.array(data, dtype=float)
    sums = wp.zeros(3, dtype=float)
    wp.launch(rows, dim=3, inputs=[m, sums])
    np.testing.assert_array_equal(sums.numpy(), data.sum(axis=1))
    np.testing.assert_array_equal(m.numpy(), data * 2)

    data3 = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    v = wp.array(data3, dtype=float)
    psums = wp.zeros(2, dtype=float)
    rsums = wp.zeros((2, 3), dtype=float)
    wp.launch(planes, dim=(2, 3), inputs=[v, psums, rsums])
    np.testing.assert_array_equal(psums.numpy(), data3.sum(axis=(1, 2)))
    np.testing.assert_array_equal(rsums.numpy(), data3.sum(axis=2))


def test_funcs_defined_inside_a_test():
    @wp.func
    def local_cube(x: int):
        return x * x * x

    @wp.func
    def local_pair(x: int):
        return local_cube(x), -x

    @wp.kernel
    def local_kernel(out: wp.array2d(dtype=int)):
        i = wp.tid()
        a, b = local_pair(i)
        out[i, 0] = a
        out[i, 1] = b

    out = wp.zeros((6, 2), dtype=int)
    wp.launch(local_kernel, dim=6, inputs=[out])
    assert out.numpy().tolist() == [[i**3, -i] for i in range(6)]



def test_recursive_function_is_a_clear_compile_error():
    @wp.func
    def rec(x: int) -> int:
        if x <= 0:
            return 0
        return rec(x - 1) + 1

    @wp.kernel
    def k(out: wp.array(dtype=int)):
        out[0] = rec(3)

    with pytest.raises(wp.WarpCodegenError, match="recursive @wp.func calls are not supported"):
        wp.launch(k, dim=1, inputs=[wp.zeros(1, dtype=int)])


def test_view_block_dim_and_tuple_builtins():
    @wp.kernel
    def k(m: wp.array2d(dtype=float), out: wp.array(dtype=float), dims: wp.array(dtype=int)):
        i = wp.tid()
        row = wp.view(m, i)
        t = wp.tuple(row[0], row[1] * 2.0)
        a, b = t
        out[i] = a + b + t[1]
        dims[i] = wp.block_dim()

    m = np.arange(6, dtype=np.float32).reshape(3, 2)
    out = wp.zeros(3, dtype=float)
    dims = wp.zeros(3, dtype=int)
    wp.launch(k, dim=3, inputs=[m, out, dims])
    np.testing.assert_allclose(out.numpy(), m[:, 0] + 4.0 * m[:, 1])
    assert dims.numpy().tolist() == [1, 1, 1]


# -- Python-scope calls pick the overload the arguments fit --------------------------------------


@wp.func
def bump(x: int):
    return x + 1


@wp.func
def bump(x: float):  # noqa: F811 - an overload
    return x + 0.5


@wp.func
def bump(x: wp.vec2):  # noqa: F811 - an overload
    return wp.vec2(x[0] * 2.0, x[1] * 2.0)


@wp.func
def halve64(x: wp.float64):
    return x / wp.float64(2.0)


def test_python_scope_call_picks_matching_overload():
    assert bump(1) == 2
    assert bump(1.0) == 1.5
    assert list(bump(wp.vec2(1.0, 3.0))) == [2.0, 6.0]
    assert float(halve64(wp.float64(3.0))) == 1.5


def test_python_scope_call_without_matching_overload_raises():
    expected = r"^Error calling function 'halve64', no overload found for arguments \(1.0,\)$"
    with pytest.raises(RuntimeError, match=expected):
        halve64(1.0)


def test_parameterized_func_decorator():
    @wp.func(module="unique")
    def plus_one(x: float):
        return x + 1.0

    @wp.func()
    def twice_plus_one(x: float):
        return plus_one(x) * 2.0

    @wp.kernel
    def apply(a: wp.array(dtype=float)):
        a[0] = twice_plus_one(a[0])

    a = wp.ones(1, dtype=float, device="cpu")
    wp.launch(apply, dim=1, inputs=[a], device="cpu")
    assert a.numpy()[0] == 4.0
    assert ".unique" in plus_one.module.name
    assert len(typing.get_overloads(wp.func)) >= 2
@wp.func
def _double_it(x: float):
    return x * 2.0


@wp.func
def _halve_it(x: float):
    return x * 0.5


def test_function_bound_to_a_local_cannot_be_rebound():
    @wp.kernel
    def same_function(out: wp.array(dtype=float)):
        f = _double_it
        f = _double_it
        t = wp.float32
        t = wp.float64  # type aliases are not functions
        out[0] = f(3.0) + float(t(1.0))

    out = wp.zeros(1, dtype=float)
    wp.launch(same_function, dim=1, inputs=[out])
    assert out.numpy()[0] == 7.0

    @wp.kernel
    def other_function(out: wp.array(dtype=float)):
        f = _double_it
        f = _halve_it
        out[0] = f(3.0)

    @wp.kernel
    def to_a_value(out: wp.array(dtype=float)):
        f = _double_it
        f = 1.0
        out[0] = f

    message = "rebinding function-valued local 'f'.* to {}"
    with pytest.raises(wp.WarpCodegenError, match=message.format("a different function")):
        wp.launch(other_function, dim=1, inputs=[out])
    with pytest.raises(wp.WarpCodegenError, match=message.format("a non-function value")):
        wp.launch(to_a_value, dim=1, inputs=[out])
