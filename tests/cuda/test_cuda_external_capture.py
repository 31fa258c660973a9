"""``wp.capture_begin(external=True)``: Warp's work joins a capture another framework (PyTorch's
``torch.cuda.graph``) began on the stream; that framework ends it and replays the graph."""

import numpy as np
import pytest

import warp as wp
from warp.targets.cuda import driver as drv


@wp.kernel
def _inc(a: wp.array(dtype=wp.float32)):
    i = wp.tid()
    a[i] = a[i] + 1.0


def _foreign_begin(cu, stream):
    mode = cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL
    drv.check(cu.cuStreamBeginCapture(stream.handle, mode), "cuStreamBeginCapture")


def test_external_capture_records_into_the_foreign_graph(fake_cuda):
    a = wp.zeros(16, dtype=wp.float32, device="cuda:0")
    wp.launch(_inc, dim=16, inputs=[a], device="cuda:0")  # loaded before the capture
    stream = wp.Stream("cuda:0")
    _foreign_begin(fake_cuda, stream)
    with wp.ScopedStream(stream, sync_enter=False):
        wp.capture_begin(force_module_load=False, external=True)
        assert wp.get_device("cuda:0").is_capturing
        try:
            wp.launch(_inc, dim=16, inputs=[a])
            a.fill_(5.0)
            wp.launch(_inc, dim=16, inputs=[a])
        finally:
            assert wp.capture_end() is None  # the foreign framework owns the graph
    assert stream.is_capturing  # still capturing: its owner ends it
    assert not wp.get_device("cuda:0").is_capturing
    graph = drv.check(fake_cuda.cuStreamEndCapture(stream.handle), "cuStreamEndCapture")
    np.testing.assert_array_equal(a.numpy(), 1.0)  # nothing ran yet
    graph_exec = drv.check(fake_cuda.cuGraphInstantiate(graph, 0), "cuGraphInstantiate")
    drv.check(fake_cuda.cuGraphLaunch(graph_exec, stream.handle), "cuGraphLaunch")
    np.testing.assert_array_equal(a.numpy(), 6.0)
    drv.check(fake_cuda.cuGraphExecDestroy(graph_exec), "cuGraphExecDestroy")


def test_external_capture_needs_a_capturing_stream(fake_cuda):
    stream = wp.Stream("cuda:0")
    with pytest.raises(RuntimeError, match="external=True.*is not capturing"):
        wp.capture_begin(stream=stream, force_module_load=False, external=True)
    assert not wp.get_device("cuda:0").is_capturing


def test_warp_capture_of_an_already_capturing_stream_fails_clearly(fake_cuda):
    stream = wp.Stream("cuda:0")
    _foreign_begin(fake_cuda, stream)
    try:
        with pytest.raises(RuntimeError, match="ILLEGAL_STATE"):
            wp.capture_begin(stream=stream, force_module_load=False)
    finally:
        fake_cuda.cuStreamEndCapture(stream.handle)
