"""``wp.copy(..., stream=...)`` issues the driver copy on the given stream."""

import numpy as np
import pytest

import warp as wp


def test_copy_runs_on_the_given_stream(fake_cuda):
    src = wp.array(np.arange(6, dtype=np.float32), device="cuda:0")
    dst = wp.zeros(6, dtype=wp.float32, device="cuda:0")
    side = wp.Stream("cuda:0")
    # only the side stream records: a copy issued anywhere else would run at once
    with wp.ScopedCapture(stream=side, force_module_load=False) as capture:
        wp.copy(dst, src, dest_offset=1, src_offset=2, count=3, stream=side)
    np.testing.assert_array_equal(dst.numpy(), 0.0)
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(dst.numpy(), [0, 2, 3, 4, 0, 0])


def test_copy_from_host_on_a_stream(fake_cuda):
    src = wp.array(np.arange(4, dtype=np.float32), device="cpu")
    dst = wp.zeros(4, dtype=wp.float32, device="cuda:0")
    wp.copy(dst, src, stream=wp.Stream("cuda:0"))
    np.testing.assert_array_equal(dst.numpy(), np.arange(4))


def test_copy_refuses_a_stream_of_another_device(fake_cuda):
    src = wp.zeros(4, dtype=wp.float32, device="cuda:0")
    dst = wp.zeros(4, dtype=wp.float32, device="cuda:0")
    with pytest.raises(RuntimeError, match="stream of device 'cuda:1'"):
        wp.copy(dst, src, stream=wp.Stream("cuda:1"))
