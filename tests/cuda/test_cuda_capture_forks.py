"""Streams forked into a graph capture and not joined back (NVIDIA Warp's
test_cuda_graph_alloc_transient_stream): the capture's end joins them, as in Warp, instead of
the driver refusing to end it (CUDA_ERROR_STREAM_CAPTURE_UNJOINED on an H200)."""

from __future__ import annotations

import numpy as np

import warp as wp


@wp.kernel
def add_value(a: wp.array(dtype=float), value: float):
    i = wp.tid()
    a[i] = a[i] + value


def test_scoped_side_stream_work_ends_the_graph(fake_cuda) -> None:
    host = wp.full(64, 42.0, dtype=float, device="cpu", pinned=True)
    with wp.ScopedCapture("cuda:0") as capture:
        with wp.ScopedStream(wp.Stream("cuda:0")):  # forks (sync_enter), never joins (no sync_exit)
            c = wp.empty(64, dtype=float, device="cuda:0")
            wp.copy(c, host)
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(c.numpy(), np.full(64, 42.0, dtype=np.float32))
    assert not fake_cuda.violations


def test_streams_forked_with_wait_stream_are_joined(fake_cuda) -> None:
    a = wp.zeros(32, dtype=float, device="cuda:0")
    b = wp.zeros(32, dtype=float, device="cuda:0")
    side1, side2 = wp.Stream("cuda:0"), wp.Stream("cuda:0")
    with wp.ScopedCapture("cuda:0") as capture:
        main = wp.get_stream("cuda:0")
        side1.wait_stream(main)
        side2.wait_stream(main)
        wp.launch(add_value, 32, inputs=[a, 1.0], stream=side1)
        wp.launch(add_value, 32, inputs=[b, 2.0], stream=side2)
    for _ in range(2):
        wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(a.numpy(), np.full(32, 2.0, dtype=np.float32))
    np.testing.assert_array_equal(b.numpy(), np.full(32, 4.0, dtype=np.float32))
    assert not fake_cuda.violations
