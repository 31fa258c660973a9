"""Kernels shared by the wp.Volume tests (test_volume.py, test_nanovdb_samples.py,
test_volume_rebuild.py, test_volume_device_build.py, test_volume_index_sampling.py): the voxel
values of a float and of a vec3 volume, and the voxel indices of an index volume, at integer
coordinates, read with wp.volume_lookup_*."""

from __future__ import annotations

import warp as wp


@wp.kernel
def lookup_f(id: wp.uint64, ijk: wp.array(dtype=wp.vec3i), out: wp.array(dtype=float)):
    t = wp.tid()
    c = ijk[t]
    out[t] = wp.volume_lookup_f(id, c[0], c[1], c[2])


@wp.kernel
def lookup_v(id: wp.uint64, ijk: wp.array(dtype=wp.vec3i), out: wp.array(dtype=wp.vec3)):
    t = wp.tid()
    c = ijk[t]
    out[t] = wp.volume_lookup_v(id, c[0], c[1], c[2])


@wp.kernel
def lookup_index(id: wp.uint64, ijk: wp.array(dtype=wp.vec3i), out: wp.array(dtype=wp.int32)):
    t = wp.tid()
    c = ijk[t]
    out[t] = wp.volume_lookup_index(id, c[0], c[1], c[2])
