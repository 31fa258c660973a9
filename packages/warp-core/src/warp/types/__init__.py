"""The type system: scalar types, array types and composite types (vectors, matrices, ...)."""

from typing import Any

from warp.types.array_type import ArrayType  # noqa: F401
from warp.types.composite import matrix, quaternion, transformation, vector  # noqa: F401
from warp.types.composite_generic import MatrixOf, QuatOf, TransformOf, VectorOf  # noqa: F401
from warp.types.named import *  # noqa: F401,F403
from warp.types.named import vector_types  # noqa: F401
from warp.types.scalars import *  # noqa: F401,F403
from warp.types.scalars import Float, Int, Scalar, dtype_from_numpy, dtype_to_numpy  # noqa: F401
# (type_is_vector, types_equal, is_array, ...); its is_int/is_float test values, as wp.types.is_int does
# in NVIDIA Warp, and deliberately replace the type predicates of the same name from scalars
from warp.types.helpers import *  # type: ignore[assignment]  # noqa: F401,F403
from warp.types.type_codes import get_type_code, types_equal_generic  # noqa: F401

# ``wp.types.array`` & co. (NVIDIA Warp defines the array classes in ``warp.types``): the array
# classes live in :mod:`warp.arrays`, above the type system; ``warp/__init__`` publishes them here.
array: Any
array1d: Any
array2d: Any
array3d: Any
array4d: Any
indexedarray: Any
indexedarray1d: Any
indexedarray2d: Any
indexedarray3d: Any
indexedarray4d: Any
