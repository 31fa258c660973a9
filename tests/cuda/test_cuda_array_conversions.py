"""Moving and converting data between the host and (stand-in) CUDA devices: pinned ``*_like``
arrays, ``struct.to(device)``, refused implicit NumPy conversion of device arrays and CUDA
array interface data folded into matrices."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp


@wp.struct
class Inner:
    z: wp.array(dtype=float)


@wp.struct
class Outer:
    x: wp.array(dtype=float)
    y: Inner
    k: int


def test_like_arrays_inherit_pinned_memory(fake_cuda) -> None:
    pinned = wp.array(np.ones(8, dtype=np.float32), dtype=float, device="cpu", pinned=True)
    pageable = wp.zeros(8, dtype=float, device="cpu")
    assert pinned.pinned and not pageable.pinned
    for make in (wp.zeros_like, wp.empty_like, wp.ones_like, wp.clone):
        assert make(pinned).pinned and not make(pageable).pinned
        assert not make(pinned, pinned=False).pinned and make(pageable, pinned=True).pinned
    assert wp.full_like(pinned, 2.0).pinned
    assert not wp.zeros_like(pinned, device="cuda:0").pinned  # device memory is never pinned
    np.testing.assert_array_equal(wp.clone(pinned).numpy(), np.ones(8))
    device = wp.zeros(8, dtype=float, device="cuda:0")
    wp.copy(device, pinned)
    out = wp.zeros_like(pinned)
    wp.copy(out, device)
    np.testing.assert_array_equal(out.numpy(), np.ones(8))


@pytest.mark.parametrize("src, dst", [("cuda:0", "cpu"), ("cpu", "cuda:0")])
def test_struct_to_moves_array_fields(fake_cuda, src, dst) -> None:
    s = Outer()
    s.x = wp.array([1.25, 2.5], dtype=float, device=src)
    s.y = Inner()
    s.y.z = wp.array([3.5], dtype=float, device=src)
    s.k = 7
    moved = s.to(dst)
    assert isinstance(moved, Outer) and moved is not s and moved.k == 7
    assert moved.x.device == dst and moved.y.z.device == dst and moved.y is not s.y
    np.testing.assert_array_equal(moved.x.numpy(), [1.25, 2.5])
    np.testing.assert_array_equal(moved.y.z.numpy(), [3.5])
    assert s.x.device == src  # the original is unchanged
    same = s.to(src)
    assert same.x is s.x and same.y.z is s.y.z  # arrays already there are shared


def test_implicit_numpy_conversion_of_device_arrays_is_refused(fake_cuda) -> None:
    a = wp.zeros((2, 3), dtype=wp.float32, device="cuda:0")
    np.testing.assert_array_equal(a.numpy(), np.zeros((2, 3)))
    messages = []
    for convert in (lambda: np.asarray(a), lambda: np.asarray(a, dtype=np.float64)):
        refused = r"implicit NumPy conversion of an array on device 'cuda:0'.*array\.numpy\(\)"
        with pytest.raises(TypeError, match=refused):
            convert()
        try:
            convert()
        except TypeError as e:
            messages.append(str(e))
    assert messages[0] == messages[1]
    cpu = wp.zeros((2, 3), dtype=wp.float32, device="cpu")
    assert np.shares_memory(np.asarray(cpu), cpu.numpy())


class _Interface:
    """Host data offered through ``__cuda_array_interface__`` (the addresses are unified)."""

    def __init__(self, values, dtype) -> None:
        self.data = np.array(values, dtype=dtype)
        self.__cuda_array_interface__ = self.data.__array_interface__


@pytest.mark.parametrize("values, dtype, count", [
    ((1, 2, 3), wp.vec3, 1), ((1, 2, 3, 4), wp.mat22, 1), (tuple(range(8)), wp.mat22, 2),
    ((1, 2, 3, 4, 5, 6), wp.vec3, 2),
])
def test_cuda_interface_flat_data_folds_into_elements(fake_cuda, values, dtype, count) -> None:
    a = wp.array(_Interface(values, np.float32), dtype=dtype, device="cuda:0")
    assert a.shape == (count,) and a.ptr != 0
    np.testing.assert_array_equal(a.numpy().reshape(-1), np.array(values, dtype=np.float32))


def test_cuda_interface_flat_data_that_does_not_fold(fake_cuda) -> None:
    with pytest.raises(TypeError, match=r"data of shape \(6,\) cannot be viewed as an array of mat22f"):
        wp.array(_Interface(tuple(range(6)), np.float32), dtype=wp.mat22, device="cuda:0")


def test_array_from_a_device_array(fake_cuda) -> None:
    """wp.array(data=<array on cuda:0>, dtype=..., shape=...) reads the data (NVIDIA Warp's
    test_casting): a device array refuses implicit NumPy conversion, so its host copy is used."""
    flat = wp.array(np.arange(1, 13, dtype=np.int32), dtype=wp.int32, device="cuda:0").reshape((-1, 3))
    vecs = wp.array(flat, shape=flat.shape[0], dtype=wp.vec3i, device="cuda:0")
    assert vecs.device == "cuda:0" and vecs.shape == (4,)
    np.testing.assert_array_equal(vecs.numpy(), np.arange(1, 13, dtype=np.int32).reshape(4, 3))
    with pytest.raises(TypeError, match="implicit NumPy conversion"):
        np.asarray(flat)
