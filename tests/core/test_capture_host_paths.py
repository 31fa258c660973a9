"""Graph capture refuses the array operations it cannot record (they would not replay)."""

import numpy as np
import pytest

import warp as wp


def test_contiguous_fill_and_copy_replay():
    a = wp.zeros(4, dtype=wp.int32)
    src = wp.array(np.arange(4, dtype=np.int32))
    with wp.ScopedCapture(device="cpu") as cap:
        a.fill_(7)
        wp.copy(a, src, dest_offset=1, count=2)
    a.zero_()
    src.assign(np.arange(4, dtype=np.int32) * 10)
    wp.capture_launch(cap.graph)
    np.testing.assert_array_equal(a.numpy(), [7, 0, 10, 7])


@pytest.mark.parametrize("op", ["fill", "zero", "copy", "convert"])
def test_host_side_array_operations_are_refused_while_capturing(op):
    arr = wp.zeros((4, 4), dtype=wp.int32)
    col = arr[:, 0]
    src = wp.array(np.arange(16, dtype=np.int32).reshape(4, 4))
    run = {
        "fill": lambda: col.fill_(42),
        "zero": lambda: col.zero_(),
        "copy": lambda: wp.copy(col, src[:, 0]),
        "convert": lambda: wp.copy(wp.zeros(4, dtype=float), wp.zeros(4, dtype=wp.float64)),
    }[op]
    with wp.ScopedCapture(device="cpu"):
        with pytest.raises(NotImplementedError, match="cannot be recorded by graph capture on device 'cpu'"):
            run()
    run()  # outside a capture it works


def test_host_computed_utils_are_refused_while_capturing():
    # the CPU computes wp.utils on the host (CUDA devices run them in kernels, which a capture
    # records: tests/builtins/test_device_utils.py, test_device_segmented.py, test_device_cast.py)
    keys = wp.array(np.int32([3, 1, 2, 0, 0, 0, 0, 0]))
    values = wp.array(np.arange(8, dtype=np.int32))
    segments = wp.array(np.int32([0, 4]))
    message = r"wp.utils functions .* cannot be recorded by graph capture"
    with wp.ScopedCapture(device="cpu", force_module_load=False):
        with pytest.raises(NotImplementedError, match=message):
            wp.utils.segmented_sort_pairs(keys, values, 4, segments)
        with pytest.raises(NotImplementedError, match=message):
            wp.utils.array_cast(values, wp.zeros(8, dtype=wp.float32))
    wp.utils.segmented_sort_pairs(keys, values, 4, segments)  # outside a capture it works
    np.testing.assert_array_equal(keys.numpy()[:4], [0, 1, 2, 3])
    np.testing.assert_array_equal(values.numpy()[:4], [3, 1, 2, 0])


@pytest.mark.needs_plugin("builtins")  # the device kernels of wp.utils are warp-builtins'
def test_segmented_sort_is_recorded_on_cuda_devices(fake_cuda):
    keys = wp.array(np.int32([3, 1, 2, 0, 0, 0, 0, 0]), device="cuda:0")
    values = wp.array(np.arange(8, dtype=np.int32), device="cuda:0")
    segments = wp.array(np.int32([0, 4]), device="cuda:0")
    with wp.ScopedCapture(device="cuda:0") as capture:
        wp.utils.segmented_sort_pairs(keys, values, 4, segments)
    np.testing.assert_array_equal(values.numpy()[:4], [0, 1, 2, 3])  # recorded, not run
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(keys.numpy()[:4], [0, 1, 2, 3])
    np.testing.assert_array_equal(values.numpy()[:4], [3, 1, 2, 0])


def test_radix_sort_is_refused_while_capturing_on_the_cpu():
    keys = wp.array(np.int32([3, 1, 2, 0, 0, 0, 0, 0]))
    values = wp.array(np.arange(8, dtype=np.int32))
    with wp.ScopedCapture(device="cpu", force_module_load=False):
        with pytest.raises(NotImplementedError, match=r"wp.utils functions .* cannot be recorded"):
            wp.utils.radix_sort_pairs(keys, values, 4)
