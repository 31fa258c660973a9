"""Conformance: user functions (``@wp.func``) as Warp's documentation uses them: calls from
kernels and other functions, defaults and keywords, tuples, arrays/structs/composites as
arguments, early returns, closures, calls from Python scope and the errors Warp reports."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp


@wp.func
def sqr(x: float):
    return x * x


@wp.func
def vlen(v: wp.vec3) -> float:
    return wp.length(v)


def test_user_functions_callable_from_python_scope():
    assert sqr(3.0) == 9.0
    assert vlen(wp.vec3(3.0, 4.0, 0.0)) == pytest.approx(5.0)


@wp.func
def weighted(a: float, b: float = 1.0, c: float = 2.0):
    return a + 10.0 * b + 100.0 * c


@wp.func
def no_annotation_return(a: int):
    return a + 1


@wp.kernel
def defaults_and_keywords(out: wp.array(dtype=float)):
    out[0] = weighted(1.0)
    out[1] = weighted(1.0, c=3.0)
    out[2] = weighted(a=1.0, b=0.0, c=0.0)
    out[3] = weighted(1.0, 2.0, 3.0)
    out[4] = float(no_annotation_return(41))


def test_defaults_keywords_and_inferred_return_types():
    out = wp.zeros(5, dtype=float)
    wp.launch(defaults_and_keywords, dim=1, inputs=[out])
    assert out.numpy().tolist() == [211.0, 311.0, 1.0, 321.0, 42.0]


@wp.func
def sign_of(x: int) -> int:
    if x > 0:
        return 1
    elif x < 0:
        return -1
    return 0


@wp.func
def first_multiple_of_three(n: int) -> int:
    for i in range(1, n):
        if i % 3 == 0:
            return i
    return -1


@wp.func
def count_up(n: int) -> int:
    i = int(0)
    while True:
        if i >= n:
            return i * 10
        i += 1
    return -5


@wp.kernel
def early_returns(out: wp.array(dtype=int)):
    out[0] = sign_of(5)
    out[1] = sign_of(-2)
    out[2] = sign_of(0)
    out[3] = first_multiple_of_three(10)
    out[4] = first_multiple_of_three(2)
    out[5] = count_up(4)


def test_early_returns():
    out = wp.zeros(6, dtype=int)
    wp.launch(early_returns, dim=1, inputs=[out])
    assert out.numpy().tolist() == [1, -1, 0, 3, -1, 40]


@wp.kernel
def return_in_kernel(out: wp.array(dtype=int)):
    tid = wp.tid()
    if tid > 2:
        return
    out[tid] = 1


def test_return_from_kernel():
    out = wp.zeros(5, dtype=int)
    wp.launch(return_in_kernel, dim=5, inputs=[out])
    assert out.numpy().tolist() == [1, 1, 1, 0, 0]


@wp.func
def set_first(v: wp.vec3):
    v[0] = 10.0
    return v


@wp.func
def write_array(a: wp.array(dtype=float), i: int, value: float):
    a[i] = value


@wp.func
def mat_row(m: wp.mat33) -> wp.vec3:
    return m[0]


@wp.func
def make_mat() -> wp.mat22:
    return wp.mat22(1.0, 2.0, 3.0, 4.0)


@wp.kernel
def argument_kinds(vecs: wp.array(dtype=wp.vec3), arr: wp.array(dtype=float), mats: wp.array(dtype=wp.mat22)):
    v = wp.vec3(1.0, 2.0, 3.0)
    w = set_first(v)
    vecs[0] = v  # composites are passed by value
    vecs[1] = w
    vecs[2] = mat_row(wp.identity(n=3, dtype=float))
    write_array(arr, wp.tid(), 2.0)  # arrays are passed by reference
    mats[0] = make_mat()


def test_argument_kinds():
    vecs, arr, mats = wp.zeros(3, dtype=wp.vec3), wp.zeros(1, dtype=float), wp.zeros(1, dtype=wp.mat22)
    wp.launch(argument_kinds, dim=1, inputs=[vecs, arr, mats])
    assert vecs.numpy().tolist() == [[1, 2, 3], [10, 2, 3], [1, 0, 0]]
    assert arr.numpy().tolist() == [2.0]
    assert mats.numpy().tolist() == [[[1, 2], [3, 4]]]


@wp.func
def pair(x: float):
    return x, x * 2.0


@wp.func
def typed_pair(x: int) -> tuple[int, float]:
    return x, float(x) * 0.5


@wp.func
def two_vecs() -> tuple[wp.vec3, wp.vec3]:
    return wp.vec3(1.0), wp.vec3(2.0)


@wp.kernel
def tuple_returns(out: wp.array(dtype=float), vecs: wp.array(dtype=wp.vec3)):
    p, q = pair(2.0)
    i, f = typed_pair(3)
    out[0] = p + q
    out[1] = float(i) + f
    a, b = two_vecs()
    vecs[0] = a + b
    t = two_vecs()
    vecs[1] = t[1]
    x, y = 1.0, 2.0
    x, y = y, x
    out[2] = x - y


def test_tuple_returns_and_unpacking():
    out, vecs = wp.zeros(3, dtype=float), wp.zeros(2, dtype=wp.vec3)
    wp.launch(tuple_returns, dim=1, inputs=[out, vecs])
    assert out.numpy().tolist() == [6.0, 4.5, 1.0]
    assert vecs.numpy().tolist() == [[3, 3, 3], [2, 2, 2]]


@wp.struct
class Particle:
    pos: wp.vec3
    vel: wp.vec3


@wp.func
def step(p: Particle, dt: float) -> Particle:
    q = Particle()
    q.pos = p.pos + p.vel * dt
    q.vel = p.vel
    return q


@wp.kernel
def integrate(ps: wp.array(dtype=Particle), dt: float):
    i = wp.tid()
    ps[i] = step(ps[i], dt)


def test_structs_through_functions():
    ps = wp.array([Particle(pos=wp.vec3(0.0), vel=wp.vec3(1.0, 2.0, 3.0))] * 3, dtype=Particle)
    wp.launch(integrate, dim=3, inputs=[ps, 0.5])
    assert [p.pos for p in ps.list()] == [wp.vec3(0.5, 1.0, 1.5)] * 3


@wp.kernel
def calls_later_function(out: wp.array(dtype=float)):
    out[0] = defined_after_the_kernel(2.0)


@wp.func
def defined_after_the_kernel(x: float):
    return x + 1.0


def test_function_defined_after_kernel():
    out = wp.zeros(1, dtype=float)
    wp.launch(calls_later_function, dim=1, inputs=[out])
    assert out.numpy().tolist() == [3.0]


def create_fn(scale):
    @wp.func
    def fn(x: float):
        return x * scale

    return fn


double_fn = create_fn(2.0)
triple_fn = create_fn(3.0)


@wp.kernel
def closures(out: wp.array(dtype=float)):
    out[0] = double_fn(1.0) + triple_fn(10.0)


def test_function_closures_capture_values():
    out = wp.zeros(1, dtype=float)
    wp.launch(closures, dim=1, inputs=[out])
    assert out.numpy().tolist() == [32.0]


def compose(f):
    @wp.func
    def applied_twice(x: float):
        return f(f(x))

    return applied_twice


def make_kernel(g):
    @wp.kernel
    def apply(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = g(a[i])

    return apply


def test_closures_over_functions():
    """Factories of functions and kernels that capture other @wp.func objects (docs: Code
    Generation, dynamic kernel creation)."""
    twice_double = compose(double_fn)
    twice_triple = compose(triple_fn)
    a = wp.array([1.0, 2.0], dtype=float)
    wp.launch(make_kernel(twice_double), dim=2, inputs=[a])
    assert a.numpy().tolist() == [4.0, 8.0]
    wp.launch(make_kernel(twice_triple), dim=2, inputs=[a])
    assert a.numpy().tolist() == [36.0, 72.0]


@wp.func
def recursive(n: int) -> int:
    if n <= 0:
        return 0
    return n + recursive(n - 1)


@wp.kernel
def calls_recursive(out: wp.array(dtype=int)):
    out[0] = recursive(3)


def test_recursion_is_rejected():
    with pytest.raises(wp.WarpCodegenError, match="recursive"):
        wp.launch(calls_recursive, dim=1, inputs=[wp.zeros(1, dtype=int)])


@wp.kernel
def unknown_function(out: wp.array(dtype=int)):
    out[0] = not_defined_anywhere(3)  # noqa: F821


def test_undefined_function_error_names_it():
    with pytest.raises(wp.WarpCodegenError, match="not_defined_anywhere"):
        wp.launch(unknown_function, dim=1, inputs=[wp.zeros(1, dtype=int)])


@wp.kernel
def wrong_arguments(out: wp.array(dtype=float)):
    out[0] = wp.sin(1.0, 2.0)


def test_wrong_builtin_arguments_error():
    with pytest.raises(wp.WarpCodegenTypeError, match="sin"):
        wp.launch(wrong_arguments, dim=1, inputs=[wp.zeros(1, dtype=float)])


@pytest.mark.xfail(
    not hasattr(wp, "func_grad"), strict=True, reason="@wp.func_grad: lang-funcs' 22e1404 not on main yet"
)
def test_custom_gradient_function():
    @wp.func
    def reversible_sqrt(x: float):
        return wp.sqrt(x)

    @wp.func_grad(reversible_sqrt)
    def adj_reversible_sqrt(x: float, adj_ret: float):
        if x > 0.0:
            wp.adjoint[x] += adj_ret / (2.0 * wp.sqrt(x))

    @wp.kernel
    def custom_grad_kernel(xs: wp.array(dtype=float), ys: wp.array(dtype=float)):
        i = wp.tid()
        ys[i] = reversible_sqrt(xs[i])

    xs = wp.array([0.0, 4.0, 9.0], dtype=float, requires_grad=True)
    ys = wp.zeros(3, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(custom_grad_kernel, dim=3, inputs=[xs], outputs=[ys])
    tape.backward(grads={ys: wp.ones(3, dtype=float)})
    np.testing.assert_allclose(ys.numpy(), [0.0, 2.0, 3.0])
    np.testing.assert_allclose(xs.grad.numpy(), [0.0, 0.25, 1.0 / 6.0], rtol=1e-6)
