"""warp: a Python kernel compiler and runtime with the programming model of NVIDIA Warp."""

from warp import config  # noqa: F401
from warp.types.scalars import (  # noqa: F401
    bool,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
    dtype_from_numpy,
    dtype_to_numpy,
)
