"""``__del__`` of the geometry objects frees what they hold now, as NVIDIA Warp's does."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import warp as wp


def _objects():
    pts = wp.array(np.eye(3, dtype=np.float32), dtype=wp.vec3)
    grid = wp.HashGrid(4, 4, 4)
    grid.build(pts, 0.5)
    lo = wp.array(np.zeros((2, 3), dtype=np.float32), dtype=wp.vec3)
    hi = wp.array(np.ones((2, 3), dtype=np.float32), dtype=wp.vec3)
    return [
        wp.Mesh(pts, wp.array([0, 1, 2], dtype=wp.int32)),
        grid,
        wp.Bvh(lo, hi),
        wp.Volume.allocate(min=[0, 0, 0], max=[4, 4, 4], voxel_size=1.0, bg_value=0.0),
    ]


@pytest.mark.parametrize("cls", [wp.Mesh, wp.HashGrid, wp.Bvh, wp.Volume])
def test_del_of_an_uninitialized_instance_is_harmless(cls):
    instance = cls.__new__(cls)
    instance.__del__()
    instance.__del__()
    message = rf"wp.{cls.__name__}: 'id' is not available: the object was freed"
    with pytest.raises(AttributeError, match=message):
        _ = instance.id


def test_del_frees_the_descriptor_and_arrays_now():
    for obj in _objects():
        descriptor = weakref.ref(obj._descriptor)
        obj.__del__()
        gc.collect()
        assert descriptor() is None, type(obj).__name__  # the memory behind the id is gone
        with pytest.raises(AttributeError, match="the object was freed"):
            _ = obj.id
        obj.__del__()  # twice is fine
