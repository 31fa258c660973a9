"""JAX conversions, dtype/device maps, and the errors of jax_kernel / jax_callable.

Every test runs on the CPU and on each GPU JAX and warp share (``jax_device``, in
tests/interop/conftest.py): JAX's and warp's default devices are that device.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import warp as wp

from interop_kernels import vec_norms

jax = pytest.importorskip("jax")
jnp = jax.numpy

from warp.jax_experimental import jax_callable, jax_kernel  # noqa: E402
from warp.jax_experimental.ffi import get_jax_device  # noqa: E402

pytestmark = pytest.mark.usefixtures("jax_device")


@wp.kernel
def double(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 2.0 * x[i]


@wp.kernel
def gather(table: wp.array(dtype=float), idx: wp.array(dtype=int), s: float, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = table[idx[i]] * s


@wp.kernel
def flagged(x: wp.array(dtype=float), negate: wp.bool, k: wp.int16, out: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i] * float(k)
    if negate:
        v = -v
    out[i] = v


@pytest.mark.parametrize("name", ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
                                  "uint16", "uint32", "uint64"])
def test_dtype_maps(name):
    assert wp.dtype_from_jax(getattr(jnp, name)) is getattr(wp, name)
    assert wp.dtype_to_jax(getattr(wp, name)) is getattr(jnp, name)


def test_dtype_maps_bool_composites_and_errors():
    assert wp.dtype_from_jax(jnp.bool_) is wp.bool
    assert wp.dtype_to_jax(wp.bool) is jnp.bool_
    assert wp.dtype_to_jax(wp.vec3) is jnp.float32
    with pytest.raises(TypeError, match="cannot convert JAX dtype"):
        wp.dtype_from_jax(jnp.complex64)
    assert wp.dtype_from_jax(jnp.bfloat16) is wp.bfloat16
    assert wp.dtype_to_jax(wp.bfloat16) is jnp.bfloat16


def test_bfloat16_arrays_round_trip():
    x = jnp.array([1.0, -2.5, 1 / 3, 1e39], dtype=jnp.bfloat16)
    a = wp.from_jax(x)
    assert a.dtype is wp.bfloat16
    assert a.list() == [float(v) for v in np.asarray(x.astype(jnp.float32))]  # same rounding as JAX
    back = wp.to_jax(a)
    assert back.dtype == jnp.bfloat16
    assert np.array_equal(np.asarray(back.astype(jnp.float32)), np.asarray(x.astype(jnp.float32)))


def test_device_maps(jax_device):
    cpu = jax.devices("cpu")[0]
    assert wp.device_from_jax(cpu) == wp.get_device("cpu")
    assert wp.device_to_jax("cpu") == cpu
    assert get_jax_device() == jax_device.jax  # JAX's default device
    assert wp.device_from_jax(jax_device.jax) == jax_device.warp
    assert wp.device_to_jax(jax_device.warp) == jax_device.jax
    assert wp.device_to_jax() == jax_device.jax  # warp's default device
    with pytest.raises(RuntimeError, match="no corresponding warp device"):
        wp.device_from_jax(object())


class _JaxGpu:
    """What warp reads of a JAX GPU device (jax.Device has no public constructor)."""

    platform = "gpu"

    def __init__(self, id, process_index, local_hardware_id):
        self.id, self.process_index, self.local_hardware_id = id, process_index, local_hardware_id


def test_gpu_device_maps_use_process_local_ordinals(fake_cuda, monkeypatch):
    # as under jax.distributed: this is process 1, whose GPUs have global ids 2 and 3
    here = jax.process_index()
    mine = [_JaxGpu(3, here, 1), _JaxGpu(2, here, 0)]  # not in ordinal order
    local = {"cuda": mine, "cpu": jax.local_devices(backend="cpu")}
    monkeypatch.setattr(jax, "local_devices", lambda backend: local[backend])
    assert wp.device_from_jax(mine[0]) == wp.get_device("cuda:1")
    assert wp.device_from_jax(mine[1]) == wp.get_device("cuda:0")
    assert wp.device_to_jax("cuda:0") is mine[1] and wp.device_to_jax("cuda:1") is mine[0]
    assert wp.device_to_jax("cpu") is local["cpu"][0]
    with pytest.raises(RuntimeError, match=f"belongs to process {here + 1}, not to this process"):
        wp.device_from_jax(_JaxGpu(0, here + 1, 0))
    local["cuda"] = mine[1:]
    with pytest.raises(RuntimeError, match="warp device 'cuda:1' is not available in JAX"):
        wp.device_to_jax("cuda:1")


def test_from_jax_views_and_keeps_alive(jax_device):
    x = jnp.arange(12, dtype=jnp.float32).reshape(4, 3)
    ptr = x.unsafe_buffer_pointer()
    v = wp.from_jax(x, dtype=wp.vec3)
    assert v.shape == (4,) and v.dtype is wp.vec3 and v.ptr == ptr and v.device == jax_device.warp
    del x
    gc.collect()
    out = wp.zeros(4, dtype=float)
    wp.launch(vec_norms, dim=4, inputs=[v, out])
    expected = np.linalg.norm(np.arange(12, dtype=np.float32).reshape(4, 3), axis=1)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
    with pytest.raises(TypeError, match="expected a jax.Array"):
        wp.from_jax(np.zeros(3))
    with pytest.raises(TypeError, match="traced JAX value"):
        jax.jit(wp.from_jax)(jnp.zeros(3))


def test_to_jax_zero_copy_and_lifetime():
    a = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    ref = weakref.ref(a)
    j = wp.to_jax(a)
    assert j.unsafe_buffer_pointer() == a.ptr and j.shape == (2, 3)
    del a
    gc.collect()
    assert ref() is not None
    np.testing.assert_array_equal(np.asarray(j), np.arange(6, dtype=np.float32).reshape(2, 3))
    del j
    gc.collect()
    assert ref() is None
    v = wp.to_jax(wp.array(np.ones((3, 2), dtype=np.float32), dtype=wp.vec2))
    assert v.shape == (3, 2)
    with pytest.raises(TypeError, match="expected a warp array"):
        wp.to_jax(np.zeros(2))


def test_jax_arrays_as_launch_inputs(jax_device):
    x = jnp.arange(5, dtype=jnp.float32)
    y = wp.zeros(5, dtype=float)
    assert y.device == jax_device.warp
    wp.launch(double, dim=5, inputs=[x, y])
    np.testing.assert_array_equal(y.numpy(), 2.0 * np.arange(5))


def test_scalar_attribute_types():
    k = jax_kernel(flagged)
    x = jnp.arange(4, dtype=jnp.float32)
    (out,) = k(x, True, 3)
    np.testing.assert_array_equal(out, -3.0 * np.arange(4))
    (out,) = k(x, False, np.int16(2))
    np.testing.assert_array_equal(out, 2.0 * np.arange(4))


def test_argument_errors():
    k = jax_kernel(double)
    with pytest.raises(TypeError, match="argument 'x' expects an array of float32"):
        k(jnp.arange(3, dtype=jnp.int32))
    with pytest.raises(ValueError, match="argument 'x' expects a JAX array with 1 dimension"):
        k(jnp.zeros((2, 2), dtype=jnp.float32))
    with pytest.raises(TypeError, match="takes 1 input argument"):
        k(jnp.zeros(2, dtype=jnp.float32), jnp.zeros(2, dtype=jnp.float32))
    with pytest.raises(ValueError, match="expects a JAX array with 1 dimension.*element dimensions"):
        jax_kernel(vec_norms)(jnp.zeros(4, dtype=jnp.float32))
    with pytest.raises(ValueError, match="output 'y' is a 1-d array but its dimensions are"):
        k(jnp.zeros(2, dtype=jnp.float32), launch_dims=(2, 2))


def test_construction_errors():
    with pytest.raises(TypeError, match="expects a @wp.kernel"):
        jax_kernel(lambda x: x)
    with pytest.raises(ValueError, match="num_outputs=0 must be at least 1"):
        jax_kernel(double, num_outputs=0)
    with pytest.raises(ValueError, match="count the 2 in-out argument"):
        jax_kernel(double, num_outputs=1, in_out_argnames=["x", "y"])
    with pytest.raises(ValueError, match="did not match any function argument names"):
        jax_kernel(double, in_out_argnames=["nope"])
    with pytest.raises(ValueError, match="not supported with enable_backward"):
        jax_kernel(double, num_outputs=1, in_out_argnames=["x"], enable_backward=True)
    with pytest.raises(ValueError, match="no array inputs; pass launch_dims"):

        @wp.kernel
        def fill(out: wp.array(dtype=float)):
            out[wp.tid()] = 1.0

        jax_kernel(fill)()
    with pytest.raises(TypeError, match="needs a type annotation"):
        jax_callable(lambda a, b: None)


def test_errors_inside_xla_surface_with_the_message():
    def failing(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        raise RuntimeError("boom from the callable")

    f = jax_callable(failing)
    with pytest.raises(Exception, match="boom from the callable"):
        jax.block_until_ready(f(jnp.zeros(3, dtype=jnp.float32)))


def test_gradient_of_integer_inputs_is_float0():
    k = jax_kernel(gather, enable_backward=True, launch_dims=4)  # (the default would be table's 5)
    table = jnp.arange(5, dtype=jnp.float32)
    idx = jnp.array([0, 2, 2, 4], dtype=jnp.int32)

    def loss(table, idx):
        return jnp.sum(k(table, idx, 3.0)[0])

    g_table, g_idx = jax.grad(loss, argnums=(0, 1), allow_int=True)(table, idx)
    np.testing.assert_array_equal(g_table, [3.0, 0.0, 6.0, 0.0, 3.0])
    assert g_idx.dtype == jax.dtypes.float0


def test_missing_jax_names_the_extra(tmp_path):
    from interop_subprocess import run_python

    result = run_python(
        """
        import sys
        sys.modules["jax"] = None
        import warp as wp
        for call in (lambda: wp.from_jax(None), lambda: wp.dtype_to_jax(wp.float32)):
            try:
                call()
            except ImportError as e:
                print("ImportError:", e)
        try:
            import warp.jax_experimental
        except ImportError as e:
            print("ImportError:", e)
        """,
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.count('pip install ".[jax]"') == 3, result.stdout


@pytest.mark.parametrize("where", ["constructor", "call"])
def test_launch_dims_past_an_input_indexed_by_tid_are_refused(where):
    import jax.numpy as jnp

    x = jnp.arange(4, dtype=jnp.float32)
    k = jax_kernel(double, launch_dims=16) if where == "constructor" else jax_kernel(double)
    kwargs = {} if where == "constructor" else {"launch_dims": 16}
    with pytest.raises(ValueError, match=r"launch dimension 0 is 16 .* argument 'x' has 4 elements along"):
        k(x, **kwargs)
    # the same launch over the input's size runs, and a table read through computed indices is not refused
    np.testing.assert_allclose(np.asarray(jax_kernel(double, launch_dims=4)(x)[0]), 2.0 * np.arange(4))
    table, idx = jnp.arange(5, dtype=jnp.float32), jnp.array([4, 0, 2, 1], dtype=jnp.int32)
    out = jax_kernel(gather)(table, idx, 3.0, launch_dims=4)[0]
    np.testing.assert_allclose(np.asarray(out), [12, 0, 6, 3])


def test_output_dims_smaller_than_the_launch_are_refused():
    import jax.numpy as jnp

    k = jax_kernel(double, output_dims=2)
    with pytest.raises(ValueError, match="argument 'y' has 2 elements along its dimension 0"):
        k(jnp.arange(4, dtype=jnp.float32))


@wp.kernel
def scaled_by_block_dim(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    b[i] = a[i] * float(wp.block_dim())


def test_top_level_names_and_wrapper_reuse():
    assert wp.jax_kernel(double) is wp.jax_kernel(double, num_outputs=1, in_out_argnames=[])
    assert wp.jax_kernel(double) is not wp.jax_kernel(double, in_out_argnames=["y"], num_outputs=1)
    assert wp.jax_kernel(double, output_dims={"y": 4}) is wp.jax_kernel(double, output_dims={"y": 4})
    assert wp.JaxModulePreloadMode.NONE == 0 and wp.JaxCallableGraphMode.WARP_STAGED == 3
    k = wp.jax_kernel(double, module_preload_mode=wp.JaxModulePreloadMode.NONE)
    (y,) = k(jnp.arange(4, dtype=jnp.float32))
    np.testing.assert_array_equal(np.asarray(y), 2.0 * np.arange(4))
    with pytest.raises(ValueError, match="must not contain duplicate names"):
        wp.jax_kernel(double, num_outputs=1, in_out_argnames=["y", "y"])
    with pytest.raises(ValueError, match="in_out arguments should be placed before output-only arguments"):
        wp.jax_kernel(gather, num_outputs=2, in_out_argnames=["out"])
    with pytest.raises(ValueError, match="module_preload_mode"):
        wp.jax_kernel(double, module_preload_mode=7)


def test_block_dim_is_validated_and_passed_to_launches(jax_device):
    for bad in (0, -1):
        with pytest.raises(ValueError, match="block_dim must be positive"):
            wp.jax_kernel(double, block_dim=bad)
    for bad in (True, 1.5):
        with pytest.raises(TypeError, match="block_dim must be an integer or None"):
            wp.jax_kernel(double, block_dim=bad)
    assert wp.jax_kernel(double, block_dim=np.int64(64)).block_dim == 64
    assert wp.jax_kernel(double).block_dim is None
    x = jnp.arange(8, dtype=jnp.float32)
    k = wp.jax_kernel(scaled_by_block_dim, block_dim=64, enable_backward=True)
    (y,) = k(x)
    grad = jax.grad(lambda v: jnp.sum(k(v)[0]))(x)
    # a CUDA launch runs blocks of block_dim threads; a CPU launch blocks of one thread, whatever
    # block_dim asks for, as in Warp
    threads = 1 if jax_device.warp.is_cpu else 64
    np.testing.assert_array_equal(np.asarray(y), threads * np.arange(8))
    np.testing.assert_array_equal(np.asarray(grad), np.full(8, threads))


@wp.kernel
def scale_extra_axis(a: wp.array4d(dtype=float), b: wp.array4d(dtype=float)):
    i, j, k = wp.tid()
    for m in range(a.shape[0]):
        b[m, i, j, k] = a[m, i, j, k] * 2.0 + float(m)


def test_outputs_of_another_rank_than_the_launch_take_their_input_shape():
    k = wp.jax_kernel(scale_extra_axis, launch_dims=(3, 4, 5), enable_backward=True)
    rng = np.random.default_rng(4)
    a = jnp.asarray(rng.random((2, 3, 4, 5)).astype(np.float32))
    (b,) = k(a)
    expected = 2.0 * np.asarray(a) + np.arange(2)[:, None, None, None]
    np.testing.assert_allclose(np.asarray(b), expected, rtol=1e-6)
    w = jnp.asarray(rng.random((2, 3, 4, 5)).astype(np.float32))
    grad = jax.grad(lambda x: jnp.sum(k(x)[0] * w))(a)
    np.testing.assert_allclose(np.asarray(grad), 2.0 * np.asarray(w), rtol=1e-6)
    with pytest.raises(TypeError, match="launch_dims cannot be overridden per-call"):
        k(a, launch_dims=(3, 4, 5))
    with pytest.raises(TypeError, match="output_dims is not supported"):
        k(a, output_dims={"b": (2, 3, 4, 5)})
    with pytest.raises(NotImplementedError, match="output_dims is not supported with enable_backward"):
        wp.jax_kernel(scale_extra_axis, output_dims={"b": (2, 3, 4, 5)}, enable_backward=True)


@wp.kernel
def triple_bf16(a: wp.array(dtype=wp.types.vector(2, wp.bfloat16)),
                b: wp.array(dtype=wp.types.vector(2, wp.bfloat16))):
    i = wp.tid()
    b[i] = a[i] * wp.bfloat16(3.0)


def test_bfloat16_arrays_pass_as_jax_bfloat16():
    x = jnp.arange(8, dtype=jnp.bfloat16).reshape(4, 2)
    (y,) = jax.jit(wp.jax_kernel(triple_bf16))(x)
    assert y.dtype == jnp.bfloat16
    np.testing.assert_array_equal(np.asarray(y, dtype=np.float32), 3.0 * np.arange(8).reshape(4, 2))
    with pytest.raises(TypeError, match="expects an array of vector"):
        wp.jax_kernel(triple_bf16)(jnp.zeros((4, 2), dtype=jnp.uint16))


def test_results_vary_over_the_manual_axes_of_their_inputs(jax_device):
    # inside shard_map with check_vma, a scan carry must keep its varying axes through the call
    mesh = jax.sharding.Mesh(np.array([jax_device.jax]), ("replicas",))
    spec = jax.sharding.PartitionSpec("replicas")
    for wrapper in (wp.jax_kernel(double), wp.jax_callable(lambda_double, num_outputs=1)):

        @jax.shard_map(mesh=mesh, in_specs=spec, out_specs=spec, check_vma=True)
        def scan_double(x, wrapper=wrapper):
            return jax.lax.scan(lambda c, _: (wrapper(c)[0], None), x, None, length=3)[0]

        x = jax.device_put(jnp.arange(8, dtype=jnp.float32), jax.sharding.NamedSharding(mesh, spec))
        np.testing.assert_array_equal(np.asarray(scan_double(x)), 8.0 * np.arange(8))


def lambda_double(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    wp.launch(double, dim=x.shape, inputs=[x], outputs=[y])


_TID_DEAD = wp.constant(False)


@wp.kernel
def _inc_1d(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] + 1.0


@wp.kernel
def _inc_2d(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
    i, j = wp.tid()
    y[i, j] = x[i, j] + 1.0


@wp.kernel
def _dead_tid(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    if _TID_DEAD:
        i = wp.tid()
        y[i] = x[i]


@pytest.mark.parametrize(
    ("kernel", "launch_dims", "output_dims", "shape", "dim"),
    [(_inc_1d, (2**31 + 1,), 1, (1,), 0), (_inc_2d, (1, 2**31 + 1), (1, 1), (1, 1), 1)],
)
def test_tid_extent_past_int32_is_refused_while_tracing(kernel, launch_dims, output_dims, shape, dim):
    f = jax_kernel(kernel, launch_dims=launch_dims, output_dims=output_dims)
    message = rf"Warp cannot launch a kernel using wp\.tid\(\) with extent 2147483649 in dimension {dim}"
    with pytest.raises(ValueError, match=message):
        jax.jit(lambda: f(jnp.ones(shape, dtype=jnp.float32))).lower()
    # inferred from an input's shape (traced without allocating it)
    g = jax_kernel(kernel, output_dims=output_dims)
    big = list(shape)
    big[dim] = 2**31 + 1
    with pytest.raises(ValueError, match=message):
        jax.jit(lambda x: g(x)).lower(jax.ShapeDtypeStruct(tuple(big), jnp.float32))


def test_oversized_launch_of_a_kernel_whose_tid_is_folded_away_is_accepted():
    f = jax_kernel(_dead_tid, launch_dims=(2**31 + 1,), output_dims=1)
    assert jax.jit(lambda: f(jnp.ones(1, dtype=jnp.float32))).lower() is not None
