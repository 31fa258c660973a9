"""Fixed-size composite value types: vectors, matrices, quaternions and transforms.

Each concrete type is a class made once per (kind, shape, scalar type) by a constructor of this
module (``vector_type(3, float32)`` is ``wp.vec3``; the public factories of
:mod:`warp.types.composite` also make generic annotations). Instances are Python-scope values
backed by a small NumPy array; the class itself is the type the compiler sees. Class attributes:

- ``_wp_kind_``: ``"vector"``, ``"matrix"``, ``"quaternion"`` or ``"transform"``
- ``_shape_``: component shape (``(3,)``, ``(3, 3)``); ``_length_``: number of components
- ``_type_``: ctypes type of one component (as NVIDIA Warp's ctypes-array based types have)
- ``_wp_scalar_type_``: the component scalar type
- ``_size_in_bytes_``: storage size (components packed, no padding)

This module holds the classes, their construction, conversions, indexing and products; the
component-wise operators are :mod:`warp.types.composite_arithmetic`'s, the launch and cache hooks
(``_wp_pack_``, ``_wp_hash_``, ...) :mod:`warp.types.composite_hooks`'s, both mixins over the storage
of :mod:`warp.types.composite_data`.

What these types do in kernels (LLVM form, constructors, indexing, swizzles, printing) is the
compiler's business: :mod:`warp.compiler.frontend.type_handlers` and
:mod:`warp.compiler.lowering.types` key it on ``_wp_kind_``. This module imports no compiler code.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from warp.types import bfloat16_bits
from warp.types import scalars as _s
from warp.types.composite_arithmetic import CompositeArithmetic
from warp.types.composite_classes import (
    component_type,
    composite_class,
    matrix_name,
    quaternion_name,
    transform_name,
    vector_name,
)
from warp.types.composite_components import as_components, format_components, is_number
from warp.types.composite_data import _flatten, _flatten_args, _unwrap
from warp.types.composite_hooks import CompositeLaunchHooks
from warp.types.transform_args import compose, transform_components
from warp.types.scalars import float32, type_repr


class CompositeBase(CompositeArithmetic, CompositeLaunchHooks):
    """Base of vector/matrix/quaternion/transform values in Python scope."""

    _wp_kind_ = ""
    #: the generic family as NVIDIA Warp names it ("vec_t", ...; see warp.types.protocol)
    _wp_generic_type_str_ = ""
    _shape_: tuple[int, ...] = ()
    _length_ = 0
    _wp_scalar_type_: Any = None
    _size_in_bytes_ = 0
    _wp_type_ = True
    _wp_generic_ = False
    __slots__ = ()  # the storage (``_data``, and a ``__dict__``) is CompositeData's

    def __init__(self, *args: Any) -> None:
        scalar = self._wp_scalar_type_
        dtype = np.dtype(np.float64) if scalar is _s.bfloat16 else scalar._np_dtype_  # rounded below
        n = math.prod(self._shape_)
        if len(args) == n and n > 1 and all(type(a) is float or type(a) is int for a in args):
            data = as_components(args, dtype)  # fast path: one Python number per component
        elif len(args) == 0:
            data = np.zeros(n, dtype=dtype)
        elif len(args) == 1 and np.ndim(_unwrap(args[0])) == 0:
            data = np.full(n, as_components(_unwrap(args[0]), dtype), dtype=dtype)
        elif len(args) == 1:
            data = as_components(_flatten(args[0]), dtype).reshape(-1)  # a copy, never a view
        else:
            self._check_rows(args)
            data = as_components([_unwrap(a) for a in _flatten_args(args)], dtype).reshape(-1)
        if data.size != n:
            what = "matrix" if len(self._shape_) == 2 else "vector"
            raise ValueError(
                f"Invalid number of arguments in {what} constructor, expected {n} elements, got {data.size}"
            )
        if scalar is _s.bfloat16:
            data = bfloat16_bits.round_values(data)
        self._data = data.reshape(self._shape_)

    def _check_rows(self, args: tuple) -> None:
        """A matrix built from one sequence per row needs rows of the matrix's width."""
        if len(self._shape_) != 2 or len(args) != self._shape_[0]:
            return
        cols = self._shape_[1]
        for row in args:
            if np.ndim(_unwrap(row)) > 0 and np.size(_unwrap(row)) != cols:
                raise TypeError(
                    f"Invalid argument in matrix constructor, expected row of length {cols}, got {row!r}"
                )

    @classmethod
    def from_ptr(cls, ptr: int) -> Any:
        """A value viewing the components stored at address ``ptr`` (writes go to that memory)."""
        if not ptr:
            raise RuntimeError("NULL pointer exception")
        if cls._wp_scalar_type_ is _s.bfloat16:
            raise TypeError("from_ptr is not supported for bfloat16 composites")
        n = math.prod(cls._shape_)
        buffer = (cls._wp_scalar_type_._ctype_ * n).from_address(int(ptr))
        out = cls.__new__(cls)
        out._data = np.frombuffer(buffer, dtype=cls._wp_scalar_type_._np_dtype_).reshape(cls._shape_)
        return out

    # -- conversions ------------------------------------------------------------------
    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self._data.astype(dtype) if dtype is not None else self._data.copy()

    def numpy_value(self) -> np.ndarray:
        """Components as a NumPy array of the component type (used when filling arrays)."""
        return self._data.copy()

    def tolist(self) -> list[Any]:
        return self._data.tolist()

    def __len__(self) -> int:
        return self._shape_[0]

    def __iter__(self) -> Any:
        for i in range(self._shape_[0]):
            yield self[i]

    def __getitem__(self, key: Any) -> Any:
        value = self._data[self._checked_key(key)]
        if isinstance(value, np.ndarray):
            if value.ndim == 1:  # a matrix row, or a slice: a vector of the components selected
                return vector_type(value.shape[0], self._wp_scalar_type_)(value)
            return matrix_type(value.shape, self._wp_scalar_type_)(value)
        return value.item()

    def __setitem__(self, key: Any, value: Any) -> None:
        key = self._checked_key(key)
        target = self._data[key]
        if isinstance(target, np.ndarray) and target.ndim == 2:  # a block of a matrix: rows of values
            block: np.ndarray
            if isinstance(value, CompositeBase):
                block = value._data
            elif isinstance(value, (list, tuple, np.ndarray)):
                block = np.asarray([_unwrap(r) for r in value])
            else:
                block = np.full(target.shape, _unwrap(value))  # a scalar fills the block
            if block.dtype == object or block.size != target.size:
                raise ValueError(f"Can only assign sequence of same size (a block of shape {target.shape})")
            value = block.reshape(target.shape)
        elif isinstance(target, np.ndarray):  # a slice (or a matrix row): a sequence of scalars
            if hasattr(value, "__array__") and not isinstance(value, (CompositeBase, np.ndarray)):
                value = np.asarray(value)  # an array-like (a torch or JAX tensor): its values
                if value.ndim == 0:
                    value = value.item()
            items = list(value) if isinstance(value, (list, tuple, CompositeBase, np.ndarray)) else [value]
            for item in items:
                if not is_number(item):
                    raise TypeError(
                        f"Expected to assign a slice from a sequence of `{self._wp_scalar_type_.__name__}` "
                        f"values but got `{type(item).__name__}` instead"
                    )
            if len(items) != target.size:
                raise ValueError(
                    f"Can only assign sequence of same size (got {len(items)} values for "
                    f"{target.size} components)"
                )
            value = np.asarray([_unwrap(v) for v in items]).reshape(target.shape)
        elif not is_number(value):
            raise TypeError(
                f"Expected to assign a `{self._wp_scalar_type_.__name__}` value but got "
                f"`{type(value).__name__}` instead"
            )
        value = np.asarray(_unwrap(value))
        if self._wp_scalar_type_ is _s.bfloat16:
            value = bfloat16_bits.round_values(value.astype(np.float64))
        self._data[key] = value

    def _checked_key(self, key: Any) -> Any:
        """``key`` if it indexes this value (an int or slice; for matrices also a pair), else KeyError."""
        if isinstance(key, (int, np.integer, slice)):
            return key
        if len(self._shape_) == 2:
            if isinstance(key, tuple):
                if len(key) != 2:
                    raise KeyError(f"Invalid key, expected one or two indices, got {len(key)}")
                if all(isinstance(k, (int, np.integer, slice)) for k in key):
                    return key
            raise KeyError(f"Invalid key {key}, expected int or pair of ints")
        raise KeyError(f"Invalid key {key}, expected int or slice")

    # -- products (component-wise operators: warp.types.composite_arithmetic) ---------------
    def __mul__(self, other: Any) -> Any:
        if isinstance(other, CompositeBase):
            return _composite_product(self, other)
        return self._like(self._data * _unwrap(other))

    def __rmul__(self, other: Any) -> Any:
        if isinstance(other, CompositeBase):
            return _composite_product(other, self)
        return self._like(_unwrap(other) * self._data)

    def __matmul__(self, other: Any) -> Any:
        return _composite_product(self, other)

    def __str__(self) -> str:
        return format_components(self._data)

    def __repr__(self) -> str:
        """``vec2i([1, 2])``; components of types other than float32/int32 name their type
        (``vec4d([float64(1.0), ...])``). Matrices print as their rows."""
        if len(self._shape_) != 1:
            return format_components(self._data)
        scalar = self._wp_scalar_type_
        if scalar in (_s.float32, _s.int32, _s.bool):
            items = [repr(x) for x in self._data.tolist()]
        else:
            items = [f"{scalar.__name__}({x!r})" for x in self._data.tolist()]
        return f"{type(self).__name__}([{', '.join(items)}])"


def _vector_component(i: int, name: str) -> property:
    """The property reading and writing component ``i`` of a vector (``v.x`` is component 0);
    on a vector with fewer components it does not exist (AttributeError, so hasattr is False)."""

    def missing(self: VectorBase) -> AttributeError:
        return AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def get(self: VectorBase) -> Any:
        if i >= len(self._data):
            raise missing(self)
        return self._data[i].item()

    def set(self: VectorBase, value: Any) -> None:
        if i >= len(self._data):
            raise missing(self)
        self._data[i] = _unwrap(value)

    return property(get, set)


class VectorBase(CompositeBase):
    """Vectors: ``v.x``, ``v.y``, ``v.z``, ``v.w`` name the first four components."""

    _wp_kind_ = "vector"
    _wp_generic_type_str_ = "vec_t"
    __slots__ = ()

    x = _vector_component(0, "x")
    y = _vector_component(1, "y")
    z = _vector_component(2, "z")
    w = _vector_component(3, "w")

    def __setattr__(self, name: str, value: Any) -> None:
        if len(name) > 1 and not name.strip("xyzw"):  # v.xy = ...: swizzles are not attributes
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        object.__setattr__(self, name, value)


class MatrixBase(CompositeBase):
    """Row-major matrices: ``m[i]`` is row i as a vector, ``m[i, j]`` a component."""

    _wp_kind_ = "matrix"
    _wp_generic_type_str_ = "mat_t"
    __slots__ = ()

    def __len__(self) -> int:
        return self._shape_[0]

    def get_row(self, r: int) -> VectorBase:
        """Row ``r`` as a new vector."""
        return vector_type(self._shape_[1], self._wp_scalar_type_)(self._data[r])

    def get_col(self, c: int) -> VectorBase:
        """Column ``c`` as a new vector."""
        return vector_type(self._shape_[0], self._wp_scalar_type_)(self._data[:, c])

    def set_row(self, r: int, v: Any) -> None:
        """Set row ``r`` to the components of ``v`` (a scalar fills it), in place."""
        if not -self._shape_[0] <= r < self._shape_[0]:
            raise IndexError("Invalid row index")
        value = np.asarray(_unwrap(v))
        self._data[r] = value if value.ndim == 0 else value.reshape(self._shape_[1])

    def set_col(self, c: int, v: Any) -> None:
        """Set column ``c`` to the components of ``v`` (a scalar fills it), in place."""
        if not -self._shape_[1] <= c < self._shape_[1]:
            raise IndexError("Invalid column index")
        value = np.asarray(_unwrap(v))
        self._data[:, c] = value if value.ndim == 0 else value.reshape(self._shape_[0])


class QuaternionBase(VectorBase):
    """Quaternions stored as (i, j, k, w), w being the real part."""

    _wp_kind_ = "quaternion"
    _wp_generic_type_str_ = "quat_t"
    __slots__ = ()


class TransformBase(VectorBase):
    """Rigid transforms stored as 7 components: position p (3) then rotation q (4)."""

    _wp_kind_ = "transform"
    _wp_generic_type_str_ = "transform_t"
    __slots__ = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Identity, scalar fill, copy, 7 components, or ``(p, q)`` / ``p=``, ``q=`` (see
        :mod:`warp.types.transform_args`)."""
        components = transform_components(args, kwargs)
        super().__init__(*(args if components is None else components))

    @property
    def p(self) -> VectorBase:
        return vector_type(3, self._wp_scalar_type_)(self._data[:3])

    @p.setter
    def p(self, value: Any) -> None:
        self._data[:3] = as_components(_flatten(value), self._data.dtype)

    @property
    def q(self) -> QuaternionBase:
        return quaternion_type(self._wp_scalar_type_)(self._data[3:])

    @q.setter
    def q(self, value: Any) -> None:
        self._data[3:] = as_components(_flatten(value), self._data.dtype)


def _composite_product(a: Any, b: Any) -> Any:
    """Matrix-vector / matrix-matrix products (and quaternion products, transform composition)
    in Python scope. As in kernels, both operands must have the same scalar type."""
    if (
        isinstance(a, CompositeBase)
        and isinstance(b, CompositeBase)
        and a._wp_scalar_type_ is not b._wp_scalar_type_
    ):
        raise RuntimeError(
            f"Couldn't find a function 'mul' compatible with the arguments "
            f"'{type_repr(type(a))}, {type_repr(type(b))}'"
        )
    if isinstance(a, TransformBase) and isinstance(b, TransformBase):
        return a._like(compose(a._data.astype(np.float64), b._data.astype(np.float64)))
    if isinstance(a, QuaternionBase) and isinstance(b, QuaternionBase):
        x1, y1, z1, w1 = a._data
        x2, y2, z2, w2 = b._data
        return a._like(
            np.array(
                [
                    w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                    w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                    w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
                    w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
                ]
            )
        )
    result = np.asarray(_unwrap(a)) @ np.asarray(_unwrap(b))
    scalar = (a if isinstance(a, CompositeBase) else b)._wp_scalar_type_
    if result.ndim == 1:
        return vector_type(result.shape[0], scalar)(result)
    if result.ndim == 2:
        return matrix_type(result.shape, scalar)(result)
    return result.item()


def vector_type(length: int, dtype: Any) -> type:
    """The concrete vector type of ``length`` components of scalar type ``dtype`` (``vector_type(3,
    float32)`` is vec3); :func:`warp.types.composite.vector` also takes placeholders."""
    dtype = component_type(dtype)
    if not isinstance(length, (int, np.integer)) or isinstance(length, bool) or length < 0:
        raise ValueError(f"vector length must be a non-negative integer, got {length!r}")
    length = int(length)
    name = vector_name(length, dtype)
    return composite_class(VectorBase, ("vector", length, dtype), name, (length,), dtype)


def matrix_type(shape: tuple[int, int], dtype: Any) -> type:
    """The concrete matrix type of ``shape`` (rows, cols) with scalar type ``dtype``."""
    dtype = component_type(dtype)
    rows, cols = (int(shape[0]), int(shape[1]))
    if rows < 0 or cols < 0:
        raise ValueError(f"matrix shape must be non-negative, got {shape!r}")
    name = matrix_name(rows, cols, dtype)
    return composite_class(MatrixBase, ("matrix", rows, cols, dtype), name, (rows, cols), dtype)


def quaternion_type(dtype: Any = float32) -> type:
    """The concrete quaternion type with components of ``dtype`` (a float type)."""
    dtype = component_type(dtype)
    return composite_class(QuaternionBase, ("quaternion", dtype), quaternion_name(dtype), (4,), dtype)


def transform_type(dtype: Any = float32) -> type:
    """The concrete rigid transform type (p, q) with components of ``dtype`` (a float type)."""
    dtype = component_type(dtype)
    return composite_class(TransformBase, ("transform", dtype), transform_name(dtype), (7,), dtype)


def is_composite(t: Any) -> bool:
    """True for vector, matrix, quaternion and transform types."""
    return isinstance(t, type) and issubclass(t, CompositeBase) and t._wp_scalar_type_ is not None
