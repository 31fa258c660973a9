"""Reading device memory on the host during a graph capture is refused: the capture only records
the copy, so the host would read whatever its buffer held (a silent wrong value). After the
graph is launched, the values read are those the replayed work wrote."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp


@wp.kernel
def _fill(a: wp.array(dtype=wp.int32), v: int):
    i = wp.tid()
    a[i] = v + i


def test_numpy_of_a_device_array_while_capturing_is_refused(fake_cuda) -> None:
    a = wp.zeros(4, dtype=wp.int32, device="cuda:0")
    wp.load_module(device="cuda:0")
    with wp.ScopedCapture("cuda:0", force_module_load=False) as capture:
        wp.launch(_fill, dim=4, inputs=[a, 10], device="cuda:0")
        message = r"a host copy of a device array \(\.numpy\(\).*capture is active on device 'cuda:0'"
        with pytest.raises(RuntimeError, match=message + ".*after wp.capture_launch"):
            a.numpy()
    np.testing.assert_array_equal(a.numpy(), [0, 0, 0, 0])  # nothing ran yet
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(a.numpy(), [10, 11, 12, 13])


def test_strided_upload_while_capturing_is_refused(fake_cuda) -> None:
    a = wp.zeros(8, dtype=wp.int32, device="cuda:0")
    with wp.ScopedCapture("cuda:0", force_module_load=False):
        with pytest.raises(RuntimeError, match="graph capture is active on device .cuda:0."):
            a[::2].assign(np.arange(4, dtype=np.int32))
    np.testing.assert_array_equal(a.numpy(), np.zeros(8))


def test_upload_captured_from_a_temporary_replays_its_values(fake_cuda) -> None:
    """``wp.array(numpy)`` or ``assign`` inside a capture: the graph's copy reads the staged host
    buffer on every replay, so the graph keeps it alive (it was freed before: the replay read
    freed memory)."""
    a = wp.zeros(4, dtype=wp.int32, device="cuda:0")
    with wp.ScopedCapture("cuda:0", force_module_load=False) as capture:
        a.assign(np.array([5, 6, 7, 8], dtype=np.float64))  # converted: a temporary staging buffer
    import gc

    gc.collect()
    np.testing.assert_array_equal(a.numpy(), [0, 0, 0, 0])
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(a.numpy(), [5, 6, 7, 8])
    a.zero_()
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(a.numpy(), [5, 6, 7, 8])
