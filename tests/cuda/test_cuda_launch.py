"""Kernel launches on CUDA devices: PTX compiled and loaded, arguments passed as one buffer.

Runs on the fake driver (tests/cuda/fake_driver.py), which executes the kernel's CPU build on the
exact argument bytes handed to ``cuLaunchKernel``.
"""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp


@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.kernel
def grid_ids(out: wp.array2d(dtype=wp.int32)):
    i, j = wp.tid()
    out[i, j] = i * 1000 + j


@wp.kernel
def accumulate(x: wp.array(dtype=float), total: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(total, 0, x[i])


@wp.kernel
def strided_scale(a: wp.array2d(dtype=float), s: float):
    i, j = wp.tid()
    a[i, j] = a[i, j] * s


@wp.kernel
def out_of_bounds(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i + 1] = 1.0


def test_saxpy_on_cuda(fake_cuda) -> None:
    n = 1000
    x = np.linspace(0, 1, n, dtype=np.float32)
    y = np.ones(n, dtype=np.float32)
    xd, yd = wp.array(x, device="cuda:0"), wp.array(y, device="cuda:0")
    wp.launch(saxpy, dim=n, inputs=[xd, yd, 2.0], device="cuda:0")
    np.testing.assert_allclose(yd.numpy(), 2 * x + y, rtol=1e-6)
    launch = fake_cuda.launches[-1]
    # contiguous, aligned arrays in a 1-D launch: the vector entry, 4 indices per thread, so a
    # grid for 250 threads (tests/cuda/test_cuda_vector_entry.py); other launches run the strided
    # entry, as NVIDIA Warp's (indexing through the strides)
    assert launch["n"] == n and launch["block"] == 256 and launch["grid"] == 1
    assert launch["symbol"].endswith("_entry_v")
    wp.launch(saxpy, dim=n - 1, inputs=[xd[1:], yd[1:], 2.0], device="cuda:0")  # 4-byte aligned views
    assert fake_cuda.launches[-1]["symbol"].endswith("_entry_s") and fake_cuda.launches[-1]["grid"] == 4
    # the argument buffer: header (dims, error record, reserved) + two descriptors + the float
    assert len(launch["args"]) == 48 + 64 + 64 + 8
    assert int.from_bytes(launch["args"][48:56], "little") == xd.ptr


def test_default_device_launch_and_multi_dim(fake_cuda) -> None:
    out = wp.zeros((3, 7), dtype=wp.int32)  # default device: cuda:0
    assert out.device == "cuda:0"
    wp.launch(grid_ids, dim=(3, 7), inputs=[out])
    expected = np.arange(3)[:, None] * 1000 + np.arange(7)[None, :]
    np.testing.assert_array_equal(out.numpy(), expected)


def test_atomics_and_second_device(fake_cuda) -> None:
    x = wp.array(np.arange(100, dtype=np.float32), device="cuda:1")
    total = wp.zeros(1, dtype=float, device="cuda:1")
    wp.launch(accumulate, dim=100, inputs=[x, total], device="cuda:1")
    assert total.numpy()[0] == pytest.approx(4950.0)


def test_strided_arguments_use_the_strided_entry(fake_cuda) -> None:
    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = wp.array(host, device="cuda:0")
    t = a.transpose()
    wp.launch(strided_scale, dim=t.shape, inputs=[t, 3.0], device="cuda:0")
    assert fake_cuda.launches[-1]["symbol"].endswith("_entry_s")
    np.testing.assert_array_equal(a.numpy(), host * 3)


def test_wrong_device_argument_is_an_error(fake_cuda) -> None:
    x = wp.zeros(4, dtype=float, device="cpu")
    y = wp.zeros(4, dtype=float, device="cuda:0")
    with pytest.raises(ValueError, match="argument 'x'.*device 'cpu'.*'cuda:0'"):
        wp.launch(saxpy, dim=4, inputs=[x, y, 1.0], device="cuda:0")


def test_debug_bounds_error_names_kernel_and_line(fake_cuda, debug_mode) -> None:
    a = wp.zeros(4, dtype=float, device="cuda:0")
    with pytest.raises(
        IndexError, match=r"kernel 'out_of_bounds'.*test_cuda_launch.py:\d+.*index \(4\).*shape \(4,\)"
    ):
        wp.launch(out_of_bounds, dim=4, inputs=[a], device="cuda:0")
    # the error record lived in device memory
    assert any(kind == "device" for _, kind in fake_cuda.memory.values())


@wp.kernel
def asserts_positive(a: wp.array(dtype=float)):
    i = wp.tid()
    assert a[i] > 0.0, "must be positive"


def test_debug_assert_failure_is_raised_after_a_cuda_launch(fake_cuda, debug_mode) -> None:
    good = wp.full(3, 1.0, dtype=float, device="cuda:0")
    wp.launch(asserts_positive, dim=3, inputs=[good], device="cuda:0")
    bad = wp.array([1.0, -1.0, 2.0], dtype=float, device="cuda:0")
    message = r"kernel 'asserts_positive'.*assert a\[i\] > 0.0: must be positive"
    with pytest.raises(AssertionError, match=message):
        wp.launch(asserts_positive, dim=3, inputs=[bad], device="cuda:0")


def test_launch_on_a_stream(fake_cuda) -> None:
    s = wp.Stream("cuda:0")
    x = wp.full(10, 1.0, dtype=float, device="cuda:0")
    y = wp.zeros(10, dtype=float, device="cuda:0")
    wp.launch(saxpy, dim=10, inputs=[x, y, 5.0], device="cuda:0", stream=s)
    np.testing.assert_array_equal(y.numpy(), np.full(10, 5.0))
    other = wp.Stream("cuda:1")
    with pytest.raises(RuntimeError, match="stream of device 'cuda:1'"):
        wp.launch(saxpy, dim=10, inputs=[x, y, 5.0], device="cuda:0", stream=other)


def test_invalid_ptx_reports_the_driver_log(fake_cuda) -> None:
    from warp.errors import WarpCodegenError
    from warp.targets.cuda.target import load_ptx

    with pytest.raises(WarpCodegenError, match="CUDA_ERROR_INVALID_PTX: ptxas fatal: not a PTX module"):
        load_ptx(b"garbage", ["k"], name="m", device=wp.get_device("cuda:0"))
