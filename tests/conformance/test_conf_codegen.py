"""Conformance: the Code Generation and Debugging pages of Warp's documentation and the control
flow of the kernel language (static expressions, kernel factories, constants and globals,
loops, printing, expectations, debug-mode bounds checks)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import warp as wp

# -- modules: kernels defined between launches -------------------------------------------------


def test_kernels_defined_between_launches(capfd):
    @wp.kernel
    def kernel_foo():
        print("foo")

    capfd.readouterr()
    wp.launch(kernel_foo, dim=1)

    @wp.kernel
    def kernel_bar():
        print("bar")

    wp.launch(kernel_bar, dim=1)
    wp.synchronize()
    assert capfd.readouterr().out.splitlines() == ["foo", "bar"]


# -- static expressions -------------------------------------------------------------------------


@wp.func
def double(x: float):
    return 2.0 * x


@wp.func
def square(x: float):
    return x * x


funcs = [double, square]


def get_func(name):
    return double if name == "double" else square


USE_FAST_PATH = True
NUM_TERMS = 4


@wp.kernel
def static_expressions(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    for i in range(wp.static(len(funcs))):
        a[i] = wp.static(funcs[i])(a[i])
    out[0] = wp.static(get_func("double"))(1.5)
    out[1] = wp.static(get_func("square"))(1.5)
    if wp.static(USE_FAST_PATH):
        out[2] = 1.0
    else:
        out[2] = 2.0
    s = float(0.0)
    for k in range(wp.static(NUM_TERMS)):
        s += float(k)
    out[3] = s
    out[4] = wp.static(math.sqrt(2.0) * 3.0)


def test_static_expressions():
    a = wp.array([3.0, 3.0], dtype=float)
    out = wp.zeros(5, dtype=float)
    wp.launch(static_expressions, dim=1, inputs=[a, out])
    assert a.numpy().tolist() == [6.0, 9.0]
    np.testing.assert_allclose(out.numpy(), [3.0, 2.25, 1.0, 6.0, np.float32(math.sqrt(2.0) * 3.0)])


# -- dynamic kernel creation --------------------------------------------------------------------


def create_kernel_with_constant(constant):
    @wp.kernel
    def k(a: wp.array(dtype=float)):
        tid = wp.tid()
        a[tid] += constant

    return k


def create_kernel_with_function(f):
    @wp.kernel
    def k(a: wp.array(dtype=float)):
        tid = wp.tid()
        a[tid] = f(a[tid])

    return k


def test_kernel_factories():
    a = wp.zeros(4, dtype=float)
    k1 = create_kernel_with_constant(17.0)
    k2 = create_kernel_with_constant(42.0)
    k3 = create_kernel_with_constant(-9.0)
    wp.launch(k1, dim=4, inputs=[a])
    wp.launch(k2, dim=4, inputs=[a])
    wp.launch(k3, dim=4, inputs=[a])
    assert a.numpy().tolist() == [50.0] * 4
    b = wp.array([1.0, 2.0], dtype=float)
    wp.launch(create_kernel_with_function(double), dim=2, inputs=[b])
    wp.launch(create_kernel_with_function(square), dim=2, inputs=[b])
    assert b.numpy().tolist() == [4.0, 16.0]


def test_kernel_object_constructed_directly():
    def body(a: wp.array(dtype=float)):
        a[wp.tid()] = 3.0

    k = wp.Kernel(func=body, key="conformance_direct_kernel")
    a = wp.zeros(2, dtype=float)
    wp.launch(k, dim=2, inputs=[a])
    assert a.numpy().tolist() == [3.0, 3.0]


# -- constants and globals ----------------------------------------------------------------------

GLOBAL_F = 2.5
GLOBAL_I = 3
GLOBAL_V = wp.vec3(1.0, 2.0, 3.0)
CONST_V = wp.constant(wp.vec3(1.0, 2.0, 3.0))
CONST_D = wp.constant(wp.float64(0.1))
CONST_M = wp.constant(wp.mat22(1.0, 2.0, 3.0, 4.0))


@wp.kernel
def read_globals(out: wp.array(dtype=float), out64: wp.array(dtype=wp.float64)):
    out[0] = GLOBAL_F * float(GLOBAL_I)
    out[1] = GLOBAL_V[1] + CONST_V.z
    out[2] = CONST_M[1, 0]
    out64[0] = CONST_D * wp.float64(3.0)


def test_constants_and_global_values():
    out = wp.zeros(3, dtype=float)
    out64 = wp.zeros(1, dtype=wp.float64)
    wp.launch(read_globals, dim=1, inputs=[out, out64])
    assert out.numpy().tolist() == [7.5, 5.0, 3.0]
    assert out64.numpy()[0] == 0.1 * 3.0


# -- control flow -------------------------------------------------------------------------------


@wp.kernel
def loops(out: wp.array(dtype=int), n: int):
    s = int(0)
    for i in range(n):
        if i == 3:
            continue
        if i == 7:
            break
        s += i
    out[0] = s
    j = int(0)
    while j < 5:
        j += 1
    out[1] = j
    t = int(0)
    for i in range(10, 0, -2):
        t += i
    out[2] = t
    u = int(0)
    for i in reversed(range(n)):
        u = u * 10 + i
        if u > 1000:
            break
    out[3] = u
    v = int(0)
    for i in range(2, n, 3):
        v += i
    out[4] = v
    w = int(0)
    for i in range(3):
        for k in range(i, 3):
            w += i * 10 + k
    out[5] = w


def test_loops():
    out = wp.zeros(6, dtype=int)
    wp.launch(loops, dim=1, inputs=[out, 10])
    u = 0
    for i in reversed(range(10)):
        u = u * 10 + i
        if u > 1000:
            break
    w = sum(i * 10 + k for i in range(3) for k in range(i, 3))
    assert out.numpy().tolist() == [0 + 1 + 2 + 4 + 5 + 6, 5, 30, u, 2 + 5 + 8, w]


@wp.kernel
def dynamic_range(out: wp.array(dtype=int), start: int, end: int, step: int):
    s = int(0)
    for i in range(start, end, step):
        s += i
    out[0] = s


@pytest.mark.parametrize("start,end,step", [(10, 0, -3), (0, 10, -1), (-5, 5, 2), (0, 0, 1)])
def test_dynamic_ranges(start, end, step):
    out = wp.zeros(1, dtype=int)
    wp.launch(dynamic_range, dim=1, inputs=[out, start, end, step])
    assert out.numpy()[0] == sum(range(start, end, step))


@wp.kernel
def branches(out: wp.array(dtype=float), x: float):
    y = 0.0
    if x > 2.0:
        y = 1.0
    elif x > 1.0:
        y = 2.0
    else:
        y = 3.0
    out[0] = y
    out[1] = 1.0 if x > 0.0 else -1.0
    out[2] = float(0.0 < x < 2.0)
    out[3] = float(x > 0.0 and x < 1.5 or x > 10.0)
    out[4] = wp.select(x > 1.0, 5.0, 6.0)  # select(cond, value_if_false, value_if_true)
    out[5] = wp.where(x > 1.0, 5.0, 6.0)


@pytest.mark.parametrize("x", [0.5, 1.5, 2.5, -1.0])
def test_branches(x):
    out = wp.zeros(6, dtype=float)
    wp.launch(branches, dim=1, inputs=[out, x])
    y = 1.0 if x > 2.0 else (2.0 if x > 1.0 else 3.0)
    expected = [
        y,
        1.0 if x > 0 else -1.0,
        float(0 < x < 2),
        float(0 < x < 1.5 or x > 10),
        6.0 if x > 1.0 else 5.0,
        5.0 if x > 1.0 else 6.0,
    ]
    assert out.numpy().tolist() == expected


@wp.kernel
def augmented_assignments(out: wp.array(dtype=int)):
    i = int(7)
    i += 1
    i -= 3
    i *= 4
    i //= 3
    i %= 5
    i <<= 2
    i |= 1
    i &= 7
    i ^= 2
    i >>= 1
    out[0] = i


def test_augmented_assignments():
    out = wp.zeros(1, dtype=int)
    wp.launch(augmented_assignments, dim=1, inputs=[out])
    i = 7
    i += 1
    i -= 3
    i *= 4
    i //= 3
    i %= 5
    i <<= 2
    i |= 1
    i &= 7
    i ^= 2
    i >>= 1
    assert out.numpy()[0] == i


@wp.kernel
def truthiness(out: wp.array(dtype=int), x: float, n: int):
    if x:
        out[0] = 1
    if n:
        out[1] = 1
    if not n:
        out[2] = 1
    m = n
    while m:
        m -= 1
    out[3] = m


def test_truthiness_of_numbers():
    out = wp.zeros(4, dtype=int)
    wp.launch(truthiness, dim=1, inputs=[out, 0.5, 3])
    assert out.numpy().tolist() == [1, 1, 0, 0]
    out.zero_()
    wp.launch(truthiness, dim=1, inputs=[out, 0.0, 0])
    assert out.numpy().tolist() == [0, 0, 1, 0]


def test_type_of_a_variable_cannot_change():
    @wp.kernel
    def retype(out: wp.array(dtype=float)):
        a = 1
        a = 2.0
        out[0] = a

    with pytest.raises(wp.WarpCodegenError):
        wp.launch(retype, dim=1, inputs=[wp.zeros(1, dtype=float)])


# -- printing and debugging ---------------------------------------------------------------------


@wp.kernel
def printing(x: float, v: wp.vec3, i: int, m: wp.mat22):
    print(x)
    print(v)
    print(i)
    wp.printf("%d %f\n", i, x)
    print("hello")
    print(m)


def test_print_and_printf(capfd):
    capfd.readouterr()
    wp.launch(printing, dim=1, inputs=[1.5, wp.vec3(1.0, 2.0, 3.0), 7, wp.mat22(1.0, 2.0, 3.0, 4.0)])
    wp.synchronize()
    lines = capfd.readouterr().out.splitlines()
    assert lines[:5] == ["1.5", "1 2 3 ", "7", "7 1.500000", "hello"]
    assert [ln.split() for ln in lines[5:]] == [["1", "2"], ["3", "4"]]


@wp.kernel
def expectations():
    wp.expect_eq(1, 1)
    wp.expect_neq(1.0, 2.0)
    wp.expect_near(1.0, 1.0001, 0.01)
    wp.expect_eq(wp.vec3(1.0), wp.vec3(1.0, 1.0, 1.0))
    wp.expect_eq(1, 2)


def test_expectations_report_failures(capfd):
    capfd.readouterr()
    wp.launch(expectations, dim=1)
    wp.synchronize()
    out = capfd.readouterr().out
    assert out.count("Expect failed") == 1 and "wp.expect_eq(1, 2)" in out


@wp.kernel
def out_of_bounds(a: wp.array(dtype=float), i: int):
    a[i] = 1.0


def test_debug_mode_bounds_checks(debug_mode):
    wp.launch(out_of_bounds, dim=1, inputs=[wp.zeros(3, dtype=float), 2])
    with pytest.raises(IndexError, match="out of bounds"):
        wp.launch(out_of_bounds, dim=1, inputs=[wp.zeros(3, dtype=float), 5])
        wp.synchronize()


def test_module_options():
    wp.set_module_options({"max_unroll": 4})
    try:
        assert wp.get_module_options()["max_unroll"] == 4
    finally:
        wp.set_module_options({"max_unroll": wp.config.max_unroll})


# -- errors, caught the way Warp code catches them --------------------------------------------------


@wp.kernel
def needs_vec(a: wp.array(dtype=wp.vec3), v: wp.vec3):
    a[0] = v


def test_launch_argument_errors_are_runtime_errors():
    """Warp reports launch argument problems as RuntimeError('Error launching kernel ...')."""
    a = wp.zeros(1, dtype=wp.vec3)
    with pytest.raises(RuntimeError, match="Error launching kernel 'needs_vec', passed 1 arguments"):
        wp.launch(needs_vec, dim=1, inputs=[a])
    with pytest.raises(RuntimeError, match="argument 'a'"):
        wp.launch(needs_vec, dim=1, inputs=[wp.zeros(1, dtype=float), wp.vec3()])
    with pytest.raises(TypeError):  # also a TypeError
        wp.launch(needs_vec, dim=1, inputs=[wp.zeros(1, dtype=float), wp.vec3()])


def test_compile_errors_are_codegen_errors():
    @wp.kernel
    def broken(out: wp.array(dtype=float)):
        out[0] = float(0.0) + int(4)

    with pytest.raises(wp.codegen.WarpCodegenError):
        wp.launch(broken, dim=1, inputs=[wp.zeros(1, dtype=float)])
    with pytest.raises(RuntimeError):
        wp.launch(broken, dim=1, inputs=[wp.zeros(1, dtype=float)])
    assert issubclass(wp.codegen.WarpCodegenTypeError, TypeError)
