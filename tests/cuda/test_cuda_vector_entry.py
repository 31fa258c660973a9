"""The CUDA vector entry: 4 consecutive thread indices per GPU thread, 128-bit loads and stores.

Which kernels get one and which launches use it is checked on the stand-in driver (the launch it
records: entry symbol and grid); what the entry computes is checked by running its LLVM IR on the
host thread by thread for the recorded grid and arguments (``grid_emulator``), against NumPy;
the PTX is checked for ``v4`` accesses and with ``ptxas``.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from grid_emulator import emulate_grid
from ptxas_util import cuda_compile, needs_ptxas, ptxas_check

import warp as wp
from warp.compiler.frontend.translator import build_kernel
from warp.compiler.lowering.vector_entry import MAX_INSTRUCTIONS, wants_vector_entry
from warp.compiler.options import compiling, resolve_options
from warp.targets import target_for_kind


@wp.kernel
def saxpy_v(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.kernel
def scale_in_place(y: wp.array(dtype=float), s: float):
    i = wp.tid()
    y[i] = y[i] * s + float(i)


@wp.kernel
def shift_vec3(p: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3), d: wp.vec3):
    i = wp.tid()
    out[i] = p[i] + d


@wp.kernel
def reversed_copy(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    j = x.shape[0] - 1 - i
    y[j] = x[j]


@wp.kernel
def branches(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    if x[i] > 0.5:
        y[i] = x[i]


@wp.kernel
def uses_block_dim(out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = wp.block_dim()


@wp.kernel
def spin_lock(lock: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = wp.atomic_exch(lock, 0, i)


@wp.kernel
def math_heavy(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = wp.sin(x[i])


@wp.kernel
def grid_2d(out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    out[i, j] = float(i * 100 + j)


def _ir(kernel):
    target = target_for_kind("cuda")
    with compiling(resolve_options(kernel, target=target)):
        return build_kernel(kernel)


def test_which_kernels_get_a_vector_entry() -> None:
    assert wants_vector_entry(_ir(saxpy_v)) and wants_vector_entry(_ir(shift_vec3))
    # not at the thread index of a 1-D array, control flow, cooperative builtins, a 2-D tid
    for kernel in (reversed_copy, branches, uses_block_dim, spin_lock, grid_2d):
        assert not wants_vector_entry(_ir(kernel)), kernel.key
    # accepted by the IR test but calling libdevice: no vector entry in its code
    assert wants_vector_entry(_ir(math_heavy))
    assert "vector" not in cuda_compile(math_heavy)[1]["entries"]
    assert cuda_compile(saxpy_v)[1]["vector_width"] == 4
    assert MAX_INSTRUCTIONS >= 46  # saxpy's lowered size


def test_the_switch_turns_it_off(monkeypatch) -> None:
    cuda, cpu = target_for_kind("cuda"), target_for_kind("cpu")
    monkeypatch.setattr(wp.config, "cuda_vector_entry", False)
    options = resolve_options(saxpy_v, target=cuda)
    assert options.vector_width == 0 and ("vector_width", 0) in options.cache_items()
    assert "vector" not in cuda_compile(saxpy_v)[1]["entries"]
    monkeypatch.setattr(wp.config, "cuda_vector_entry", True)
    assert resolve_options(saxpy_v, target=cuda).vector_width == 4
    assert resolve_options(saxpy_v, target=cpu).vector_width == 0
    off = wp.Kernel(saxpy_v.func, key="saxpy_v_off", options={"cuda_vector_entry": False})
    assert resolve_options(off, target=cuda).vector_width == 0
    eight = wp.Kernel(saxpy_v.func, key="saxpy_v_8", options={"cuda_vector_entry": 8})
    assert resolve_options(eight, target=cuda).vector_width == 8
    assert resolve_options(eight, target=cpu).vector_width == 0
    monkeypatch.setattr(wp.config, "cuda_vector_entry", 3)
    with pytest.raises(ValueError, match=r"cuda_vector_entry must be True, False or one of \(2, 4, 8, 16\)"):
        resolve_options(saxpy_v, target=cuda)


@needs_ptxas
def test_vector_entry_ptx_has_128_bit_accesses() -> None:
    text, meta = cuda_compile(saxpy_v)
    ptxas_check(text)
    vector = text[text.index(f".entry {meta['entries']['vector']}"):]
    assert len(re.findall(r"ld\.global\.v4\.b32", vector)) == 2
    assert len(re.findall(r"st\.global\.v4\.b32", vector)) == 1
    assert "div." not in vector and "mul.lo.s64" not in vector  # 1-D launch: no tid division
    strided = text[text.index(f".entry {meta['entries']['strided']}"):text.index(".entry", 20)]
    assert ".v4" not in strided
    text, meta = cuda_compile(shift_vec3)  # 4 vec3 = 48 bytes: three 128-bit loads per array
    ptxas_check(text)
    vector = text[text.index(f".entry {meta['entries']['vector']}"):]
    assert len(re.findall(r"ld\.global\.v4\.b32", vector)) == 3
    assert len(re.findall(r"st\.global\.v4\.b32", vector)) == 3


#: saxpy with 8 consecutive indices per thread (two 128-bit accesses per array and thread)
saxpy_8 = wp.Kernel(saxpy_v.func, key="saxpy_8", options={"cuda_vector_entry": 8})


@needs_ptxas
def test_wider_vector_entry_ptx() -> None:
    text, meta = cuda_compile(saxpy_8)
    ptxas_check(text)
    assert meta["vector_width"] == 8
    vector = text[text.index(f".entry {meta['entries']['vector']}"):]
    assert len(re.findall(r"ld\.global\.v4\.b32", vector)) == 4
    assert len(re.findall(r"st\.global\.v4\.b32", vector)) == 2


def _run_vector(fake, kernel, n, inputs, **kwargs):
    wp.launch(kernel, dim=n, inputs=inputs, device="cuda:0", **kwargs)
    return fake.launches[-1]


@pytest.mark.parametrize("n", [1, 3, 4, 5, 1000, 1023, 4099])
@pytest.mark.parametrize("kwargs", [{}, {"block_dim": 32, "max_blocks": 3}])
@pytest.mark.parametrize("kernel, width", [(saxpy_v, 4), (saxpy_8, 8)])
def test_vector_entry_computes_saxpy(fake_cuda, n, kwargs, kernel, width) -> None:
    rng = np.random.default_rng(n)
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    xd, yd = wp.array(x, device="cuda:0"), wp.array(y, device="cuda:0")
    launch = _run_vector(fake_cuda, kernel, n, [xd, yd, 2.0], **kwargs)
    assert launch["symbol"].endswith("_entry_v")
    block = kwargs.get("block_dim", 256)
    threads = (n + width - 1) // width
    blocks = (threads + block - 1) // block  # a grid for ceil(n / width) threads, capped by max_blocks
    assert launch["grid"] == min(blocks, kwargs.get("max_blocks", blocks)) and launch["block"] == block
    yd.assign(y)
    with fake_cuda.arena.opened():  # the emulated grid plays the device: the entry's own code
        emulate_grid(kernel, launch["args"], launch["grid"], launch["block"], entry="vector")
    np.testing.assert_allclose(yd.numpy(), 2.0 * x + y, rtol=1e-6)


def test_vector_entry_in_place_and_vec3(fake_cuda) -> None:
    n = 1001
    y = np.arange(n, dtype=np.float32)
    yd = wp.array(y, device="cuda:0")
    launch = _run_vector(fake_cuda, scale_in_place, n, [yd, 3.0])
    assert launch["symbol"].endswith("_entry_v")
    yd.assign(y)
    with fake_cuda.arena.opened():
        emulate_grid(scale_in_place, launch["args"], launch["grid"], launch["block"], entry="vector")
    np.testing.assert_allclose(yd.numpy(), y * 3.0 + np.arange(n), rtol=1e-6)

    p = np.random.default_rng(1).random((n, 3), dtype=np.float32)
    pd, out = wp.array(p, dtype=wp.vec3, device="cuda:0"), wp.zeros(n, dtype=wp.vec3, device="cuda:0")
    launch = _run_vector(fake_cuda, shift_vec3, n, [pd, out, wp.vec3(1.0, 2.0, 3.0)])
    assert launch["symbol"].endswith("_entry_v")
    out.zero_()
    with fake_cuda.arena.opened():
        emulate_grid(shift_vec3, launch["args"], launch["grid"], launch["block"], entry="vector")
    np.testing.assert_allclose(out.numpy(), p + np.array([1.0, 2.0, 3.0], dtype=np.float32), rtol=1e-6)


def test_unaligned_strided_and_multi_dim_launches_take_the_strided_entry(fake_cuda) -> None:
    n = 64
    x = np.arange(2 * n, dtype=np.float32)
    xd, yd = wp.array(x, device="cuda:0"), wp.zeros(2 * n, dtype=float, device="cuda:0")
    # a view starting 4 bytes in: contiguous but not 16-byte aligned
    launch = _run_vector(fake_cuda, saxpy_v, n - 1, [xd[1:n], yd[1:n], 1.0])
    assert launch["symbol"].endswith("_entry_s") and launch["grid"] == 1
    np.testing.assert_array_equal(yd.numpy()[1:n], x[1:n])
    # 16 bytes in: aligned, so the vector entry
    launch = _run_vector(fake_cuda, saxpy_v, n - 4, [xd[4:n], yd[4:n], 1.0])
    assert launch["symbol"].endswith("_entry_v")
    # every other element: not contiguous
    yd.zero_()
    launch = _run_vector(fake_cuda, saxpy_v, n, [xd[::2], yd[::2], 1.0])
    assert launch["symbol"].endswith("_entry_s")
    np.testing.assert_array_equal(yd.numpy()[::2], x[::2])
    # a 2-D launch of a 1-D kernel (wp.tid() is the first coordinate there): strided entry
    yd.zero_()
    launch = _run_vector(fake_cuda, saxpy_v, (n, 2), [xd, yd, 1.0])
    assert launch["symbol"].endswith("_entry_s")
    np.testing.assert_array_equal(yd.numpy()[:n], 2 * x[:n])


def test_kernels_without_a_vector_entry_launch_as_before(fake_cuda) -> None:
    out = wp.zeros((5, 7), dtype=float, device="cuda:0")
    wp.launch(grid_2d, dim=(5, 7), inputs=[out], device="cuda:0")
    assert fake_cuda.launches[-1]["symbol"].endswith("_entry_s")
    np.testing.assert_array_equal(out.numpy(), np.arange(5)[:, None] * 100 + np.arange(7)[None, :])
    ints = wp.zeros(100, dtype=int, device="cuda:0")
    wp.launch(uses_block_dim, dim=100, inputs=[ints], device="cuda:0", block_dim=64)
    assert fake_cuda.launches[-1]["symbol"].endswith("_entry_s") and fake_cuda.launches[-1]["grid"] == 2


def test_recorded_launch_uses_the_vector_entry(fake_cuda) -> None:
    n = 10
    x = np.arange(n, dtype=np.float32)
    xd, yd = wp.array(x, device="cuda:0"), wp.zeros(n, dtype=float, device="cuda:0")
    cmd = wp.launch(saxpy_v, dim=n, inputs=[xd, yd, 1.0], device="cuda:0", record_cmd=True)
    cmd.launch()
    assert fake_cuda.launches[-1]["symbol"].endswith("_entry_v") and fake_cuda.launches[-1]["grid"] == 1
    np.testing.assert_array_equal(yd.numpy(), x)
    cmd.set_dim((5, 2))  # the choice is made again when the grid or the arguments change
    cmd.launch()
    assert fake_cuda.launches[-1]["symbol"].endswith("_entry_s")
    cmd.set_dim(n - 1)
    cmd.set_params([xd[1:], yd[1:], 1.0])
    cmd.launch()
    assert fake_cuda.launches[-1]["symbol"].endswith("_entry_s")
    cmd.set_params([xd, yd, 2.0])
    yd.zero_()
    cmd.launch()
    assert fake_cuda.launches[-1]["symbol"].endswith("_entry_v")
    np.testing.assert_array_equal(yd.numpy(), np.append(2 * x[: n - 1], 0))


def test_debug_mode_keeps_the_strided_entry(fake_cuda, debug_mode) -> None:
    xd, yd = wp.zeros(8, dtype=float, device="cuda:0"), wp.zeros(8, dtype=float, device="cuda:0")
    wp.launch(saxpy_v, dim=8, inputs=[xd, yd, 1.0], device="cuda:0")
    assert fake_cuda.launches[-1]["symbol"].endswith("_entry_s")
    with pytest.raises(IndexError, match=r"saxpy_v.*index \(8\) is out of range"):
        wp.launch(saxpy_v, dim=9, inputs=[xd, yd, 1.0], device="cuda:0")


@wp.kernel
def copy_unused_extra(x: wp.array(dtype=float), y: wp.array(dtype=float), unused: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i]


def test_none_and_empty_arrays(fake_cuda) -> None:
    n = 9
    x = np.arange(n, dtype=np.float32)
    xd, yd = wp.array(x, device="cuda:0"), wp.zeros(n, dtype=float, device="cuda:0")
    # None for an array (a null pointer: aligned) goes through the launcher's slow path
    wp.launch(copy_unused_extra, dim=n, inputs=[xd, yd, None], device="cuda:0")
    assert fake_cuda.launches[-1]["symbol"].endswith("_entry_v")
    np.testing.assert_array_equal(yd.numpy(), x)
    count = len(fake_cuda.launches)
    empty = wp.zeros(0, dtype=float, device="cuda:0")
    wp.launch(copy_unused_extra, dim=0, inputs=[empty, empty, empty], device="cuda:0")
    assert len(fake_cuda.launches) == count  # nothing to run
