"""``wp.launch(block_dim=..., max_blocks=...)`` and ``@wp.kernel(launch_bounds=...)`` on CUDA.

The fake driver records the grid and block sizes passed to ``cuLaunchKernel``; the grid emulator
then runs the kernel's CUDA entry (its grid-stride loop) for exactly that configuration and the
recorded argument buffer, to check that every thread index is visited once. The kernels here keep
to the strided entry (module option ``cuda_vector_entry`` off); the vector entry's grids are
checked in ``test_cuda_vector_entry.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from grid_emulator import emulate_grid
from ptxas_util import cuda_compile, needs_ptxas, ptxas_check

import warp as wp
from warp.targets import target_for_kind


#: the strided entry only (1-D kernels over contiguous arrays would otherwise run the vector entry)
PLAIN = {"module": "unique", "module_options": {"cuda_vector_entry": False}}


@wp.kernel(**PLAIN)
def count_hits(hits: wp.array(dtype=wp.int32)):
    i = wp.tid()
    hits[i] = hits[i] + 1


@wp.kernel
def count_hits_2d(hits: wp.array2d(dtype=wp.int32)):
    i, j = wp.tid()
    hits[i, j] = hits[i, j] + 1


@wp.kernel
def record_block_dim(out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    out[i] = wp.block_dim()


@wp.kernel(launch_bounds=(128, 2), **PLAIN)
def bounded(hits: wp.array(dtype=wp.int32)):
    i = wp.tid()
    hits[i] = hits[i] + 1


@wp.kernel(launch_bounds=64, **PLAIN)
def bounded_64(hits: wp.array(dtype=wp.int32)):
    i = wp.tid()
    hits[i] = hits[i] + 1


def _launch(fake, kernel, shape, **kwargs):
    hits = wp.zeros(shape, dtype=wp.int32, device="cuda:0")
    wp.launch(kernel, dim=shape, inputs=[hits], device="cuda:0", **kwargs)
    launch = fake.launches[-1]
    np.testing.assert_array_equal(hits.numpy(), 1)  # the fake ran the kernel's CPU build
    return hits, launch


@pytest.mark.parametrize(
    "n, kwargs, grid, block",
    [
        (1000, {}, 4, 256),  # defaults: 256 threads per block, enough blocks
        (1000, {"block_dim": 64}, 16, 64),
        (1000, {"block_dim": 64, "max_blocks": 3}, 3, 64),  # capped: grid-stride loop
        (1000, {"block_dim": 1024, "max_blocks": 100}, 1, 1024),  # the cap above what is needed
        (1000, {"max_blocks": 2}, 2, 256),
        (1000, {"block_dim": 0, "max_blocks": -5}, 4, 256),  # non-positive: the defaults
        (7, {"block_dim": 1, "max_blocks": 1}, 1, 1),  # one thread does everything
    ],
)
def test_grid_and_block_passed_to_the_driver(fake_cuda, n, kwargs, grid, block) -> None:
    hits, launch = _launch(fake_cuda, count_hits, n, **kwargs)
    assert (launch["grid"], launch["block"]) == (grid, block)
    # the entry, run for exactly this grid on the recorded arguments, visits each index once
    hits.zero_()
    with fake_cuda.arena.opened():  # the emulated grid plays the device
        emulate_grid(count_hits, launch["args"], launch["grid"], launch["block"])
    np.testing.assert_array_equal(hits.numpy(), np.ones(n, dtype=np.int32))


def test_capped_grid_covers_a_2d_launch(fake_cuda) -> None:
    hits, launch = _launch(fake_cuda, count_hits_2d, (37, 29), block_dim=32, max_blocks=5)
    assert (launch["grid"], launch["block"]) == (5, 32)
    hits.zero_()
    with fake_cuda.arena.opened():  # the emulated grid plays the device
        emulate_grid(count_hits_2d, launch["args"], 5, 32)
    np.testing.assert_array_equal(hits.numpy(), np.ones((37, 29), dtype=np.int32))


def test_emulator_notices_a_block_that_did_not_run(fake_cuda) -> None:
    # the check can fail: without block 2 of 3, the indices it strides over stay unvisited
    hits, launch = _launch(fake_cuda, count_hits, 1000, block_dim=64, max_blocks=3)
    hits.zero_()
    with fake_cuda.arena.opened():  # the emulated grid plays the device
        emulate_grid(count_hits, launch["args"], 3, 64, only_blocks=[0, 1])
    visited = hits.numpy()
    expected = (np.arange(1000) % 192 < 128).astype(np.int32)
    np.testing.assert_array_equal(visited, expected)


def test_block_dim_builtin_sees_the_launch_block_size(fake_cuda) -> None:
    out, launch = _launch(fake_cuda, record_block_dim, 100, block_dim=32)
    out.zero_()
    with fake_cuda.arena.opened():  # the emulated grid plays the device
        emulate_grid(record_block_dim, launch["args"], launch["grid"], launch["block"])
    np.testing.assert_array_equal(out.numpy(), np.full(100, 32, dtype=np.int32))


def test_recorded_launch_keeps_its_block_shape(fake_cuda) -> None:
    hits = wp.zeros(500, dtype=wp.int32, device="cuda:0")
    cmd = wp.launch(count_hits, dim=500, inputs=[hits], device="cuda:0", block_dim=128, max_blocks=2,
                    record_cmd=True)
    cmd.launch()
    assert (fake_cuda.launches[-1]["grid"], fake_cuda.launches[-1]["block"]) == (2, 128)
    np.testing.assert_array_equal(hits.numpy(), 1)


def test_launch_bounds_limit_the_block_size(fake_cuda) -> None:
    hits, launch = _launch(fake_cuda, bounded, 1000)  # the default 256 is lowered to the bound
    assert (launch["grid"], launch["block"]) == (8, 128)
    _, launch = _launch(fake_cuda, bounded, 1000, block_dim=96)
    assert (launch["grid"], launch["block"]) == (11, 96)
    _, launch = _launch(fake_cuda, bounded_64, 100)
    assert launch["block"] == 64
    with pytest.raises(ValueError, match=r"kernel 'bounded'.*block_dim=512.*launch_bounds allow at most 128"):
        wp.launch(bounded, dim=10, inputs=[hits], device="cuda:0", block_dim=512)


def test_bad_block_arguments_are_errors(fake_cuda) -> None:
    hits = wp.zeros(10, dtype=wp.int32, device="cuda:0")
    with pytest.raises(ValueError, match=r"kernel 'count_hits'.*block_dim=2048.*at most 1024 threads"):
        wp.launch(count_hits, dim=10, inputs=[hits], device="cuda:0", block_dim=2048)
    # NVIDIA Warp's wording, a RuntimeError as there: for launches, recorded launches and adjoints
    warp_wording = r"Error launching kernel: .*'bounded'.*Warp CUDA error"
    with pytest.raises(RuntimeError, match=warp_wording):
        wp.launch(bounded, dim=10, inputs=[hits], device="cuda:0", block_dim=512)
    with pytest.raises(RuntimeError, match=warp_wording):
        wp.launch(bounded, dim=10, inputs=[hits], device="cuda:0", block_dim=512, record_cmd=True).launch()
    with pytest.raises(RuntimeError, match=warp_wording):
        wp.launch(bounded, dim=10, inputs=[hits], adj_inputs=[None], adjoint=True, device="cuda:0",
                  block_dim=512)
    with pytest.raises(TypeError, match=r"kernel 'count_hits'.*block_dim must be an int, got float 64.0"):
        wp.launch(count_hits, dim=10, inputs=[hits], device="cuda:0", block_dim=64.0)
    with pytest.raises(TypeError, match=r"max_blocks must be an int, got str"):
        wp.launch(count_hits, dim=10, inputs=[hits], device="cuda:0", max_blocks="2")


def test_cpu_launches_ignore_block_arguments() -> None:
    hits = wp.zeros(10, dtype=wp.int32, device="cpu")
    wp.launch(count_hits, dim=10, inputs=[hits], device="cpu", block_dim=2048, max_blocks=1)
    np.testing.assert_array_equal(hits.numpy(), 1)


@wp.kernel(cuda_max_registers=40, **PLAIN)
def register_capped(hits: wp.array(dtype=wp.int32)):
    i = wp.tid()
    hits[i] = hits[i] + 1


@needs_ptxas
def test_cuda_max_registers_in_ptx() -> None:
    text, _ = cuda_compile(register_capped)
    assert ".maxnreg 40" in text
    ptxas_check(text)
    text, _ = cuda_compile(count_hits)
    assert ".maxnreg" not in text


def test_cuda_max_registers_is_checked_at_definition_and_hashed() -> None:
    with pytest.raises(ValueError, match="kernel 'too_many': cuda_max_registers must be between 1 and 255"):

        @wp.kernel(cuda_max_registers=300)
        def too_many(hits: wp.array(dtype=wp.int32)):
            hits[0] = 1

    with pytest.raises(TypeError, match="cuda_max_registers must be an int"):

        @wp.kernel(cuda_max_registers=32.0)
        def not_int(hits: wp.array(dtype=wp.int32)):
            hits[0] = 1

    def make(limit):
        @wp.kernel(cuda_max_registers=limit, module="unique")
        def capped(hits: wp.array(dtype=wp.int32)):
            hits[0] = 1

        return capped

    assert make(32) is make(32) and make(32) is not make(64)
    assert make(32).module.hash_module() != make(64).module.hash_module()
    hits = wp.zeros(1, dtype=wp.int32, device="cpu")
    wp.launch(make(32), dim=1, inputs=[hits], device="cpu")  # the CPU ignores the limit
    assert hits.numpy()[0] == 1


@needs_ptxas
def test_launch_bounds_in_ptx() -> None:
    text, _ = cuda_compile(bounded)
    assert ".maxntid 128" in text and ".minnctapersm 2" in text
    ptxas_check(text)
    text, _ = cuda_compile(bounded_64)
    assert ".maxntid 64" in text and ".minnctapersm" not in text
    ptxas_check(text)
    text, _ = cuda_compile(count_hits)
    assert ".maxntid" not in text


def test_max_registers_and_launch_bounds_are_exclusive() -> None:
    with pytest.raises(ValueError, match="kernel 'both': cuda_max_registers and launch_bounds cannot both"):
        @wp.kernel(launch_bounds=128, cuda_max_registers=64)
        def both(a: wp.array(dtype=int)):
            a[wp.tid()] = 0


def test_invalid_launch_bounds_fail_at_definition() -> None:
    too_many = r"kernel 'too_big': launch_bounds: max threads per block must be 1\.\.1024, got 2048"
    with pytest.raises(ValueError, match=too_many):
        @wp.kernel(launch_bounds=2048)
        def too_big(a: wp.array(dtype=float)):
            pass

    with pytest.raises(TypeError, match=r"kernel 'not_ints': launch_bounds must hold ints"):
        @wp.kernel(launch_bounds=(128.0, 1))
        def not_ints(a: wp.array(dtype=float)):
            pass

    with pytest.raises(ValueError, match=r"kernel 'three': launch_bounds must be an int or a tuple"):
        @wp.kernel(launch_bounds=(1, 2, 3))
        def three(a: wp.array(dtype=float)):
            pass


def test_launch_bounds_are_in_the_cuda_cache_key_only() -> None:
    from warp.compiler.options import resolve_options

    assert resolve_options(bounded, target=target_for_kind("cuda")).launch_bounds == (128, 2)
    assert resolve_options(bounded_64, target=target_for_kind("cuda")).launch_bounds == (64, 0)
    assert resolve_options(bounded, target=target_for_kind("cpu")).launch_bounds is None
    cuda = target_for_kind("cuda")
    assert ("launch_bounds", (128, 2)) in resolve_options(bounded, target=cuda).cache_items()
