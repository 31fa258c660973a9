"""Paddle conversions: zero-copy views, dtypes, devices, gradients, descriptors and errors."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import warp as wp
from warp.types.bfloat16_bits import bits_of

from interop_kernels import scale2, square_sum, vec_norms

paddle = pytest.importorskip("paddle")


@wp.kernel
def add_index(m: wp.array2d(dtype=float)):
    i, j = wp.tid()
    m[i, j] = m[i, j] + float(i * 10 + j)


SCALARS = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]


@pytest.mark.parametrize("name", SCALARS)
def test_dtype_maps_round_trip(name):
    assert wp.dtype_from_paddle(getattr(paddle, name)) is getattr(wp, name)
    assert wp.dtype_to_paddle(getattr(wp, name)) == getattr(paddle, name)


def test_unsigned_and_unsupported_dtypes():
    assert wp.dtype_to_paddle(wp.uint16) == paddle.int16
    assert wp.dtype_to_paddle(wp.uint32) == paddle.int32
    assert wp.dtype_to_paddle(wp.uint64) == paddle.int64
    for name in ("complex64", "complex128"):
        with pytest.raises(TypeError, match="cannot convert paddle dtype"):
            wp.dtype_from_paddle(getattr(paddle, name))
    with pytest.raises(TypeError, match="has no matching warp type"):
        wp.from_paddle(paddle.zeros([3], dtype=paddle.complex64))


def test_bfloat16_tensors_are_shared_both_ways():
    assert wp.dtype_from_paddle(paddle.bfloat16) is wp.bfloat16
    assert wp.dtype_to_paddle(wp.bfloat16) == paddle.bfloat16
    t = paddle.to_tensor([1.0, -2.5, 1 / 3], dtype=paddle.bfloat16)
    a = wp.from_paddle(t)
    assert a.dtype is wp.bfloat16 and a.ptr == t.data_ptr()
    # the same bit patterns (NumPy sees bfloat16 as uint16 on both sides)
    assert np.array_equal(bits_of(a.numpy()), t.numpy().view(np.uint16))
    a.fill_(0.1)
    expected = bits_of(wp.array([0.1], dtype=wp.bfloat16).numpy())[0]
    assert t.numpy().view(np.uint16)[0] == expected  # shared memory
    back = wp.to_paddle(wp.array(np.array([1.0, 2.0, 3.0], dtype=np.float32), dtype=wp.bfloat16))
    assert back.dtype == paddle.bfloat16
    np.testing.assert_array_equal(back.astype(paddle.float32).numpy(), [1.0, 2.0, 3.0])


def test_device_maps():
    cpu = wp.get_device("cpu")
    assert wp.device_from_paddle("cpu") == cpu
    assert wp.device_from_paddle(paddle.CPUPlace()) == cpu
    if paddle.is_compiled_with_cuda():
        assert wp.device_from_paddle(paddle.CUDAPinnedPlace()) == cpu
    assert wp.device_from_paddle(paddle.zeros([1]).place) == cpu
    assert wp.device_to_paddle("cpu") == "cpu"
    with pytest.raises(RuntimeError, match="no corresponding warp device"):
        wp.device_from_paddle("xpu:0")
    if not wp.is_cuda_available():
        with pytest.raises(RuntimeError, match="CUDA"):
            wp.device_from_paddle("gpu:0")


def test_stream_from_paddle_is_cuda_only():
    with pytest.raises(RuntimeError, match="no CUDA stream"):
        wp.stream_from_paddle("cpu")


def test_from_paddle_is_zero_copy_and_strided():
    base = paddle.arange(24, dtype=paddle.float32).reshape([4, 6])
    a = wp.from_paddle(base)
    assert a.ptr == base.data_ptr() and a.shape == (4, 6)
    t = base.transpose([1, 0])
    at = wp.from_paddle(t)
    assert at.shape == (6, 4) and at.strides == (4, 24)
    np.testing.assert_array_equal(at.numpy(), base.numpy().T)
    view = base[1:, 2:5]
    av = wp.from_paddle(view)
    expected = view.numpy() + np.add.outer(10 * np.arange(3), np.arange(3))
    wp.launch(add_index, dim=(3, 3), inputs=[av])
    np.testing.assert_array_equal(base.numpy()[1:, 2:5], expected)


def test_from_paddle_vector_dtype_and_errors():
    t = paddle.to_tensor([[3.0, 4.0, 0.0], [1.0, 2.0, 2.0]])
    out = wp.zeros(2, dtype=float)
    wp.launch(vec_norms, dim=2, inputs=[wp.from_paddle(t, dtype=wp.vec3), out])
    np.testing.assert_allclose(out.numpy(), [5.0, 3.0])
    with pytest.raises(TypeError, match="trailing dimensions"):
        wp.from_paddle(paddle.zeros([4, 2]), dtype=wp.vec3)
    with pytest.raises(TypeError, match="expected a paddle.Tensor"):
        wp.from_paddle(np.zeros(3))
    assert wp.from_paddle(paddle.to_tensor(1.5)).numpy().tolist() == [1.5]


def test_gradients_allocate_and_share_tensor_grad():
    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    l = paddle.zeros([1])
    l.stop_gradient = False
    wx, wl = wp.from_paddle(x), wp.from_paddle(l)
    assert wx.grad.ptr == x.grad.data_ptr()
    tape = wp.Tape()
    with tape:
        wp.launch(square_sum, dim=3, inputs=[wx, wl])
    tape.backward(loss=wl)
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0, 6.0])
    assert l.item() == 14.0
    assert wp.from_paddle(paddle.zeros([2])).grad is None  # stop_gradient=True: no gradient
    explicit = paddle.full([2], 4.0)
    assert wp.from_paddle(paddle.zeros([2]), grad=explicit).grad.ptr == explicit.data_ptr()


def test_to_paddle_shares_data_and_gradient():
    a = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    t = wp.to_paddle(a)
    assert not t.stop_gradient and t.data_ptr() == a.ptr and t.grad.data_ptr() == a.grad.ptr
    a.grad.fill_(3.0)
    assert t.grad.numpy().tolist() == [3.0, 3.0]
    assert wp.to_paddle(a, requires_grad=False).stop_gradient
    u = wp.to_paddle(wp.array([1, 2], dtype=wp.uint64))
    assert u.dtype == paddle.int64 and u.numpy().tolist() == [1, 2]
    v = wp.to_paddle(wp.array(np.ones((2, 3), dtype=np.float32), dtype=wp.vec3))
    assert list(v.shape) == [2, 3]
    with pytest.raises(TypeError, match="array descriptor"):
        wp.to_paddle(wp.from_paddle(paddle.zeros([2]), return_ctype=True))


def test_tensors_in_launch_are_written_in_place_or_rejected():
    x = paddle.arange(4, dtype=paddle.float32)
    x.stop_gradient = False
    out = paddle.zeros([4])
    wp.launch(scale2, dim=4, inputs=[x, out])
    np.testing.assert_array_equal(out.numpy(), [0.0, 2.0, 4.0, 6.0])
    strided = paddle.zeros([4, 4])[:, 1]  # a strided view: written in place too
    wp.launch(scale2, dim=4, inputs=[x, strided])
    np.testing.assert_array_equal(strided.numpy(), [0.0, 2.0, 4.0, 6.0])
    expected = "kernel 'scale2', argument 'out': expected an array of float32, got an array of float64"
    with pytest.raises(TypeError, match=expected):
        wp.launch(scale2, dim=4, inputs=[x, paddle.zeros([4], dtype=paddle.float64)])


def test_descriptors_launch_and_keep_tensors_alive():
    x = paddle.arange(3, dtype=paddle.float32)
    out = paddle.zeros([3])
    d = wp.from_paddle(out, return_ctype=True)
    wp.launch(scale2, dim=3, inputs=[wp.from_paddle(x, return_ctype=True), d])
    np.testing.assert_array_equal(out.numpy(), [0.0, 2.0, 4.0])
    with pytest.raises(TypeError, match="descriptor"):
        d.numpy()


def test_descriptor_fields_and_retain_grad():
    t = paddle.zeros([4, 3], dtype="float32")
    d = wp.from_paddle(t, dtype=wp.vec3, return_ctype=True)
    assert d.data == t.data_ptr() and d.grad == 0 and d.ndim == 1
    assert d.shape[0] == 4 and d.strides[0] == 12
    t.stop_gradient = False
    a = wp.from_paddle(t, requires_grad=True, retain_grad=True)
    assert a.retain_grad and a.grad is not None
    assert not wp.from_paddle(t, requires_grad=True).retain_grad
    with pytest.raises(ValueError, match="retain_grad=True needs requires_grad=True"):
        wp.from_paddle(paddle.zeros([2]), requires_grad=False, retain_grad=True)
    with pytest.raises(ValueError, match="from_paddle: retain_grad=True needs a wp.array"):
        wp.from_paddle(t, requires_grad=True, retain_grad=True, return_ctype=True)


def test_arrays_keep_tensor_memory_alive():
    t = paddle.arange(100, dtype=paddle.float32)
    ref = weakref.ref(t)
    view = wp.from_paddle(t)[5:8]
    del t
    gc.collect()
    assert ref() is not None
    np.testing.assert_array_equal(view.numpy(), [5.0, 6.0, 7.0])
    del view
    gc.collect()
    assert ref() is None


def test_older_warp_paddle_module_spelling():
    import warp.paddle

    assert warp.paddle.from_paddle is wp.from_paddle
