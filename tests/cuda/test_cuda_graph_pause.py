"""``wp.capture_pause`` / ``wp.capture_resume`` on (fake) CUDA devices: one graph, captured in parts."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp


@wp.kernel
def add_one(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0


@wp.kernel
def double(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] * 2.0


def _loaded(n: int = 4) -> wp.array:
    a = wp.zeros(n, dtype=float, device="cuda:0")
    wp.launch(add_one, dim=n, inputs=[a], device="cuda:0")  # load both kernels before capturing
    wp.launch(double, dim=n, inputs=[a], device="cuda:0")
    a.zero_()
    return a


def test_pause_and_resume_build_one_graph(fake_cuda) -> None:
    a = _loaded()
    wp.capture_begin("cuda:0")
    wp.launch(double, dim=4, inputs=[a], device="cuda:0")
    partial = wp.capture_pause("cuda:0")
    assert not wp.get_device("cuda:0").is_capturing
    wp.launch(add_one, dim=4, inputs=[a], device="cuda:0")  # runs now, not captured
    np.testing.assert_array_equal(a.numpy(), np.ones(4))
    wp.capture_resume(partial)
    assert wp.get_device("cuda:0").is_capturing
    wp.launch(add_one, dim=4, inputs=[a], device="cuda:0")
    graph = wp.capture_end("cuda:0")
    assert graph.commands is partial.commands
    assert "cuStreamBeginCaptureToGraph" in fake_cuda.calls
    np.testing.assert_array_equal(a.numpy(), np.ones(4))  # captured work has not run
    wp.capture_launch(graph)  # double, then add_one (the resumed part follows the first)
    np.testing.assert_array_equal(a.numpy(), np.full(4, 3.0))
    wp.capture_launch(graph)
    np.testing.assert_array_equal(a.numpy(), np.full(4, 7.0))


def test_paused_graph_can_be_launched_and_resumed_later(fake_cuda) -> None:
    a = _loaded()
    wp.capture_begin("cuda:0")
    wp.launch(add_one, dim=4, inputs=[a], device="cuda:0")
    partial = wp.capture_pause("cuda:0")
    wp.capture_launch(partial)  # instantiated on demand: the part captured so far
    np.testing.assert_array_equal(a.numpy(), np.ones(4))
    wp.capture_resume(partial, device="cuda:0")
    wp.launch(double, dim=4, inputs=[a], device="cuda:0")
    with pytest.raises(RuntimeError, match="being captured into"):
        wp.capture_launch(partial)
    graph = wp.capture_end("cuda:0")
    wp.capture_launch(graph)  # the whole graph now, not the instance made while paused
    np.testing.assert_array_equal(a.numpy(), np.full(4, 4.0))


def test_pause_of_an_empty_capture_and_on_another_stream(fake_cuda) -> None:
    a = _loaded()
    s = wp.Stream("cuda:0")
    wp.capture_begin("cuda:0")
    partial = wp.capture_pause("cuda:0")  # nothing captured yet: no dependencies to resume after
    wp.capture_resume(partial, stream=s)
    wp.launch(add_one, dim=4, inputs=[a], device="cuda:0", stream=s)
    graph = wp.capture_end(stream=s)
    wp.capture_launch(graph)
    np.testing.assert_array_equal(a.numpy(), np.ones(4))


def test_pause_and_resume_errors(fake_cuda) -> None:
    _loaded()
    with pytest.raises(RuntimeError, match="no graph capture is active on device 'cuda:0'"):
        wp.capture_pause("cuda:0")
    wp.capture_begin("cuda:0")
    ended = wp.capture_end("cuda:0")
    with pytest.raises(RuntimeError, match="ended, not paused"):
        wp.capture_resume(ended)
    wp.capture_begin("cuda:0")
    partial = wp.capture_pause("cuda:0")
    wp.capture_begin("cuda:0")
    with pytest.raises(RuntimeError, match="already active on device 'cuda:0'"):
        wp.capture_resume(partial)
    wp.capture_end("cuda:0")
    with pytest.raises(ValueError, match="captured on 'cuda:0', not on 'cuda:1'"):
        wp.capture_resume(partial, device="cuda:1")
    with pytest.raises(TypeError, match="capture_resume expects a Graph"):
        wp.capture_resume("graph")


def test_pause_needs_bindings_that_report_capture_dependencies(fake_cuda, monkeypatch) -> None:
    from cuda.bindings import driver as real

    _loaded()
    # cuda-python before 12.3: (result, status, id) only
    active = real.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE
    monkeypatch.setattr(
        fake_cuda, "cuStreamGetCaptureInfo", lambda stream: (real.CUresult.CUDA_SUCCESS, active, 1),
        raising=False,
    )
    wp.capture_begin("cuda:0")
    with pytest.raises(RuntimeError, match="capture_pause on CUDA needs cuda-python"):
        wp.capture_pause("cuda:0")
    assert wp.get_device("cuda:0").is_capturing  # still active: it can be ended normally
    wp.capture_end("cuda:0")
