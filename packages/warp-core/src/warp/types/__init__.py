"""The type system: scalar types, array types and composite types (vectors, matrices, ...)."""

from typing import Any

from warp.types.array_type import ArrayType  # noqa: F401
from warp.types.composite import (  # noqa: F401
    MatrixOf,
    QuatOf,
    TransformOf,
    VectorOf,
    matrix,
    quaternion,
    transformation,
    vector,
)
from warp.types.named import *  # noqa: F401,F403
from warp.types.named import vector_types  # noqa: F401
from warp.types.scalars import *  # noqa: F401,F403
from warp.types.scalars import Float, Int, Scalar, dtype_from_numpy, dtype_to_numpy  # noqa: F401
# (type_is_vector, types_equal, is_array, ...); its is_int/is_float test values, as wp.types.is_int does
# in NVIDIA Warp, and deliberately replace the type predicates of the same name from scalars
from warp.types.helpers import *  # type: ignore[assignment]  # noqa: F401,F403
from warp.types.type_codes import get_type_code, types_equal_generic  # noqa: F401


_ARRAY_NAMES = ("array", "array1d", "array2d", "array3d", "array4d")


def __getattr__(name: str) -> Any:
    """``wp.types.array`` & co. (NVIDIA Warp defines the array class in ``warp.types``).

    The array classes live in :mod:`warp.arrays`, which depends on this package; they are
    looked up when first asked for, so that importing the type system never imports arrays.
    """
    if name in _ARRAY_NAMES:
        import warp.arrays

        return getattr(warp.arrays, name)
    raise AttributeError(f"module 'warp.types' has no attribute '{name}'")
