"""The type system: scalar types, array types and composite types (vectors, matrices, ...)."""

from warp.types.array_type import ArrayType  # noqa: F401
from warp.types.composite import (  # noqa: F401
    MatrixOf,
    QuatOf,
    TransformOf,
    VectorOf,
    is_composite,
    matrix,
    quaternion,
    transformation,
    vector,
)
from warp.types.named import *  # noqa: F401,F403
from warp.types.scalars import *  # noqa: F401,F403
from warp.types.scalars import Float, Int, Scalar, dtype_from_numpy, dtype_to_numpy  # noqa: F401
