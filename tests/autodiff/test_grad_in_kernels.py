"""``wp.grad(f)(*args)`` in kernel code: the derivative of a @wp.func's result with respect to each
argument, computed in the forward launch (checked against analytic derivatives and finite
differences), and clear errors where it cannot be formed."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp


@wp.func
def square(x: float):
    return x * x


@wp.func
def potential(d: wp.vec3):
    return 2.0 / (wp.length(d) + 0.1)


@wp.func
def angle(y: float, x: float):
    return wp.atan2(y, x)


@wp.func
def looped(x: float, n: int):
    s = float(0.0)
    for _ in range(n):
        s += x * x
    return s


@wp.func
def through_func(x: float):
    return x + wp.grad(square)(x)


@wp.func
def piecewise(x: float):
    r = x * x * x
    if x < 0.0:
        r = -x
    return r


@wp.kernel(enable_backward=False)
def grads(
    x: wp.array(dtype=float),
    v: wp.array(dtype=wp.vec3),
    g_square: wp.array(dtype=float),
    g_pot: wp.array(dtype=wp.vec3),
    g_y: wp.array(dtype=float),
    g_x: wp.array(dtype=float),
    z: wp.array(dtype=float),
    g_piece: wp.array(dtype=float),
):
    i = wp.tid()
    g_square[i] = wp.grad(square)(x[i])
    g_pot[i] = wp.grad(potential)(v[i])
    g = wp.grad(angle)
    b, a = g(1.0, x[i])
    g_y[i] = b
    g_x[i] = a
    z[i] = through_func(x[i])
    g_piece[i] = wp.grad(piecewise)(x[i] - 2.0)


def test_grad_matches_analytic_derivatives():
    n = 6
    rng = np.random.default_rng(3)
    x_np = np.linspace(-1.5, 3.0, n).astype(np.float32)
    v_np = rng.normal(size=(n, 3)).astype(np.float32)
    outs = [wp.zeros(n), wp.zeros(n, dtype=wp.vec3), wp.zeros(n), wp.zeros(n), wp.zeros(n), wp.zeros(n)]
    wp.launch(grads, n, inputs=[wp.array(x_np), wp.array(v_np, dtype=wp.vec3), *outs])
    g_square, g_pot, g_y, g_x, z, g_piece = (o.numpy() for o in outs)
    np.testing.assert_allclose(g_square, 2.0 * x_np, rtol=1e-6)
    length = np.linalg.norm(v_np, axis=1, keepdims=True)
    np.testing.assert_allclose(g_pot, -2.0 / (length + 0.1) ** 2 * v_np / length, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(g_y, x_np / (x_np**2 + 1.0), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(g_x, -1.0 / (x_np**2 + 1.0), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(z, 3.0 * x_np, rtol=1e-6)
    t = x_np.astype(np.float64) - 2.0
    np.testing.assert_allclose(g_piece, np.where(t < 0.0, -1.0, 3.0 * t * t), rtol=1e-5)


@wp.kernel(enable_backward=False)
def grad_of_loop(x: wp.array(dtype=float), n: int, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.grad(looped)(x[i], n)


def test_grad_of_function_with_int_parameter_is_refused_by_name():
    with pytest.raises(wp.errors.WarpCodegenError, match=r"wp.grad\(looped\).*'n' \(int32\) is not"):
        wp.launch(grad_of_loop, 1, inputs=[wp.zeros(1), 2, wp.zeros(1)])


@wp.func
def to_vec(x: float):
    return wp.vec2(x, x)


@wp.kernel(enable_backward=False)
def grad_of_vector_result(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    out[0] = wp.grad(to_vec)(x[0])


def test_grad_of_function_returning_a_vector_is_refused():
    with pytest.raises(wp.errors.WarpCodegenTypeError, match=r"wp.grad\(to_vec\) needs a function returning"):
        wp.launch(grad_of_vector_result, 1, inputs=[wp.zeros(1), wp.zeros(1)])


@wp.kernel(enable_backward=False)
def grad_of_builtins(x: wp.array(dtype=float), y: wp.array(dtype=float), gy: wp.array(dtype=float),
                     gx: wp.array(dtype=float), gs: wp.array(dtype=float)):
    i = wp.tid()
    b, a = wp.grad(wp.atan2)(y[i], x[i])
    gy[i] = b
    gx[i] = a
    gs[i] = wp.grad(wp.sqrt)(x[i])


def test_grad_of_builtins_matches_analytic_derivatives():
    x_np = np.array([0.5, 1.0, 2.0, 3.5], dtype=np.float32)
    y_np = np.array([1.0, -0.5, 0.25, 2.0], dtype=np.float32)
    gy, gx, gs = wp.zeros(4), wp.zeros(4), wp.zeros(4)
    wp.launch(grad_of_builtins, 4, inputs=[wp.array(x_np), wp.array(y_np), gy, gx, gs])
    r2 = x_np.astype(np.float64) ** 2 + y_np.astype(np.float64) ** 2
    np.testing.assert_allclose(gy.numpy(), x_np / r2, rtol=1e-5)
    np.testing.assert_allclose(gx.numpy(), -y_np / r2, rtol=1e-5)
    np.testing.assert_allclose(gs.numpy(), 0.5 / np.sqrt(x_np.astype(np.float64)), rtol=1e-5)


@wp.kernel(enable_backward=False)
def grad_of_a_class(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    out[0] = wp.grad(wp.vec3)(x[0])


def test_grad_of_something_else_is_refused():
    with pytest.raises(wp.errors.WarpCodegenTypeError, match=r"a @wp.func function or a kernel builtin"):
        wp.launch(grad_of_a_class, 1, inputs=[wp.zeros(1), wp.zeros(1)])


def test_grad_in_python_scope_explains():
    with pytest.raises(RuntimeError, match=r"wp.grad\(square\)\(...\) is evaluated in kernel code"):
        wp.grad(square)(1.0)
    with pytest.raises(TypeError, match="takes a @wp.func function or a kernel builtin"):
        wp.grad(np.sin)


@pytest.mark.parametrize("rebind", ["value", "tuple", "augassign", "other_grad"])
def test_rebinding_a_grad_local_is_refused(rebind):
    if rebind == "value":
        @wp.kernel(enable_backward=False)
        def k(out: wp.array(dtype=float)):
            g = wp.grad(square)
            g = 1.0
            out[0] = g
    elif rebind == "tuple":
        @wp.kernel(enable_backward=False)
        def k(out: wp.array(dtype=float)):
            g = wp.grad(square)
            g, x = (1.0, 2.0)
            out[0] = x
    elif rebind == "augassign":
        @wp.kernel(enable_backward=False)
        def k(out: wp.array(dtype=float)):
            g = wp.grad(square)
            g += 1.0
            out[0] = 1.0
    else:
        @wp.kernel(enable_backward=False)
        def k(out: wp.array(dtype=float)):
            g = wp.grad(square)
            g = wp.grad(piecewise)
            out[0] = g(1.0)

    expected = r"Cannot reassign local 'g': it is bound to wp.grad\(square\)"
    with pytest.raises(wp.errors.WarpCodegenError, match=expected):
        wp.launch(k, 1, inputs=[wp.zeros(1)])


@wp.kernel(enable_backward=False)
def grad_local_twice(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    g = wp.grad(square)
    g = wp.grad(square)
    out[0] = g(x[0])


def test_binding_the_same_grad_again_is_fine():
    out = wp.zeros(1)
    wp.launch(grad_local_twice, 1, inputs=[wp.array([1.5], dtype=float), out])
    assert out.numpy()[0] == 3.0


@wp.kernel
def first_derivatives(x: wp.array(dtype=float), v: wp.array(dtype=wp.vec3), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = wp.grad(piecewise)(x[i]) + wp.dot(wp.grad(potential)(v[i]), wp.vec3(1.0, -2.0, 0.5))


def _first(x_np, v_np):
    y = wp.zeros(len(x_np))
    wp.launch(first_derivatives, len(x_np), inputs=[wp.array(x_np), wp.array(v_np, dtype=wp.vec3), y])
    return y.numpy().astype(np.float64)


def test_second_derivatives_through_a_tape_match_finite_differences():
    """wp.grad(f) in a kernel recorded on a Tape: backward gives the second derivative."""
    x_np = np.array([-1.5, 0.5, 1.25, 2.0], dtype=np.float32)
    v_np = np.array(
        [[0.5, 1.0, -0.25], [1.0, 0.0, 0.5], [-0.75, 0.5, 1.0], [0.3, -0.6, 0.9]], dtype=np.float32
    )
    x = wp.array(x_np, requires_grad=True)
    v = wp.array(v_np, dtype=wp.vec3, requires_grad=True)
    y = wp.zeros(4, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(first_derivatives, 4, inputs=[x, v, y])
    tape.backward(grads={y: wp.ones(4)})
    # piecewise'' is 6x for x >= 0 and 0 below
    np.testing.assert_allclose(x.grad.numpy(), np.where(x_np < 0.0, 0.0, 6.0 * x_np), rtol=1e-5)
    eps = 1e-2
    fd = np.zeros_like(v_np, dtype=np.float64)
    for c in range(3):
        plus, minus = v_np.copy(), v_np.copy()
        plus[:, c] += eps
        minus[:, c] -= eps
        fd[:, c] = (_first(x_np, plus) - _first(x_np, minus)) / (2 * eps)
    np.testing.assert_allclose(v.grad.numpy(), fd, rtol=2e-2, atol=2e-2)
