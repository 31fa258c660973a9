"""Feature arrays of ``wp.Volume`` (NanoVDB blind data): their metadata and their values as
``wp.array``s. The volume keeps a snapshot of them, taken when it was created."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

import warp as wp
from warp_geometry.nanovdb_blind import BlindData

#: NanoVDB GridType codes of blind data values and the warp types they hold
_VALUE_TYPES = {
    1: wp.float32, 2: wp.float64, 3: wp.int16, 4: wp.int32, 5: wp.int64, 6: wp.vec3f, 7: wp.vec3d,
    9: wp.float16, 10: wp.uint32, 11: wp.bool, 17: wp.vec4f, 18: wp.vec4d, 26: wp.uint8,
}


class FeatureArrayInfo(NamedTuple):
    """What :meth:`Volume.get_feature_array_info` reports about one feature array."""

    #: the array's name
    name: str
    #: bytes per value
    value_size: int
    #: number of values
    value_count: int
    #: the warp type of the values when the grid declares one NanoVDB names, else None
    type: Any


def feature_info(features: list[BlindData], index: int) -> FeatureArrayInfo:
    """The metadata of feature array ``index``."""
    f = _feature(features, index, "get_feature_array_info")
    return FeatureArrayInfo(f.name, f.value_size, f.value_count, _VALUE_TYPES.get(f.data_type))


def feature_values(features: list[BlindData], index: int, dtype: Any, device: Any) -> Any:
    """Feature array ``index`` as a ``wp.array`` of ``dtype`` (default ``wp.uint8``) on ``device``."""
    data = _feature(features, index, "feature_array").data
    np_dtype = np.dtype(wp.types.dtype_to_numpy(dtype if dtype is not None else wp.uint8))
    if len(data) % np_dtype.itemsize:
        raise ValueError(
            f"wp.Volume.feature_array: {len(data)} bytes are not a whole number of {np_dtype} values"
        )
    return wp.array(np.frombuffer(data, np_dtype), dtype=dtype or wp.uint8, device=device)


def _feature(features: list[BlindData], index: int, method: str) -> BlindData:
    if not 0 <= index < len(features):
        raise IndexError(f"wp.Volume.{method}: index {index} out of range ({len(features)} feature arrays)")
    return features[index]
