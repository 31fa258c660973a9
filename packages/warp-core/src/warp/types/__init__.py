"""The type system: scalar types, array types and (later) composite types."""

from warp.types.array_type import ArrayType
from warp.types.scalars import *  # noqa: F401,F403
from warp.types.scalars import Float, Int, Scalar, dtype_from_numpy, dtype_to_numpy  # noqa: F401
