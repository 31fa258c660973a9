"""CUDA launch plans: each thread packs a kernel's arguments straight into its own reused
buffer, whose header (launch dimensions) is rewritten only when the dimensions change.

Runs on the stand-in driver, which executes the kernel's CPU build on the bytes the buffer
holds when ``cuLaunchKernel`` is called.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import warp as wp
from warp.errors import LaunchTypeError
from warp.runtime.launcher import get_launcher


@wp.kernel
def plan_write_ids(out: wp.array(dtype=wp.int32), scale: wp.int32):
    i = wp.tid()
    out[i] = i * scale


@wp.kernel
def plan_write_ids_2d(out: wp.array2d(dtype=wp.int32), scale: wp.int32):
    i, j = wp.tid()
    out[i, j] = (i * 100 + j) * scale


def _header_dims(args: bytes) -> list[int]:
    return [int.from_bytes(args[8 * k : 8 * k + 8], "little", signed=True) for k in range(4)]


def test_header_follows_the_launch_dimensions(fake_cuda) -> None:
    out = wp.zeros(8, dtype=wp.int32, device="cuda:0")
    for dim, scale in ((5, 2), (8, 3), (5, 4), (np.int64(3), 5), (3, 6)):
        out.zero_()
        wp.launch(plan_write_ids, dim=dim, inputs=[out, scale], device="cuda:0")
        n = int(dim)
        expected = np.where(np.arange(8) < n, np.arange(8) * scale, 0)
        np.testing.assert_array_equal(out.numpy(), expected)
        launch = fake_cuda.launches[-1]
        assert launch["n"] == n and _header_dims(launch["args"]) == [n, 1, 1, 1]
        assert launch["args"][32:48] == bytes(16)  # no error record, no scratch memory


def test_multi_dimensional_launches_after_one_dimensional_ones(fake_cuda) -> None:
    grid = wp.zeros((3, 4), dtype=wp.int32, device="cuda:0")
    wp.launch(plan_write_ids_2d, dim=(3, 4), inputs=[grid, 1], device="cuda:0")
    wp.launch(plan_write_ids_2d, dim=(2, 2), inputs=[grid, 2], device="cuda:0")
    expected = (np.arange(3)[:, None] * 100 + np.arange(4)[None, :]).astype(np.int32)
    expected[:2, :2] *= 2
    np.testing.assert_array_equal(grid.numpy(), expected)
    assert _header_dims(fake_cuda.launches[-1]["args"]) == [2, 2, 1, 1]


def test_one_buffer_per_thread_reused_by_its_launches(fake_cuda) -> None:
    out = wp.zeros(4, dtype=wp.int32, device="cuda:0")
    wp.launch(plan_write_ids, dim=4, inputs=[out, 1], device="cuda:0")
    launcher = get_launcher(plan_write_ids, "cuda:0")
    assert launcher.in_place
    mine = launcher._plans.plan
    wp.launch(plan_write_ids, dim=4, inputs=[out, 2], device="cuda:0")
    assert launcher._plans.plan is mine

    results: dict[int, tuple[object, np.ndarray]] = {}

    def worker(k: int) -> None:
        local = wp.zeros(16, dtype=wp.int32, device="cuda:0")
        for _ in range(20):
            wp.launch(plan_write_ids, dim=16, inputs=[local, k], device="cuda:0")
        results[k] = (launcher._plans.plan, local.numpy())

    threads = [threading.Thread(target=worker, args=(k,)) for k in (3, 7)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    plans = [results[k][0] for k in (3, 7)]
    assert plans[0] is not plans[1] and mine not in plans
    assert len({id(p.buffer) for p in (mine, *plans)}) == 3
    for k in (3, 7):
        np.testing.assert_array_equal(results[k][1], np.arange(16) * k)


def test_converted_and_rejected_arguments_after_fast_launches(fake_cuda) -> None:
    out = wp.zeros(4, dtype=wp.int32, device="cuda:0")
    wp.launch(plan_write_ids, dim=4, inputs=[out, 2], device="cuda:0")
    # a NumPy integer takes the checked path (converted), then fast launches go on
    wp.launch(plan_write_ids, dim=4, inputs=[out, np.int16(3)], device="cuda:0")
    np.testing.assert_array_equal(out.numpy(), np.arange(4) * 3)
    expected = r"kernel 'plan_write_ids', argument 'scale': expected int32, got float"
    with pytest.raises(LaunchTypeError, match=expected):
        wp.launch(plan_write_ids, dim=4, inputs=[out, 1.5], device="cuda:0")
    with pytest.raises(LaunchTypeError, match=r"passed 1 arguments but kernel requires 2"):
        wp.launch(plan_write_ids, dim=4, inputs=[out], device="cuda:0")
    wp.launch(plan_write_ids, dim=4, inputs=[out, 5], device="cuda:0")
    np.testing.assert_array_equal(out.numpy(), np.arange(4) * 5)


def test_driver_launch_errors_name_the_entry(fake_cuda, monkeypatch) -> None:
    from fake_driver import ERR

    from warp.targets.cuda.driver import CudaError
    from warp.targets.cuda.launching import argument_buffer, buffer_runner

    out = wp.zeros(4, dtype=wp.int32, device="cuda:0")
    wp.launch(plan_write_ids, dim=4, inputs=[out, 1], device="cuda:0")
    launcher = get_launcher(plan_write_ids, "cuda:0")
    monkeypatch.setattr(fake_cuda, "cuLaunchKernel", lambda *args: (ERR.CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,))
    run = buffer_runner(launcher.device, launcher.entry_strided, argument_buffer(launcher.packer.size))
    with pytest.raises(CudaError, match=r"cuLaunchKernel \(.*_entry_s\): CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"):
        run(4)
    run(0)  # nothing to launch: no driver call


def test_recorded_launches_replay_their_own_buffer(fake_cuda) -> None:
    out = wp.zeros(8, dtype=wp.int32, device="cuda:0")
    cmd = wp.launch(plan_write_ids, dim=4, inputs=[out, 3], device="cuda:0", record_cmd=True)
    assert not out.numpy().any()  # recording runs nothing
    cmd.launch()
    np.testing.assert_array_equal(out.numpy(), np.where(np.arange(8) < 4, np.arange(8) * 3, 0))
    plan = cmd._plan
    # a wp.launch of the same kernel in between does not disturb the recorded arguments
    other = wp.zeros(8, dtype=wp.int32, device="cuda:0")
    wp.launch(plan_write_ids, dim=8, inputs=[other, 9], device="cuda:0")
    out.zero_()
    cmd.launch()
    np.testing.assert_array_equal(out.numpy(), np.where(np.arange(8) < 4, np.arange(8) * 3, 0))
    cmd.set_param_by_name("scale", 5)
    cmd.set_dim(6)
    cmd.launch()
    assert cmd._plan is plan
    np.testing.assert_array_equal(out.numpy(), np.where(np.arange(8) < 6, np.arange(8) * 5, 0))
    assert _header_dims(fake_cuda.launches[-1]["args"]) == [6, 1, 1, 1]


@wp.kernel
def plan_no_params():
    wp.tid()


def test_kernel_without_parameters(fake_cuda) -> None:
    wp.launch(plan_no_params, dim=3, inputs=[], device="cuda:0")
    wp.launch(plan_no_params, dim=5, device="cuda:0")
    launch = fake_cuda.launches[-1]
    assert launch["n"] == 5 and len(launch["args"]) == 48
    with pytest.raises(LaunchTypeError, match="passed 1 arguments but kernel requires 0"):
        wp.launch(plan_no_params, dim=5, inputs=[1], device="cuda:0")


@wp.kernel
def plan_scale(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i]


def test_vector_entry_from_plans_and_recorded_launches(fake_cuda) -> None:
    n = 2000
    x = wp.array(np.arange(n, dtype=np.float32), device="cuda:0")
    y = wp.zeros(n, dtype=float, device="cuda:0")
    launcher = get_launcher(plan_scale, "cuda:0", args=[x, y, 1.0])
    assert launcher.in_place and launcher.vector_width == 4
    wp.launch(plan_scale, dim=n, inputs=[x, y, 2.0], device="cuda:0")
    launch = fake_cuda.launches[-1]  # the vector entry over ceil(n / 4) threads
    assert launch["symbol"].endswith("_entry_v") and launch["grid"] == (n // 4 + 255) // 256
    # (the stand-in runs the kernel's CPU build over all n threads, whatever the entry)
    np.testing.assert_allclose(y.numpy(), 2.0 * np.arange(n))
    wp.launch(plan_scale, dim=n - 1, inputs=[x[1:], y[1:], 3.0], device="cuda:0")  # unaligned
    assert fake_cuda.launches[-1]["symbol"].endswith("_entry_s")
    cmd = wp.launch(plan_scale, dim=n, inputs=[x, y, 4.0], device="cuda:0", record_cmd=True)
    cmd.launch()
    assert fake_cuda.launches[-1]["symbol"].endswith("_entry_v")
    np.testing.assert_allclose(y.numpy(), 4.0 * np.arange(n))
