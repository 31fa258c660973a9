"""The named types of the kernel language (``vec3``, ``mat33d``, ``quatf``, ..., ``handle``)."""

from __future__ import annotations

from warp.types import scalars as s
from warp.types.composite import matrix, quaternion, transformation, vector

_families = {
    "h": s.float16, "f": s.float32, "d": s.float64, "b": s.int8, "ub": s.uint8, "s": s.int16,
    "us": s.uint16, "i": s.int32, "ui": s.uint32, "l": s.int64, "ul": s.uint64,
}

#: name -> type, e.g. "vec3f" -> vector(3, float32)
named_types: dict[str, type] = {}
for _suffix, _dtype in _families.items():
    for _n in (2, 3, 4):
        named_types[f"vec{_n}{_suffix}"] = vector(_n, _dtype)
for _suffix in ("h", "f", "d"):
    _dtype = _families[_suffix]
    for _n in (2, 3, 4):
        named_types[f"mat{_n}{_n}{_suffix}"] = matrix((_n, _n), _dtype)
    named_types[f"quat{_suffix}"] = quaternion(_dtype)
    named_types[f"transform{_suffix}"] = transformation(_dtype)
    named_types[f"spatial_vector{_suffix}"] = vector(6, _dtype)
    named_types[f"spatial_matrix{_suffix}"] = matrix((6, 6), _dtype)
for _n in (2, 3, 4):
    named_types[f"vec{_n}"] = named_types[f"vec{_n}f"]
    named_types[f"mat{_n}{_n}"] = named_types[f"mat{_n}{_n}f"]
named_types["quat"] = named_types["quatf"]
named_types["transform"] = named_types["transformf"]
named_types["spatial_vector"] = named_types["spatial_vectorf"]
named_types["spatial_matrix"] = named_types["spatial_matrixf"]
#: ``wp.handle``: the type of object handles (``Mesh.id``, ``Volume.id``, ``Bvh.id``), a uint64
named_types["handle"] = s.uint64

globals().update(named_types)

#: every concrete vector, matrix, quaternion and transform type (aliases such as ``vec3`` once),
#: as ``warp.types.vector_types`` lists them in NVIDIA Warp
vector_types: tuple[type, ...] = tuple(
    dict.fromkeys(t for t in named_types.values() if hasattr(t, "_shape_"))
)

__all__ = sorted(named_types)  # (``vector_types`` is ``warp.types.vector_types``, not ``wp.vector_types``)
