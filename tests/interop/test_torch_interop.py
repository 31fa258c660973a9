"""PyTorch conversions: zero-copy views, dtypes, devices, gradients, descriptors and errors."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import warp as wp
from warp.types.bfloat16_bits import bits_of

from interop_kernels import scale2, square_sum, vec_norms

torch = pytest.importorskip("torch")


@wp.kernel
def add_rows(m: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    out[i, j] = m[i, j] + float(i * 10 + j)


@pytest.mark.parametrize(
    "torch_dtype, wp_dtype",
    [("float16", "float16"), ("float32", "float32"), ("float64", "float64"), ("int8", "int8"),
     ("int16", "int16"), ("int32", "int32"), ("int64", "int64"), ("uint8", "uint8"), ("bool", "bool")],
)
def test_dtype_maps_round_trip(torch_dtype, wp_dtype):
    t, w = getattr(torch, torch_dtype), getattr(wp, wp_dtype)
    assert wp.dtype_from_torch(t) is w
    assert wp.dtype_to_torch(w) is t


def test_unsigned_types_map_to_signed_torch_types_of_the_same_width():
    assert wp.dtype_to_torch(wp.uint16) is torch.int16
    assert wp.dtype_to_torch(wp.uint32) is torch.int32
    assert wp.dtype_to_torch(wp.uint64) is torch.int64
    assert wp.dtype_to_torch(wp.vec3) is torch.float32  # components of composite types
    assert wp.dtype_to_torch(float) is torch.float32


@pytest.mark.parametrize("torch_dtype", ["complex64", "complex128"])
def test_unsupported_torch_dtypes_raise_type_error(torch_dtype):
    with pytest.raises(TypeError, match="cannot convert torch dtype"):
        wp.dtype_from_torch(getattr(torch, torch_dtype))
    with pytest.raises(TypeError, match="has no matching warp type"):
        wp.from_torch(torch.zeros(3, dtype=getattr(torch, torch_dtype)))


def test_bfloat16_tensors_are_shared_both_ways():
    t = torch.tensor([1.0, -2.5, 1 / 3, 1e39], dtype=torch.bfloat16)
    assert wp.dtype_from_torch(torch.bfloat16) is wp.bfloat16
    assert wp.dtype_to_torch(wp.bfloat16) is torch.bfloat16
    a = wp.from_torch(t)
    assert a.dtype is wp.bfloat16 and a.ptr == t.data_ptr()
    assert a.list() == t.float().tolist()  # torch rounds to nearest even as warp does
    a[0] = 0.1
    assert t[0].item() == wp.bfloat16(0.1).value  # shared memory
    back = wp.to_torch(a)
    assert back.dtype is torch.bfloat16 and back.data_ptr() == a.ptr
    v3bf = wp.types.vector(3, wp.bfloat16)
    m = wp.from_torch(torch.ones((2, 3), dtype=torch.bfloat16), dtype=v3bf)
    assert m.dtype is v3bf and m.list()[1].tolist() == [1.0, 1.0, 1.0]
    # values converted by torch and by warp agree bit for bit
    x = torch.randn(1000, dtype=torch.float32) * 100
    torch_bits = x.to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
    assert np.array_equal(bits_of(wp.array(x.numpy(), dtype=wp.bfloat16).numpy()), torch_bits)


def test_device_maps():
    assert wp.device_from_torch("cpu") == wp.get_device("cpu")
    assert wp.device_from_torch(torch.device("cpu")) == wp.get_device("cpu")
    assert wp.device_to_torch("cpu") == "cpu"
    assert wp.device_to_torch(wp.get_device("cpu")) == "cpu"
    with pytest.raises(RuntimeError, match="no corresponding warp device"):
        wp.device_from_torch("meta")
    if not wp.is_cuda_available():
        with pytest.raises(RuntimeError, match="CUDA"):
            wp.device_from_torch("cuda:0")


def test_streams_are_cuda_only():
    with pytest.raises(RuntimeError, match="CUDA"):
        wp.stream_from_torch("cpu")
    with pytest.raises(RuntimeError, match="no CUDA stream"):
        wp.stream_to_torch("cpu")
    if not torch.cuda.is_available():
        with pytest.raises(RuntimeError, match="CUDA"):
            wp.stream_from_torch()


def test_from_torch_is_zero_copy_both_ways():
    t = torch.arange(6, dtype=torch.float32)
    a = wp.from_torch(t)
    assert a.ptr == t.data_ptr() and a.shape == (6,) and a.dtype is wp.float32
    out = torch.zeros(6)
    wp.launch(scale2, dim=6, inputs=[a, wp.from_torch(out)])
    np.testing.assert_array_equal(out.numpy(), 2.0 * np.arange(6))
    a.numpy()[0] = 7.0
    assert t[0].item() == 7.0


def test_from_torch_strided_views():
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    view = base[1:, ::2]  # rows 1..3, every other column
    a = wp.from_torch(view)
    assert a.shape == (3, 3) and a.strides == (24, 8) and not a.is_contiguous
    out = wp.zeros((3, 3), dtype=float)
    wp.launch(add_rows, dim=(3, 3), inputs=[a, out])
    expected = view.numpy() + np.add.outer(10 * np.arange(3), np.arange(3))
    np.testing.assert_array_equal(out.numpy(), expected)
    transposed = wp.from_torch(base.t())
    np.testing.assert_array_equal(transposed.numpy(), base.numpy().T)


def test_from_torch_vector_dtype_from_trailing_dimensions():
    t = torch.tensor([[3.0, 4.0, 0.0], [1.0, 2.0, 2.0]])
    a = wp.from_torch(t, dtype=wp.vec3)
    assert a.shape == (2,) and a.dtype is wp.vec3
    out = wp.zeros(2, dtype=float)
    wp.launch(vec_norms, dim=2, inputs=[a, out])
    np.testing.assert_allclose(out.numpy(), [5.0, 3.0])
    m = wp.from_torch(torch.eye(3).repeat(4, 1, 1), dtype=wp.mat33)
    assert m.shape == (4,) and m.dtype is wp.mat33
    with pytest.raises(TypeError, match=r"trailing dimensions \(3,\)"):
        wp.from_torch(torch.zeros(5, 2), dtype=wp.vec3)
    with pytest.raises(TypeError, match="component types differ"):
        wp.from_torch(torch.zeros(5, 3, dtype=torch.float64), dtype=wp.vec3)


def test_from_torch_scalar_and_too_many_dimensions():
    assert wp.from_torch(torch.tensor(3.5)).numpy().tolist() == [3.5]
    with pytest.raises(ValueError, match="at most 4"):
        wp.from_torch(torch.zeros(1, 1, 1, 1, 1))
    with pytest.raises(TypeError, match="expected a torch.Tensor"):
        wp.from_torch(np.zeros(3))


def test_from_torch_gradients_allocate_and_share_tensor_grad():
    t = torch.zeros(4, requires_grad=True)
    a = wp.from_torch(t)
    assert a.requires_grad and t.grad is not None and a.grad.ptr == t.grad.data_ptr()
    b = wp.from_torch(torch.zeros(4, requires_grad=True), requires_grad=False)
    assert not b.requires_grad and b.grad is None
    explicit = torch.full((4,), 3.0)
    c = wp.from_torch(torch.zeros(4), grad=explicit)
    assert c.grad.ptr == explicit.data_ptr()
    d = wp.from_torch(torch.zeros(4), requires_grad=True)  # asked for explicitly
    assert d.grad is not None


def test_tape_gradients_land_in_tensor_grad():
    x_t = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    l_t = torch.zeros(1, requires_grad=True)
    x, l = wp.from_torch(x_t), wp.from_torch(l_t)
    tape = wp.Tape()
    with tape:
        wp.launch(square_sum, dim=3, inputs=[x, l])
    tape.backward(loss=l)
    np.testing.assert_allclose(x_t.grad.numpy(), [2.0, 4.0, 6.0])
    assert l_t.item() == 14.0


def test_to_torch_aliases_data_and_gradient():
    a = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    t = wp.to_torch(a)
    assert t.requires_grad and t.data_ptr() == a.ptr and t.grad.data_ptr() == a.grad.ptr
    a.grad.fill_(5.0)
    assert t.grad.tolist() == [5.0, 5.0]
    assert not wp.to_torch(a, requires_grad=False).requires_grad
    v = wp.array(np.ones((3, 2), dtype=np.float32), dtype=wp.vec2)
    tv = wp.to_torch(v)
    assert tuple(tv.shape) == (3, 2) and tv.dtype == torch.float32
    u = wp.to_torch(wp.array([1, 2], dtype=wp.uint32))
    assert u.dtype == torch.int32 and u.tolist() == [1, 2]


def test_to_torch_errors():
    with pytest.raises(TypeError, match="expected a warp array"):
        wp.to_torch(np.zeros(3))
    with pytest.raises(TypeError, match="expected a warp array"):
        wp.to_torch(wp.from_torch(torch.zeros(3), return_ctype=True))


def test_return_ctype_descriptor_launches_and_refuses_everything_else():
    x = torch.arange(5, dtype=torch.float32, requires_grad=True)
    d = wp.from_torch(x, return_ctype=True)
    out = torch.zeros(5)
    wp.launch(scale2, dim=5, inputs=[d, wp.from_torch(out, return_ctype=True)])
    np.testing.assert_array_equal(out.numpy(), 2.0 * np.arange(5))
    assert x.grad is not None  # the descriptor carries the gradient pointer too
    for use in (lambda: d.numpy(), lambda: d[0], lambda: np.asarray(d), lambda: wp.to_torch(d)):
        with pytest.raises(TypeError, match="descriptor"):
            use()


@wp.kernel
def _sq_norm(x: wp.array(dtype=wp.vec3), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = wp.dot(x[i], x[i])


def test_return_ctype_descriptor_exposes_array_t_fields():
    t = torch.zeros((6, 3), dtype=torch.float32)[::2]  # strided: 3 rows of 6 floats apart
    d = wp.from_torch(t, dtype=wp.vec3, return_ctype=True)
    assert d.data == t.data_ptr() and d.grad == 0
    assert d.ndim == 1 and d.shape[0] == 3 and d.strides[0] == t.stride(0) * 4
    g = torch.zeros_like(t)
    assert wp.from_torch(t, dtype=wp.vec3, grad=g, return_ctype=True).grad == g.data_ptr()
    w = wp.zeros(3, dtype=wp.vec3)
    assert wp.from_torch(t, dtype=wp.vec3, grad=w, return_ctype=True).grad == w.ptr
    r = torch.zeros(4, requires_grad=True)
    assert wp.from_torch(r, return_ctype=True).grad == r.grad.data_ptr()


def test_adjoint_launch_of_descriptors_uses_their_gradient_memory():
    rng = np.random.default_rng(3)
    xv = rng.standard_normal((5, 3)).astype(np.float32)
    x, xg = torch.from_numpy(xv.copy()), torch.zeros(5, 3)
    y, yg = torch.zeros(5), torch.ones(5)
    xd = wp.from_torch(x, dtype=wp.vec3, grad=xg, return_ctype=True)
    yd = wp.from_torch(y, grad=yg, return_ctype=True)
    wp.launch(_sq_norm, dim=5, inputs=[xd], outputs=[yd])
    np.testing.assert_allclose(y.numpy(), (xv * xv).sum(axis=1), rtol=1e-6)
    wp.launch(_sq_norm, dim=5, inputs=[xd], outputs=[yd], adjoint=True)
    np.testing.assert_allclose(xg.numpy(), 2.0 * xv, rtol=1e-6)  # d(x.x)/dx = 2x


def test_direct_tensors_in_launch_are_written_in_place_with_requires_grad():
    x = torch.arange(4, dtype=torch.float32, requires_grad=True)
    out = torch.zeros(4)
    wp.launch(scale2, dim=4, inputs=[x, out])
    np.testing.assert_array_equal(out.numpy(), [0.0, 2.0, 4.0, 6.0])
    v = torch.tensor([[0.0, 3.0, 4.0]])
    norms = torch.zeros(1)
    wp.launch(vec_norms, dim=1, inputs=[v, norms])
    assert norms.item() == 5.0


def test_direct_tensor_with_wrong_dtype_names_kernel_and_argument():
    expected = "kernel 'scale2', argument 'x': expected an array of float32, got an array of int64"
    with pytest.raises(TypeError, match=expected):
        wp.launch(scale2, dim=3, inputs=[torch.arange(3), torch.zeros(3)])


def test_arrays_keep_tensor_memory_alive():
    t = torch.arange(1000, dtype=torch.float32)
    ref = weakref.ref(t)
    a = wp.from_torch(t)
    view = a[10:20]
    del t, a
    gc.collect()
    assert ref() is not None  # the view still references the tensor
    np.testing.assert_array_equal(view.numpy(), np.arange(10, 20, dtype=np.float32))
    del view
    gc.collect()
    assert ref() is None


def test_to_torch_keeps_array_alive():
    a = wp.array(np.arange(8, dtype=np.float32))
    ref = weakref.ref(a)
    t = wp.to_torch(a)
    del a
    gc.collect()
    assert ref() is not None
    assert t.tolist() == list(range(8))
    del t
    gc.collect()
    assert ref() is None


def test_older_warp_torch_module_spelling():
    import warp.torch

    assert warp.torch.from_torch is wp.from_torch and warp.torch.to_torch is wp.to_torch


def test_dlpack_with_torch_both_ways():
    t = torch.arange(6, dtype=torch.float64).reshape(2, 3)
    a = wp.from_dlpack(t)
    assert a.ptr == t.data_ptr() and a.dtype is wp.float64 and a.shape == (2, 3)
    b = wp.from_dlpack(torch.utils.dlpack.to_dlpack(t))
    assert b.ptr == t.data_ptr()
    w = wp.array(np.arange(4, dtype=np.int32))
    consumers = (torch.utils.dlpack.from_dlpack(w), torch.utils.dlpack.from_dlpack(wp.to_dlpack(w)),
                 torch.from_dlpack(w))
    for tt in consumers:
        assert tt.data_ptr() == w.ptr and tt.dtype == torch.int32
        tt[0] = 9
        assert w.numpy()[0] == 9
        tt[0] = 0


@pytest.mark.slow
def test_temporaries_passed_to_a_launch_live_through_it():
    n = 1 << 16
    out = torch.zeros(n)
    # nothing else references these tensors: the launch arguments keep them alive
    wp.launch(scale2, dim=n, inputs=[torch.arange(n, dtype=torch.float32), out])
    np.testing.assert_array_equal(out.numpy(), 2.0 * np.arange(n, dtype=np.float32))
    out.zero_()
    source = wp.from_torch(torch.arange(n, dtype=torch.float32) + 1.0, return_ctype=True)
    wp.launch(scale2, dim=n, inputs=[source, wp.from_torch(out, return_ctype=True)])
    del source
    np.testing.assert_array_equal(out.numpy(), 2.0 * (np.arange(n, dtype=np.float32) + 1.0))
    d = wp.from_torch(torch.ones(3), return_ctype=True)
    ref = weakref.ref(d._owner[0])
    gc.collect()
    assert ref() is not None  # the descriptor owns its tensor
    del d
    gc.collect()
    assert ref() is None


@wp.kernel
def _affine(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 0.5 - x[i] * 2.0


@wp.kernel
def _vec_sum(x: wp.array(dtype=wp.vec3), y: wp.array(dtype=wp.vec3), z: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    z[i] = x[i] + y[i]


def test_tensor_passed_to_a_taped_launch_is_not_its_own_adjoint():
    x = torch.ones((10, 3))
    y = torch.ones((10, 3))
    wp_y = wp.from_torch(y, dtype=wp.vec3, requires_grad=True)
    wp_z = wp.from_torch(torch.zeros((10, 3)), dtype=wp.vec3, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_vec_sum, dim=10, inputs=[x, wp_y], outputs=[wp_z])
    tape.backward(grads={wp_z: wp.ones_like(wp_z)})
    np.testing.assert_array_equal(x.numpy(), np.ones((10, 3)))  # unchanged by backward
    np.testing.assert_array_equal(y.grad.numpy(), np.ones((10, 3)))


def test_broadcast_output_adjoint_reaches_every_thread():
    # torch's gradient of y.sum() is one value broadcast with stride 0
    adj_y = torch.full((1,), 3.0).expand(16)
    adj_x = torch.zeros(16)
    x, y = torch.ones(16), torch.empty(16)
    wp.launch(_affine, dim=16, inputs=[wp.from_torch(x)], outputs=[wp.from_torch(y)],
              adj_inputs=[wp.from_torch(adj_x)], adj_outputs=[wp.from_torch(adj_y)], adjoint=True)
    np.testing.assert_array_equal(adj_x.numpy(), np.full(16, -6.0))  # d(0.5 - 2x)/dx * 3
    np.testing.assert_array_equal(adj_y.numpy(), np.full(16, 3.0))


def test_same_size_integer_tensor_views():
    t = torch.tensor([-1, 2, -3], dtype=torch.int64)
    a = wp.from_torch(t, dtype=wp.uint64)
    assert a.ptr == t.data_ptr()
    np.testing.assert_array_equal(a.numpy(), t.numpy().view(np.uint64))
    b = wp.from_torch(torch.tensor([True, False]), dtype=wp.int8)
    np.testing.assert_array_equal(b.numpy(), [1, 0])


def test_view_capacity_is_the_rest_of_the_storage():
    base = torch.arange(24, dtype=torch.float32).reshape((4, 6))
    for view, expected in ((base, 96), (base[1:3, 2:5], 64), (base[2:, 1::2], 44), (base[3:, 3:], 12)):
        a = wp.from_torch(view)
        assert a.capacity == expected
        np.testing.assert_array_equal(a.numpy(), view.numpy())


def test_vector_and_matrix_slices_take_tensor_values():
    v = wp.vec4()
    v[1:] = torch.tensor([1.0, 2.0, 3.0])
    assert list(v) == [0.0, 1.0, 2.0, 3.0]
    m = wp.mat22()
    m[0, 0:2] = torch.tensor([5.0, 6.0])
    m[1] = torch.tensor([7.0, 8.0])
    assert (m[0, 0], m[0, 1], m[1, 0], m[1, 1]) == (5.0, 6.0, 7.0, 8.0)
    v[0:1] = torch.tensor(9.0)  # a 0-d tensor fills a one-component slice
    assert v[0] == 9.0
    with pytest.raises(ValueError, match="Can only assign sequence of same size"):
        v[1:] = torch.tensor([1.0, 2.0])


def test_empty_arrays_convert_to_torch():
    t = wp.to_torch(wp.zeros((1, 0), dtype=wp.vec2f))
    assert tuple(t.shape) == (1, 0, 2) and t.dtype == torch.float32
    with pytest.raises(TypeError, match="to_torch: expected a warp array"):
        wp.to_torch(wp.array(dtype=float))  # an annotation


@wp.kernel
def _scaled_store(x: wp.array(dtype=float), y: wp.array(dtype=float), s: float):
    i = wp.tid()
    y[i] = s * x[i]


@pytest.mark.parametrize("retain", [False, True])
def test_from_torch_retain_grad_keeps_the_gradient_of_overwritten_writes(retain):
    """from_torch(retain_grad=True): the adjoints of both writes into the tensor see its gradient,
    which stays in the shared torch .grad (default: the dead first write gets none)."""
    n = 4
    x_a = wp.ones(n, dtype=float, requires_grad=True)
    x_b = wp.ones(n, dtype=float, requires_grad=True)
    t = torch.zeros(n, dtype=torch.float32, requires_grad=True)
    y = wp.from_torch(t, requires_grad=True, retain_grad=retain)
    assert y.retain_grad is retain
    with wp.Tape() as tape:
        wp.launch(_scaled_store, dim=n, inputs=[x_a, y, 2.0])
        wp.launch(_scaled_store, dim=n, inputs=[x_b, y, 3.0])
    tape.backward(grads={y: wp.ones_like(y)})
    np.testing.assert_array_equal(x_a.grad.numpy(), np.full(n, 2.0 if retain else 0.0))
    np.testing.assert_array_equal(x_b.grad.numpy(), np.full(n, 3.0))
    np.testing.assert_array_equal(t.grad.numpy(), np.full(n, 1.0 if retain else 0.0))


def test_from_torch_retain_grad_needs_a_gradient_and_an_array():
    t = torch.zeros(3)
    with pytest.raises(ValueError, match="retain_grad=True needs requires_grad=True"):
        wp.from_torch(t, requires_grad=False, retain_grad=True)
    with pytest.raises(ValueError, match="retain_grad=True needs a wp.array, not return_ctype=True"):
        wp.from_torch(t, requires_grad=True, retain_grad=True, return_ctype=True)
