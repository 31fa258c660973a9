"""Fills and zeroing recorded by CUDA graph capture (on the stand-in driver, which refuses what
the real driver refuses while capturing: synchronizing calls, graph destruction, legacy-stream
work, and ending a capture whose forked streams did not join back)."""

import numpy as np
import pytest

import warp as wp


def _forked_capture(outer, inner, work):
    """Capture ``work`` run on ``inner``, forked from and joined back into ``outer``'s capture."""
    with wp.ScopedCapture(device=outer.device, stream=outer, force_module_load=False) as capture:
        fork = wp.Event(outer.device)
        outer.record_event(fork)
        inner.wait_event(fork)
        with wp.ScopedStream(inner, sync_enter=False):
            work()
        join = wp.Event(outer.device)
        inner.record_event(join)
        outer.wait_event(join)
    return capture.graph


@pytest.mark.parametrize(
    "dtype, value, np_type", [(wp.bool, True, np.bool_), (wp.int8, -3, np.int8), (wp.uint8, 7, np.uint8)]
)
def test_byte_fill_captures_replay_after_previous_graph_dropped(fake_cuda, dtype, value, np_type):
    # the second capture drops the first graph while capturing: destroying it must wait
    with wp.ScopedDevice("cuda:0"):
        for round_ in range(2):
            arr = wp.zeros(8, dtype=dtype)
            with wp.ScopedCapture(force_module_load=False) as capture:  # rebinding drops the old one
                arr.fill_(value)
            assert arr.numpy().sum() == 0, f"round {round_}: the fill ran while capturing"
            wp.capture_launch(capture.graph)
            np.testing.assert_array_equal(arr.numpy(), np.full(8, value, dtype=np_type))
    assert not fake_cuda.invalidated


def test_vec3_fill_on_forked_stream_is_captured(fake_cuda):
    outer, inner = wp.Stream("cuda:0"), wp.Stream("cuda:0")
    arr = wp.zeros(8, dtype=wp.vec3, device="cuda:0")
    graph = _forked_capture(outer, inner, lambda: arr.fill_(wp.vec3(1.0, 2.0, 3.0)))
    assert not arr.numpy().any()
    wp.capture_launch(graph)
    np.testing.assert_array_equal(arr.numpy(), np.tile(np.float32([1, 2, 3]), (8, 1)))


def test_strided_fill_on_forked_stream_is_captured(fake_cuda):
    outer, inner = wp.Stream("cuda:0"), wp.Stream("cuda:0")
    arr = wp.zeros((4, 8), dtype=wp.float32, device="cuda:0")
    view = arr[:, ::2]
    assert not view.is_contiguous
    graph = _forked_capture(outer, inner, lambda: view.fill_(7.0))
    assert not arr.numpy().any()
    wp.capture_launch(graph)
    expected = np.zeros((4, 8), np.float32)
    expected[:, ::2] = 7.0
    np.testing.assert_array_equal(arr.numpy(), expected)


@pytest.mark.parametrize("vtype", [wp.vec3, wp.mat22, wp.vec2h, wp.vec3ub])
def test_strided_fill_and_zero_of_vecmat_replay(fake_cuda, vtype):
    arr = wp.zeros(10, dtype=vtype, device="cuda:0")
    view = arr[1::3]
    np_scalar = wp.dtype_to_numpy(vtype._wp_scalar_type_)
    with wp.ScopedCapture("cuda:0", force_module_load=False) as fill_capture:
        view.fill_(vtype(np_scalar(5)))
    with wp.ScopedCapture("cuda:0", force_module_load=False) as zero_capture:
        view.zero_()
    wp.capture_launch(fill_capture.graph)
    expected = np.zeros((10, *vtype._shape_), np_scalar)
    expected[1::3] = 5
    np.testing.assert_array_equal(arr.numpy(), expected)
    arr.fill_(vtype(np_scalar(2)))
    wp.capture_launch(zero_capture.graph)
    expected[:] = 2
    expected[1::3] = 0
    np.testing.assert_array_equal(arr.numpy(), expected)


def test_strided_fill_without_capture_matches_numpy(fake_cuda):
    # 3-d views, an odd-sized struct-like element (3 bytes: byte-wise memsets), a single row
    arr = wp.zeros((3, 4, 5), dtype=wp.vec3ub, device="cuda:0")
    arr[1:, ::2, 1::3].fill_(wp.vec3ub(1, 2, 3))
    expected = np.zeros((3, 4, 5, 3), np.uint8)
    expected[1:, ::2, 1::3] = [1, 2, 3]
    np.testing.assert_array_equal(arr.numpy(), expected)
    single = wp.zeros((2, 3), dtype=wp.float64, device="cuda:0")
    single[1:, :2].fill_(4.5)
    np.testing.assert_array_equal(single.numpy(), [[0, 0, 0], [4.5, 4.5, 0]])


def test_stand_in_refuses_synchronizing_calls_during_capture(fake_cuda):
    stream = wp.get_stream("cuda:0")
    wp.capture_begin("cuda:0", force_module_load=False)
    try:
        result = fake_cuda.cuStreamSynchronize(stream.handle)  # (warp refuses to call it then)
        assert result[0] == fake_cuda.CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
    finally:
        with pytest.raises(RuntimeError, match="STREAM_CAPTURE_INVALIDATED"):
            wp.capture_end("cuda:0")
    assert not stream.is_capturing


def test_stand_in_refuses_unjoined_fork(fake_cuda):
    """The stand-in refuses to end a capture whose forked stream was not joined back, as the
    driver does (warp's capture end joins such streams first: test_cuda_capture_forks.py)."""
    cu = fake_cuda
    outer, inner = wp.Stream("cuda:0"), wp.Stream("cuda:0")
    mode = cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
    assert int(cu.cuStreamBeginCapture(outer.handle, mode)[0]) == 0
    event = cu.cuEventCreate(0)[1]
    cu.cuEventRecord(event, outer.handle)
    cu.cuStreamWaitEvent(inner.handle, event, 0)
    assert inner.is_capturing
    err = cu.cuStreamEndCapture(outer.handle)[0]
    assert err == cu.CUresult.CUDA_ERROR_STREAM_CAPTURE_UNJOINED
    assert not inner.is_capturing
    cu.cuEventDestroy(event)
