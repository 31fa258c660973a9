"""Custom derivatives of user functions: ``@wp.func_grad`` (used instead of differentiating the
function's body), ``@wp.func_replay`` (what the adjoint pass runs instead of the function when it
replays the forward code) and ``@wp.func_native`` (C++ snippets: a clear error here)."""

from typing import Any

import numpy as np
import pytest

import warp as wp
from warp.compiler.hashing import kernel_hash
from warp.compiler.options import resolve_options
from warp.targets import target_for_kind

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")


@wp.func
def safe_sqrt(x: float):
    return wp.sqrt(x)


@wp.func_grad(safe_sqrt)
def adj_safe_sqrt(x: float, adj_ret: float):
    if x > 0.0:
        wp.adjoint[x] += 1.0 / (2.0 * wp.sqrt(x)) * adj_ret


@wp.kernel
def run_safe_sqrt(xs: wp.array(dtype=float), output: wp.array(dtype=float)):
    i = wp.tid()
    output[i] = safe_sqrt(xs[i])


def backward(kernel, inputs, outputs, seeds, dim):
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim=dim, inputs=inputs, outputs=outputs)
    tape.backward(grads=dict(zip(outputs, seeds)))
    return tape


def test_custom_gradient_from_the_docs():
    xs = wp.array([1.0, 0.0, 4.0], dtype=wp.float32, requires_grad=True)
    ys = wp.zeros_like(xs)
    backward(run_safe_sqrt, [xs], [ys], [wp.array(np.ones(3), dtype=wp.float32)], 3)
    np.testing.assert_array_equal(ys.numpy(), [1.0, 0.0, 2.0])
    # the custom gradient is 0 at x = 0, where d/dx sqrt(x) is infinite
    np.testing.assert_array_equal(xs.grad.numpy(), [0.5, 0.0, 0.25])


@wp.func
def straight_round(x: float):
    return wp.round(x)


@wp.func_grad(straight_round)
def adj_straight_round(x: float, adj_ret: float):
    wp.adjoint[x] += adj_ret  # straight-through estimator: the body's derivative would be 0


@wp.func
def scaled_pair(x: float, k: int):
    return x * float(k), k * 2, x * x


@wp.func_grad(scaled_pair)
def adj_scaled_pair(x: float, k: int, adj_a: float, adj_b: int, adj_c: float):
    # adj_b is the adjoint of an int result: it carries no gradient and is zero
    wp.adjoint[x] += adj_a * float(k) + float(adj_b) + 2.0 * x * adj_c + 1000.0


def test_custom_gradient_replaces_the_body_and_handles_several_results():
    @wp.kernel
    def k(x: wp.array(dtype=float), y: wp.array(dtype=float), z: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = straight_round(x[i]) * 3.0
        a, b, c = scaled_pair(x[i], i + 1)
        z[i] = a + float(b) + c

    xv = np.array([0.2, 1.7, -2.4], dtype=np.float32)
    x = wp.array(xv, requires_grad=True)
    y = wp.zeros(3, dtype=float, requires_grad=True)
    z = wp.zeros(3, dtype=float, requires_grad=True)
    backward(k, [x], [y, z], [wp.ones(3, dtype=float), wp.ones(3, dtype=float)], 3)
    np.testing.assert_array_equal(y.numpy(), np.round(xv) * 3)
    kk = np.arange(1, 4, dtype=np.float32)
    np.testing.assert_allclose(z.numpy(), xv * kk + 2 * kk + xv * xv, rtol=1e-6)
    # 3 (straight-through) + k + 2x + 1000 (the marker proves the custom gradient ran)
    np.testing.assert_allclose(x.grad.numpy(), 3.0 + kk + 2.0 * xv + 1000.0, rtol=1e-6)


@wp.func
def unit(v: wp.vec3):
    return wp.normalize(v)


@wp.func_grad(unit)
def adj_unit(v: wp.vec3, adj_ret: wp.vec3):
    n = wp.length(v)
    if n > 0.0:
        u = v / n
        wp.adjoint[v] += (adj_ret - u * wp.dot(u, adj_ret)) / n


def test_custom_gradient_of_a_vector_function_matches_finite_differences():
    @wp.kernel
    def k(v: wp.array(dtype=wp.vec3), w: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = wp.dot(unit(v[i]), w[i])

    rng = np.random.default_rng(3)
    vv = rng.normal(size=(4, 3))
    wv = rng.normal(size=(4, 3))
    v = wp.array(vv.astype(np.float32), dtype=wp.vec3, requires_grad=True)
    w = wp.array(wv.astype(np.float32), dtype=wp.vec3)
    out = wp.zeros(4, dtype=float, requires_grad=True)
    backward(k, [v, w], [out], [wp.ones(4, dtype=float)], 4)

    def f(x, wi):
        return np.dot(x / np.linalg.norm(x), wi)

    eps = 1e-6
    fd = np.array(
        [
            [(f(vv[i] + eps * e, wv[i]) - f(vv[i] - eps * e, wv[i])) / (2 * eps) for e in np.eye(3)]
            for i in range(4)
        ]
    )
    np.testing.assert_allclose(v.grad.numpy(), fd, rtol=1e-4, atol=1e-5)


@wp.func
def gather(a: wp.array(dtype=float), i: int):
    return a[i] * 2.0


@wp.func_grad(gather)
def adj_gather(a: wp.array(dtype=float), i: int, adj_ret: float):
    wp.adjoint[a][i] += adj_ret * 20.0  # ten times the true gradient, to see it was used


def test_custom_gradient_with_array_parameter():
    @wp.kernel
    def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = gather(a, 2 - i)

    a = wp.array([1.0, 2.0, 3.0], dtype=float, requires_grad=True)
    out = wp.zeros(3, dtype=float, requires_grad=True)
    backward(k, [a], [out], [wp.array([1.0, 10.0, 100.0], dtype=float)], 3)
    np.testing.assert_array_equal(out.numpy(), [6.0, 4.0, 2.0])
    np.testing.assert_array_equal(a.grad.numpy(), [2000.0, 200.0, 20.0])


@wp.func
def cube(x: Any):
    return x * x * x


@wp.func_grad(cube)
def adj_cube(x: Any, adj_ret: Any):
    wp.adjoint[x] += type(x)(3.0) * x * x * adj_ret


def test_generic_function_with_generic_custom_gradient():
    @wp.kernel
    def k(x: wp.array(dtype=Any), y: wp.array(dtype=Any)):
        i = wp.tid()
        y[i] = cube(x[i])

    for dt, np_dt in ((wp.float32, np.float32), (wp.float64, np.float64)):
        xv = np.array([0.5, -1.5, 2.0], dtype=np_dt)
        x = wp.array(xv, requires_grad=True)
        y = wp.zeros(3, dtype=dt, requires_grad=True)
        backward(k, [x], [y], [wp.array(np.ones(3, dtype=np_dt))], 3)
        np.testing.assert_allclose(y.numpy(), xv**3)
        np.testing.assert_allclose(x.grad.numpy(), 3 * xv**2)


@wp.func
def reversible_increment(
    buf: wp.array(dtype=int), buf_index: int, value: int, thread_values: wp.array(dtype=int), tid: int
):
    next_index = wp.atomic_add(buf, buf_index, value)
    thread_values[tid] = next_index  # remember which slot this thread got, for the replay
    return next_index


@wp.func_replay(reversible_increment)
def replay_reversible_increment(
    buf: wp.array(dtype=int), buf_index: int, value: int, thread_values: wp.array(dtype=int), tid: int
):
    return thread_values[tid]


@wp.kernel
def run_atomic_add(
    input: wp.array(dtype=float),
    counter: wp.array(dtype=int),
    thread_values: wp.array(dtype=int),
    output: wp.array(dtype=float),
):
    tid = wp.tid()
    idx = reversible_increment(counter, 0, 1, thread_values, tid)
    output[idx] = input[tid] ** 2.0


def test_custom_replay_from_the_docs():
    n = 32
    xv = np.linspace(-1.0, 2.0, n).astype(np.float32)
    x = wp.array(xv, requires_grad=True)
    counter = wp.zeros(1, dtype=int)
    thread_values = wp.zeros(n, dtype=int)
    out = wp.zeros(n, dtype=float, requires_grad=True)
    seed = np.arange(1, n + 1, dtype=np.float32)
    backward(run_atomic_add, [x, counter, thread_values], [out], [wp.array(seed)], n)
    slots = thread_values.numpy()
    assert sorted(slots.tolist()) == list(range(n)) and counter.numpy()[0] == n
    np.testing.assert_allclose(out.numpy()[slots], xv**2, rtol=1e-6)
    # the replay read back each thread's slot instead of incrementing the counter again
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * xv * seed[slots], rtol=1e-6)
    assert counter.numpy()[0] == n


def test_custom_definitions_must_match_the_function():
    with pytest.raises(wp.WarpCodegenTypeError, match="must start with the parameters of 'safe_sqrt'"):

        @wp.func_grad(safe_sqrt)
        def bad_grad(y: float, adj_ret: float):
            pass

    with pytest.raises(wp.WarpCodegenTypeError, match="must take exactly the parameters of 'safe_sqrt'"):

        @wp.func_replay(safe_sqrt)
        def bad_replay(x: float, extra: float):
            return x

    with pytest.raises(TypeError, match="expects a @wp.func"):

        @wp.func_grad(np.sqrt)
        def not_a_func(x: float, adj_ret: float):
            pass

    with pytest.raises(TypeError, match="only meaningful inside a @wp.func_grad"):
        wp.adjoint[1.0]


def test_adjoint_of_an_unknown_name_is_a_located_error():
    @wp.func
    def twice(x: float, n: int):
        return x * 2.0

    @wp.func_grad(twice)
    def adj_twice(x: float, n: int, adj_ret: float):
        wp.adjoint[n] += 1

    @wp.kernel
    def k(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        y[0] = twice(x[0], 3)

    x = wp.array([1.0], dtype=float, requires_grad=True)
    y = wp.zeros(1, dtype=float, requires_grad=True)
    # warp-autodiff reports adjoint generation errors as a warning, then the adjoint launch fails
    with pytest.warns(
        UserWarning,
        match="wp.adjoint\\[...\\] takes an input of 'twice' that can carry a gradient .* got 'n'",
    ) as record:
        with pytest.raises(RuntimeError, match="no plugin produced an adjoint"):
            backward(k, [x], [y], [wp.ones(1, dtype=float)], 1)
    assert any("wp.adjoint[n] += 1" in str(w.message) for w in record)


def make_kernel_with_grad(factor):
    @wp.func
    def f(x: float):
        return x

    @wp.func_grad(f)
    def adj_f(x: float, adj_ret: float):
        wp.adjoint[x] += adj_ret * factor

    @wp.kernel
    def k(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        y[wp.tid()] = f(x[wp.tid()])

    return k


def test_custom_gradients_are_part_of_the_cache_key():
    k2, k5 = make_kernel_with_grad(2.0), make_kernel_with_grad(5.0)

    def key(k):
        options = resolve_options(k, target=target_for_kind("cpu"), part="adjoint")
        return kernel_hash(k, options, "test-device")

    assert key(k2) != key(k5)
    for k, factor in ((k2, 2.0), (k5, 5.0)):
        x = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
        y = wp.zeros(2, dtype=float, requires_grad=True)
        backward(k, [x], [y], [wp.ones(2, dtype=float)], 2)
        np.testing.assert_array_equal(x.grad.numpy(), [factor, factor])


@wp.func_native("out[tid] = in[tid] * 2;", "adj_in[tid] += adj_out[tid] * 2;")
def native_double(inp: wp.array(dtype=float), out: wp.array(dtype=float), tid: int): ...


def test_native_snippets_are_a_clear_not_implemented_error():
    @wp.kernel
    def k(a: wp.array(dtype=float), b: wp.array(dtype=float)):
        native_double(a, b, wp.tid())

    with pytest.raises(NotImplementedError, match="'native_double' is a @wp.func_native function") as info:
        wp.launch(k, dim=1, inputs=[wp.zeros(1, dtype=float), wp.zeros(1, dtype=float)])
    assert isinstance(info.value, wp.WarpCodegenError)
    assert "native_double(a, b, wp.tid())" in str(info.value)


@wp.struct
class _GradStruct:
    scalar: float
    vec: wp.vec3


@wp.func
def _struct_fn(x: _GradStruct):
    return x.vec[0] * x.vec[1] * 4.0, x.scalar * 2.0


@wp.func_grad(_struct_fn)
def _struct_fn_grad(x: _GradStruct, adj_ret0: float, adj_ret1: float):
    # wp.adjoint[...] of fields of a struct input (and components of those fields)
    wp.adjoint[x.scalar] += adj_ret1 * 3.0
    wp.adjoint[x.vec][0] += adj_ret0 * x.vec[1] * 5.0
    wp.adjoint[x.vec][2] += adj_ret0 * 7.0


@wp.kernel
def _run_struct_fn(xs: wp.array(dtype=_GradStruct), out: wp.array(dtype=float)):
    i = wp.tid()
    a, b = _struct_fn(xs[i])
    out[i] = a + b


def test_custom_grad_writes_adjoints_of_struct_fields():
    values = []
    for v, s in (((1.0, 2.0, 3.0), 4.0), ((5.0, 6.0, 7.0), -1.0)):
        x = _GradStruct()
        x.vec = wp.vec3(*v)
        x.scalar = s
        values.append(x)
    xs = wp.array(values, dtype=_GradStruct, requires_grad=True)
    out = wp.zeros(2, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_run_struct_fn, dim=2, inputs=[xs], outputs=[out])
    tape.backward(grads={out: wp.ones(2, dtype=float)})
    g = xs.grad.numpy()
    np.testing.assert_allclose(g["scalar"], [3.0, 3.0])
    np.testing.assert_allclose(g["vec"], [[2.0 * 5.0, 0.0, 7.0], [6.0 * 5.0, 0.0, 7.0]])
