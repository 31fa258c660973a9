"""The guide's shard_map examples on four host CPU devices (each test in a fresh process, with
JAX_PLATFORMS=cpu: on a GPU host JAX's CUDA plugin would otherwise give its one GPU)."""

from __future__ import annotations

import pytest

from interop_subprocess import run_python

pytest.importorskip("jax")

PRELUDE = """
import numpy as np
import warp as wp
import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P
from jax.experimental.multihost_utils import process_allgather as allgather
from warp.jax_experimental import jax_kernel
try:
    from jax.experimental.shard_map import shard_map
except ImportError:  # removed in newer JAX: the same function, with check_vma instead of check_rep
    def shard_map(f, mesh, in_specs, out_specs, check_rep=True):
        return jax.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=check_rep)
wp.config.quiet = True
num_gpus = jax.device_count()
assert num_gpus == 4, num_gpus
"""


def run_on_four_host_devices(script: str, tmp_path) -> None:
    """Run PRELUDE + ``script`` on four host CPU devices in a fresh process; it must print "ok" last."""
    result = run_python(
        PRELUDE + script,
        tmp_path,
        XLA_FLAGS="--xla_force_host_platform_device_count=4",
        JAX_PLATFORMS="cpu",  # the host devices, also where JAX's CUDA plugin would pick the GPU
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().endswith("ok")


@pytest.mark.slow
def test_distributed_multiply_by_two(tmp_path):
    run_on_four_host_devices(
        """
@wp.kernel
def multiply_by_two_kernel(
    a_in: wp.array(dtype=wp.float32),
    a_out: wp.array(dtype=wp.float32),
):
    index = wp.tid()
    a_out[index] = a_in[index] * 2.0

jax_warp_multiply = jax_kernel(multiply_by_two_kernel)

def warp_multiply(x):
    result = jax_warp_multiply(x)
    return result

def warp_distributed_operator(a_in):
    def _sharded_operator(a_in):
        result = warp_multiply(a_in)[0]
        return result

    return shard_map(
        _sharded_operator,
        mesh=jax.sharding.Mesh(np.array(jax.devices()), "x"),
        in_specs=(P("x"),),
        out_specs=P("x"),
        check_rep=False,
    )(a_in)

devices = jax.devices()
mesh = jax.sharding.Mesh(np.array(devices), "x")
sharding_spec = jax.sharding.NamedSharding(mesh, P("x"))
input_size = num_gpus * 5
single_device_arrays = jnp.arange(input_size, dtype=jnp.float32)
shape = (input_size,)
arrays = [
    jax.device_put(single_device_arrays[index], d)
    for d, index in sharding_spec.addressable_devices_indices_map(shape).items()
]
sharded_array = jax.make_array_from_single_device_arrays(shape, sharding_spec, arrays)
warp_result = warp_distributed_operator(sharded_array)
out = np.asarray(allgather(warp_result)).reshape(-1)
assert len(warp_result.sharding.device_set) == 4
np.testing.assert_array_equal(out, 2.0 * np.arange(input_size))
print("ok")
""",
        tmp_path,
    )


@pytest.mark.slow
def test_distributed_matmul_with_launch_dims(tmp_path):
    run_on_four_host_devices(
        """
@wp.kernel
def matmul_kernel(
    a: wp.array2d(dtype=wp.float32),
    b: wp.array2d(dtype=wp.float32),
    c: wp.array2d(dtype=wp.float32),
):
    i, j = wp.tid()
    M = a.shape[0]
    K = a.shape[1]
    N = b.shape[1]
    if i < M and j < N:
        s = wp.float32(0.0)
        for k in range(K):
            s += a[i, k] * b[k, j]
        c[i, j] = s

def create_jax_warp_matmul(M, N):
    block_size_m = M // num_gpus
    block_size_n = N
    return jax_kernel(matmul_kernel, launch_dims=(block_size_m, block_size_n))

def warp_distributed_matmul(a, b):
    M, K = a.shape
    _, N = b.shape
    jax_warp_matmul = create_jax_warp_matmul(M, N)

    def _sharded_operator(a_shard, b):
        return jax_warp_matmul(a_shard, b)[0]

    return shard_map(
        _sharded_operator,
        mesh=jax.sharding.Mesh(np.array(jax.devices()), "x"),
        in_specs=(P("x", None), P(None, None)),
        out_specs=P("x", None),
        check_rep=False,
    )(a, b)

M = 8 * num_gpus
K, N = 4, 6
a = jnp.arange(M * K, dtype=jnp.float32).reshape(M, K)
b = jnp.arange(K * N, dtype=jnp.float32).reshape(K, N)
devices = jax.devices()
mesh = jax.sharding.Mesh(np.array(devices), "x")
sharded_a = jax.device_put(a, jax.sharding.NamedSharding(mesh, P("x", None)))
replicated_b = jax.device_put(b, jax.sharding.NamedSharding(mesh, P(None, None)))
warp_result = warp_distributed_matmul(sharded_a, replicated_b)
jax_result = jnp.matmul(a, b)
assert warp_result.shape == (M, N)
assert jnp.allclose(allgather(warp_result), jax_result, atol=1e-5)
print("ok")
""",
        tmp_path,
    )
