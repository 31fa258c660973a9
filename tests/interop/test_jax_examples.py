"""The JAX examples of the interoperability guide, run on JAX's CPU platform and on each GPU of
its CUDA platform that warp sees too (``jax_device``, in tests/interop/conftest.py).

Every result is compared with the same computation written in NumPy / JAX.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import pytest

import warp as wp

jax = pytest.importorskip("jax")
jnp = jax.numpy
jp = jnp

from warp.jax_experimental import jax_callable, jax_kernel, register_ffi_callback  # noqa: E402
from warp.jax_experimental.ffi import get_jax_device  # noqa: E402

pytestmark = pytest.mark.usefixtures("jax_device")


@wp.kernel
def triple_kernel(input: wp.array(dtype=float), output: wp.array(dtype=float)):
    tid = wp.tid()
    output[tid] = 3.0 * input[tid]


@wp.kernel
def add_int_kernel(a: wp.array(dtype=int), b: wp.array(dtype=int), output: wp.array(dtype=int)):
    tid = wp.tid()
    output[tid] = a[tid] + b[tid]


@wp.kernel
def sincos_kernel(angle: wp.array(dtype=float),
                  # outputs
                  sin_out: wp.array(dtype=float),
                  cos_out: wp.array(dtype=float)):
    tid = wp.tid()
    sin_out[tid] = wp.sin(angle[tid])
    cos_out[tid] = wp.cos(angle[tid])


@wp.kernel
def diagonal_kernel(output: wp.array(dtype=wp.mat33)):
    tid = wp.tid()
    output[tid] = wp.mat33(1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 3.0)


@wp.kernel
def scale_kernel(a: wp.array(dtype=float),
                 s: float,  # scalar input
                 output: wp.array(dtype=float)):
    tid = wp.tid()
    output[tid] = a[tid] * s


@wp.kernel
def matmul_kernel(
    a: wp.array2d(dtype=float),  # NxK input
    b: wp.array2d(dtype=float),  # KxM input
    c: wp.array2d(dtype=float),  # NxM output
):
    # launch dimensions should be (N, M)
    i, j = wp.tid()
    N = a.shape[0]
    K = a.shape[1]
    M = b.shape[1]
    if i < N and j < M:
        s = wp.float32(0)
        for k in range(K):
            s += a[i, k] * b[k, j]
        c[i, j] = s


@wp.kernel
def funky_kernel(a: wp.array(dtype=float),
                 # outputs
                 b: wp.array(dtype=float),
                 c: wp.array(dtype=float)):
    tid = wp.tid()
    if tid < b.shape[0]:
        b[tid] = a[tid] + 1.0
    if tid < c.shape[0]:
        c[tid] = a[tid] * 2.0


@wp.kernel
def vecmat_kernel(a: wp.array(dtype=float),
                  b: wp.array(dtype=wp.vec3),
                  c: wp.array(dtype=wp.mat22),
                  # outputs
                  d: wp.array(dtype=float),
                  e: wp.array(dtype=wp.vec3),
                  f: wp.array(dtype=wp.mat22)):
    tid = wp.tid()
    d[tid] = a[tid] + 1.0
    e[tid] = b[tid] * 2.0
    f[tid] = wp.transpose(c[tid])


@wp.kernel
def add_kernel(a: wp.array(dtype=float), b: wp.array(dtype=float), output: wp.array(dtype=float)):
    tid = wp.tid()
    output[tid] = a[tid] + b[tid]


@wp.kernel
def rowsum_kernel(matrix: wp.array2d(dtype=float), sums: wp.array1d(dtype=float)):
    i, j = wp.tid()
    wp.atomic_add(sums, i, matrix[i, j])


@wp.kernel
def lookup_kernel(table: wp.array(dtype=float), indices: wp.array(dtype=int), output: wp.array(dtype=float)):
    i = wp.tid()
    output[i] = table[indices[i]]


@wp.kernel
def scale_sum_square(
    a: wp.array(dtype=float),
    b: wp.array(dtype=float),
    s: float,
    out: wp.array(dtype=float),
):
    tid = wp.tid()
    out[tid] = (a[tid] * s + b[tid]) ** 2.0


@wp.kernel
def multi_output(
    a: wp.array(dtype=float),
    b: wp.array(dtype=float),
    s: float,
    c: wp.array(dtype=float),
    d: wp.array(dtype=float),
):
    tid = wp.tid()
    c[tid] = a[tid] ** 2.0
    d[tid] = a[tid] * b[tid] * s


@wp.kernel
def scale_vec2(a: wp.array(dtype=wp.vec2), s: float, out: wp.array(dtype=wp.vec2)):
    tid = wp.tid()
    out[tid] = a[tid] * s


@wp.kernel
def scale_vec_kernel(a: wp.array(dtype=wp.vec2), s: float, output: wp.array(dtype=wp.vec2)):
    tid = wp.tid()
    output[tid] = a[tid] * s


def test_from_jax_and_to_jax():
    jax_array = jnp.arange(8, dtype=jnp.float32)
    warp_array = wp.from_jax(jax_array)
    assert warp_array.ptr == jax_array.unsafe_buffer_pointer()
    np.testing.assert_array_equal(warp_array.numpy(), np.arange(8, dtype=np.float32))
    w = wp.array(np.arange(6, dtype=np.float32))
    j = wp.to_jax(w)
    assert j.unsafe_buffer_pointer() == w.ptr
    np.testing.assert_array_equal(np.asarray(j), np.arange(6, dtype=np.float32))


def test_jax_kernel_triple():
    jax_triple = jax_kernel(triple_kernel)

    @jax.jit
    def f():
        x = jnp.arange(0, 64, dtype=jnp.float32)
        return jax_triple(x)

    (out,) = f()
    np.testing.assert_array_equal(out, 3.0 * np.arange(64, dtype=np.float32))


def test_two_inputs_one_output():
    jax_add = jax_kernel(add_int_kernel)

    @jax.jit
    def f():
        n = 10
        a = jnp.arange(n, dtype=jnp.int32)
        b = jnp.ones(n, dtype=jnp.int32)
        return jax_add(a, b)

    (out,) = f()
    assert out.dtype == jnp.int32 and out.tolist() == list(range(1, 11))


def test_one_input_two_outputs():
    jax_sincos = jax_kernel(sincos_kernel, num_outputs=2)

    @jax.jit
    def f():
        a = jnp.linspace(0, 2 * math.pi, 32)
        return jax_sincos(a)

    s, c = f()
    angles = np.linspace(0, 2 * math.pi, 32, dtype=np.float32)
    np.testing.assert_allclose(s, np.sin(angles), atol=1e-6)
    np.testing.assert_allclose(c, np.cos(angles), atol=1e-6)


def test_no_inputs_with_launch_dims():
    jax_diagonal = jax_kernel(diagonal_kernel)

    @jax.jit
    def f():
        return jax_diagonal(launch_dims=4)

    (out,) = f()
    assert out.shape == (4, 3, 3)
    np.testing.assert_array_equal(out, np.broadcast_to(np.diag([1.0, 2.0, 3.0]), (4, 3, 3)))


def test_scalar_inputs_constant_traced_and_static():
    jax_scale = jax_kernel(scale_kernel)

    @jax.jit
    def f():
        a = jnp.arange(10, dtype=jnp.float32)
        return jax_scale(a, 2.0)

    np.testing.assert_array_equal(f()[0], 2.0 * np.arange(10))

    @jax.jit
    def traced(a, s):
        return jax_scale(a, s)

    a = jnp.arange(10, dtype=jnp.float32)
    with pytest.raises(ValueError, match="scalar argument 's' is a traced JAX value"):
        traced(a, 2.0)

    @partial(jax.jit, static_argnames=["s"])
    def static(a, s):
        return jax_scale(a, s)

    np.testing.assert_array_equal(static(a, 2.0)[0], 2.0 * np.arange(10))
    np.testing.assert_array_equal(static(a, s=3.0)[0], 3.0 * np.arange(10))


def test_matmul_with_custom_launch_dims_per_call():
    jax_matmul = jax_kernel(matmul_kernel)

    @jax.jit
    def f():
        N1, M1, K1 = 3, 4, 2
        a1 = jnp.full((N1, K1), 2, dtype=jnp.float32)
        b1 = jnp.full((K1, M1), 3, dtype=jnp.float32)
        result1 = jax_matmul(a1, b1, launch_dims=(N1, M1))
        N2, M2, K2 = 4, 3, 2
        a2 = jnp.full((N2, K2), 2, dtype=jnp.float32)
        b2 = jnp.full((K2, M2), 3, dtype=jnp.float32)
        result2 = jax_matmul(a2, b2, launch_dims=(N2, M2))
        return result1, result2

    (r1,), (r2,) = f()
    np.testing.assert_array_equal(r1, np.full((3, 4), 12.0))
    np.testing.assert_array_equal(r2, np.full((4, 3), 12.0))


def test_output_dims_variants():
    jax_funky = jax_kernel(funky_kernel, num_outputs=2)
    a = jnp.arange(8, dtype=jnp.float32)
    n, m, k = 5, 3, 6
    b, c = jax_funky(a, output_dims=n)
    assert b.shape == (5,) and c.shape == (5,)
    b, c = jax_funky(a, output_dims={"b": n, "c": m})
    np.testing.assert_array_equal(b, np.arange(5) + 1.0)
    np.testing.assert_array_equal(c, 2.0 * np.arange(3))
    b, c = jax_funky(a, launch_dims=k, output_dims={"b": n, "c": m})
    assert b.shape == (5,) and c.shape == (3,)
    b, c = jax.jit(lambda a: jax_funky(a, launch_dims=2, output_dims={"b": n, "c": m}))(a)
    np.testing.assert_array_equal(b, [1.0, 2.0, 0.0, 0.0, 0.0])  # outputs start zeroed


def test_vector_and_matrix_arrays():
    jax_vecmat = jax_kernel(vecmat_kernel, num_outputs=3)
    n = 10
    a = jnp.arange(n, dtype=jnp.float32)
    b = jnp.arange(3 * n, dtype=jnp.float32).reshape((n, 3))
    c = jnp.arange(4 * n, dtype=jnp.float32).reshape((n, 2, 2))

    @jax.jit
    def f(a, b, c):
        return jax_vecmat(a, b, c)

    d, e, f_ = f(a, b, c)
    np.testing.assert_array_equal(d, np.asarray(a) + 1.0)
    np.testing.assert_array_equal(e, 2.0 * np.asarray(b))
    np.testing.assert_array_equal(f_, np.transpose(np.asarray(c), (0, 2, 1)))
    for dims in (n, {"d": n, "e": n, "f": n}, {"d": n, "e": (n, 3), "f": (n, 2, 2)},
                 {"d": a.shape, "e": b.shape, "f": c.shape}):
        d2, e2, f2 = jax_vecmat(a, b, c, output_dims=dims)
        assert d2.shape == (n,) and e2.shape == (n, 3) and f2.shape == (n, 2, 2)
        np.testing.assert_array_equal(e2, e)


def test_vmap_method_default_and_per_call():
    jax_callback = jax_kernel(triple_kernel, vmap_method="sequential")
    x = jnp.arange(12, dtype=jnp.float32).reshape(3, 4)
    np.testing.assert_array_equal(jax.vmap(jax_callback)(x)[0], 3.0 * np.asarray(x))
    np.testing.assert_array_equal(jax.vmap(partial(jax_callback, vmap_method="expand_dims"))(x)[0],
                                  3.0 * np.asarray(x))
    with pytest.raises(ValueError, match="vmap_method must be one of"):
        jax_kernel(triple_kernel, vmap_method="nope")


def test_basic_vmap():
    jax_add = jax_kernel(add_kernel)
    a = jp.arange(3 * 4, dtype=jp.float32).reshape((3, 4))
    b = jp.ones(3 * 4, dtype=jp.float32).reshape((3, 4))
    (output,) = jax.jit(jax.vmap(jax_add))(a, b)
    np.testing.assert_array_equal(output, np.asarray(a) + 1.0)


def test_vmap_with_in_out_arguments():
    jax_rowsum = jax_kernel(rowsum_kernel, in_out_argnames=["sums"])
    matrices = jp.arange(2 * 3 * 4, dtype=jp.float32).reshape((2, 3, 4))
    m = np.asarray(matrices)

    sums = jp.zeros((2, 3), dtype=jp.float32)
    (output,) = jax.jit(jax.vmap(jax_rowsum, in_axes=(0, 0)))(matrices, sums)
    np.testing.assert_array_equal(output, m.sum(axis=2))

    sums = jp.zeros((3, 2), dtype=jp.float32)
    (output,) = jax.jit(jax.vmap(jax_rowsum, in_axes=(1, 0)))(matrices, sums)
    np.testing.assert_array_equal(output, np.transpose(m, (1, 0, 2)).sum(axis=2))

    sums = jp.zeros((4, 2), dtype=jp.float32)
    (output,) = jax.jit(jax.vmap(jax_rowsum, in_axes=(2, 0)))(matrices, sums)
    np.testing.assert_array_equal(output, np.transpose(m, (2, 0, 1)).sum(axis=2))

    # in-out arguments accumulate onto their input values
    (output,) = jax_rowsum(matrices[0], jnp.full(3, 100.0, dtype=jnp.float32))
    np.testing.assert_array_equal(output, m[0].sum(axis=1) + 100.0)


def test_vmap_with_custom_launch_and_output_dims():
    jax_lookup = jax_kernel(lookup_kernel)
    N = 100
    table = jp.arange(N, dtype=jp.float32)
    key = jax.random.key(42)
    indices = jax.random.randint(key, (20, 50), 0, N, dtype=jp.int32)

    (output,) = jax.jit(jax.vmap(partial(jax_lookup, launch_dims=50), in_axes=(None, 0)))(table, indices)
    assert output.shape == (20, 50)
    np.testing.assert_array_equal(output, np.asarray(indices).astype(np.float32))

    (output,) = jax.jit(jax.vmap(partial(jax_lookup, launch_dims=20), in_axes=(None, 1)))(table, indices)
    assert output.shape == (50, 20)
    np.testing.assert_array_equal(output, np.asarray(indices).T.astype(np.float32))


def test_autodiff_one_output():
    jax_scale = jax_kernel(scale_sum_square, num_outputs=1, enable_backward=True)

    @partial(jax.jit, static_argnames=["s"])
    def loss(a, b, s):
        (out,) = jax_scale(a, b, s)
        return jnp.sum(out)

    n = 16
    a = jnp.arange(n, dtype=jnp.float32)
    b = jnp.ones(n, dtype=jnp.float32)
    s = 2.0
    da, db = jax.grad(loss, argnums=(0, 1))(a, b, s)

    def reference(a, b, s):
        return jnp.sum((a * s + b) ** 2)

    ra, rb = jax.grad(reference, argnums=(0, 1))(a, b, s)
    np.testing.assert_allclose(da, ra, rtol=1e-6)
    np.testing.assert_allclose(db, rb, rtol=1e-6)
    np.testing.assert_allclose(loss(a, b, s), reference(a, b, s), rtol=1e-6)


def test_autodiff_multiple_outputs():
    jax_multi = jax_kernel(multi_output, num_outputs=2, enable_backward=True)

    def caller(fn, a, b, s):
        c, d = fn(a, b, s)
        return jnp.sum(c + d)

    n = 16
    a = jnp.arange(n, dtype=jnp.float32)
    b = jnp.ones(n, dtype=jnp.float32)
    s = 2.0
    da, db = jax.grad(lambda a, b, s: caller(jax_multi, a, b, s), argnums=(0, 1))(a, b, s)
    ra, rb = jax.grad(lambda a, b: jnp.sum(a**2 + a * b * s), argnums=(0, 1))(a, b)
    np.testing.assert_allclose(da, ra, rtol=1e-6)
    np.testing.assert_allclose(db, rb, rtol=1e-6)


def test_autodiff_vector_arrays():
    jax_vec = jax_kernel(scale_vec2, num_outputs=1, enable_backward=True)

    @partial(jax.jit, static_argnames=["s"])
    def vec_loss(a, s):
        (out,) = jax_vec(a, s)
        return jnp.sum(out)

    a2 = jnp.arange(10, dtype=jnp.float32).reshape((5, 2))
    (da2,) = jax.grad(vec_loss, argnums=(0,))(a2, 3.0)
    np.testing.assert_array_equal(da2, np.full((5, 2), 3.0))


def test_autodiff_under_vmap():
    jax_scale = jax_kernel(scale_sum_square, enable_backward=True)
    a = jnp.arange(12, dtype=jnp.float32).reshape(3, 4)
    b = jnp.ones((3, 4), dtype=jnp.float32)
    grad = jax.vmap(jax.grad(lambda a, b: jnp.sum(jax_scale(a, b, 0.5)[0])))(a, b)
    np.testing.assert_allclose(grad, 2.0 * (np.asarray(a) * 0.5 + 1.0) * 0.5, rtol=1e-6)


def example_func(
    # inputs
    a: wp.array(dtype=float),
    b: wp.array(dtype=wp.vec2),
    s: float,
    # outputs
    c: wp.array(dtype=float),
    d: wp.array(dtype=wp.vec2),
):
    # launch multiple kernels
    wp.launch(scale_kernel, dim=a.shape, inputs=[a, s], outputs=[c])
    wp.launch(scale_vec_kernel, dim=b.shape, inputs=[b, s], outputs=[d])


def test_jax_callable():
    jax_func = jax_callable(example_func, num_outputs=2)

    @jax.jit
    def f():
        a = jnp.arange(10, dtype=jnp.float32)
        b = jnp.arange(10, dtype=jnp.float32).reshape((5, 2))  # wp.vec2
        s = 2.0
        output_dims = {"c": a.shape, "d": b.shape}
        c, d = jax_func(a, b, s, output_dims=output_dims)
        return c, d

    r1, r2 = f()
    np.testing.assert_array_equal(r1, 2.0 * np.arange(10))
    np.testing.assert_array_equal(r2, 2.0 * np.arange(10).reshape(5, 2))


def test_jax_callable_graph_modes_and_vmap(jax_device):
    from warp.jax_experimental import GraphMode

    a = jnp.arange(4, dtype=jnp.float32)
    b = jnp.ones((2, 2), dtype=jnp.float32)
    for mode in (GraphMode.JAX, GraphMode.NONE, 1):
        jax_func = jax_callable(example_func, num_outputs=2, graph_mode=mode)
        c, d = jax_func(a, b, 3.0, output_dims={"c": 4, "d": 2})
        np.testing.assert_array_equal(c, 3.0 * np.arange(4))
    same = jax_callable(example_func, num_outputs=2)
    assert jax_callable(example_func, num_outputs=2, graph_mode=1) is same
    assert jax_callable(example_func, num_outputs=2, graph_mode=2).graph_mode is GraphMode.WARP
    # Warp's own CUDA graph modes need a CUDA device
    for mode in (GraphMode.WARP, GraphMode.WARP_STAGED, GraphMode.WARP_STAGED_EX):
        jax_func = jax_callable(example_func, num_outputs=2, graph_mode=mode)
        if jax_device.warp.is_cuda:
            for _ in range(2):  # captured, then replayed
                c, d = jax_func(a, b, 3.0, output_dims={"c": 4, "d": 2})
                np.testing.assert_array_equal(c, 3.0 * np.arange(4))
                np.testing.assert_array_equal(d, np.full((2, 2), 3.0))
            continue
        with pytest.raises(Exception, match=f"{mode.name} .*not supported on the CPU"):
            jax.block_until_ready(jax_func(a, b, 3.0, output_dims={"c": 4, "d": 2}))
    with pytest.warns(DeprecationWarning, match="graph_compatible"):
        jax_callable(example_func, num_outputs=2, graph_compatible=False)
    batched = jax_callable(example_func, num_outputs=2)
    a = jnp.arange(12, dtype=jnp.float32).reshape(3, 4)
    b = jnp.ones((3, 2, 2), dtype=jnp.float32)
    c, d = jax.vmap(lambda a, b: batched(a, b, 2.0, output_dims={"c": 4, "d": 2}))(a, b)
    np.testing.assert_array_equal(c, 2.0 * np.asarray(a))
    np.testing.assert_array_equal(d, np.full((3, 2, 2), 2.0))


def test_register_ffi_callback(jax_device):
    seen = []

    # the Python function to call
    def warp_func(inputs, outputs, attrs, ctx):
        a = inputs[0]
        b = inputs[1]
        s = attrs["scale"]
        c = outputs[0]
        d = outputs[1]
        # the device of the call (the guide asks get_jax_device(), JAX's default device in the
        # caller's thread; XLA may run the call on another thread)
        device = wp.get_device("cpu") if ctx.stream is None else wp.get_device(f"cuda:{ctx.device_ordinal}")
        seen.append(device)
        if device.is_cpu:
            wp.launch(scale_kernel, dim=a.shape, inputs=[a, s], outputs=[c], device=device)
            wp.launch(scale_vec_kernel, dim=b.shape[0], inputs=[b, s], outputs=[d], device=device)
            return
        # on a CUDA device, on XLA's stream (as the guide does)
        with wp.ScopedStream(wp.Stream(device, cuda_stream=ctx.stream)):
            wp.launch(scale_kernel, dim=a.shape, inputs=[a, s], outputs=[c], device=device)
            wp.launch(scale_vec_kernel, dim=b.shape[0], inputs=[b, s], outputs=[d], device=device)

    # one target name per device: the test runs once per device in the same process, and a name
    # can be registered only once (on every platform at once)
    name = "warp_func_test_" + str(jax_device.warp).replace(":", "_")
    register_ffi_callback(name, warp_func)

    n = 10
    a = jnp.arange(n, dtype=jnp.float32)
    b = jnp.arange(n, dtype=jnp.float32).reshape((n // 2, 2))  # array of wp.vec2
    s = 2.0
    out_types = [
        jax.ShapeDtypeStruct(a.shape, jnp.float32),
        jax.ShapeDtypeStruct(b.shape, jnp.float32),  # array of wp.vec2
    ]
    call = jax.ffi.ffi_call(name, out_types)
    c, d = call(a, b, scale=s)
    np.testing.assert_array_equal(c, 2.0 * np.arange(n))
    np.testing.assert_array_equal(d, 2.0 * np.arange(n).reshape(5, 2))
    c, d = jax.jit(lambda a, b: call(a, b, scale=np.float32(3.0)))(a, b)
    np.testing.assert_array_equal(c, 3.0 * np.arange(n))
    assert seen and all(device == jax_device.warp for device in seen)
    assert wp.device_from_jax(get_jax_device()) == jax_device.warp  # the guide's way, in this thread


def test_dlpack_with_jax():
    jax_array = jnp.arange(5, dtype=jnp.float32)
    warp_array1 = wp.from_dlpack(jax_array)
    assert warp_array1.ptr == jax_array.unsafe_buffer_pointer()
    warp_array = wp.array(np.arange(4, dtype=np.int32))
    jax_array = jax.dlpack.from_dlpack(warp_array)
    assert jax_array.unsafe_buffer_pointer() == warp_array.ptr and jax_array.tolist() == [0, 1, 2, 3]
    # jax.dlpack.from_dlpack(wp.to_dlpack(warp_array)): JAX 0.7+ no longer accepts capsules, only
    # objects with __dlpack__ (JAX's API, not warp's); the capsule itself is checked with NumPy/torch.


def test_older_custom_call_jax_kernel():
    from warp.jax_experimental.custom_call import jax_kernel as old_jax_kernel

    @jax.jit
    def f():
        x = jnp.arange(0, 8, dtype=jnp.float32)
        return old_jax_kernel(triple_kernel)(x)

    np.testing.assert_array_equal(f(), 3.0 * np.arange(8))
    N, M, K = 3, 4, 2
    jax_matmul = old_jax_kernel(matmul_kernel, launch_dims=(N, M))
    a = jnp.full((N, K), 2, dtype=jnp.float32)
    b = jnp.full((K, M), 3, dtype=jnp.float32)
    out = jax.jit(lambda: jax_matmul(a, b))()
    np.testing.assert_array_equal(out, np.full((N, M), 12.0))
    s, c = old_jax_kernel(sincos_kernel)(jnp.zeros(4, dtype=jnp.float32))
    np.testing.assert_array_equal(c, np.ones(4))
