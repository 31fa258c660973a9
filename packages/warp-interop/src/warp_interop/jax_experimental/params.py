"""Parameters of a warp kernel or annotated function seen from JAX: inputs, outputs, shapes.

Warp and JAX shapes differ for vector and matrix elements: a warp array of ``n`` vec3 is a
JAX array of shape ``(n, 3)``. A :class:`Param` converts between the two and checks JAX
arguments; :func:`split_params` sorts parameters into inputs (including in-out arguments) and
outputs following the ``num_outputs`` / ``in_out_argnames`` rules of ``jax_kernel``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from warp.extending import element_info, ArrayType, bfloat16, is_scalar_type, type_repr


@dataclass(frozen=True)
class Param:
    """One parameter: its name, warp type, and for arrays the element layout in JAX."""

    name: str
    type: Any
    in_out: bool = False

    @property
    def is_array(self) -> bool:
        return isinstance(self.type, ArrayType)

    @property
    def dtype(self) -> Any:
        """Element type (arrays) or the scalar type."""
        return self.type.dtype if self.is_array else self.type

    @property
    def ndim(self) -> int:
        return self.type.ndim if self.is_array else 0

    @property
    def inner_shape(self) -> tuple[int, ...]:
        """Trailing JAX dimensions of one element (``(3,)`` for vec3, ``()`` for scalars)."""
        return element_info(self.dtype).inner_shape

    @property
    def np_dtype(self) -> np.dtype:
        """NumPy dtype of the components as JAX has them (``bfloat16`` for warp's bfloat16,
        whose NumPy form is its uint16 bit pattern)."""
        if getattr(self.dtype, "_wp_scalar_type_", self.dtype) is bfloat16:
            return np.dtype(jnp.bfloat16)
        return np.dtype(element_info(self.dtype).np_dtype)

    @property
    def jax_rank(self) -> int:
        return self.ndim + len(self.inner_shape)

    def jax_shape(self, warp_shape: Sequence[int]) -> tuple[int, ...]:
        return tuple(int(d) for d in warp_shape) + self.inner_shape

    def warp_shape(self, jax_shape: Sequence[int]) -> tuple[int, ...]:
        """The warp shape of an (unbatched) JAX shape of this parameter."""
        k = len(self.inner_shape)
        return tuple(jax_shape[: len(jax_shape) - k]) if k else tuple(jax_shape)

    def element_bytes(self, warp_shape: Sequence[int]) -> int:
        return math.prod(warp_shape) * element_info(self.dtype).itemsize

    def check_array(self, value: Any, what: str) -> None:
        """Check a JAX array argument's dtype and shape (batch dimensions are not visible here)."""
        if np.dtype(value.dtype) != self.np_dtype:
            raise TypeError(
                f"{what}: argument '{self.name}' expects an array of {type_repr(self.dtype)} "
                f"(JAX dtype {self.np_dtype}), got dtype {np.dtype(value.dtype)}"
            )
        shape = tuple(value.shape)
        inner = self.inner_shape
        if len(shape) != self.jax_rank or (inner and shape[len(shape) - len(inner):] != inner):
            expected = f"{self.ndim} dimension(s)"
            if inner:
                expected += f" followed by the element dimensions {inner}"
            raise ValueError(
                f"{what}: argument '{self.name}' expects a JAX array with {expected}, got shape {shape}"
            )

    def output_shape(self, dims: Any, what: str) -> tuple[int, ...]:
        """The JAX shape of an output from ``dims`` given in warp or JAX convention (int or sequence)."""
        dims = (int(dims),) if isinstance(dims, (int, np.integer)) else tuple(int(d) for d in dims)
        inner = self.inner_shape
        if len(dims) == self.jax_rank and inner and dims[len(dims) - len(inner):] == inner:
            return dims
        if len(dims) != self.ndim:
            raise ValueError(
                f"{what}: output '{self.name}' is a {self.ndim}-d array but its dimensions are {dims}; "
                "pass output_dims for it"
            )
        return self.jax_shape(dims)


def split_params(names: Sequence[str], types: Sequence[Any], num_outputs: int,
                 in_out_argnames: Sequence[str] | None, what: str) -> tuple[list[Param], list[Param]]:
    """``(inputs, outputs)``: inputs (in-out arguments included) come first, then the outputs.

    ``num_outputs`` counts the in-out arguments too; every output is an array.
    """
    in_out = list(in_out_argnames or [])
    if len(set(in_out)) != len(in_out):
        raise ValueError(f"{what}: in_out_argnames must not contain duplicate names, got {in_out}")
    unknown = [n for n in in_out if n not in names]
    if unknown:
        raise ValueError(
            f"{what}: in_out_argnames {unknown} did not match any function argument names "
            f"(parameters: {list(names)})"
        )
    for n, t in zip(names, types):
        if not (isinstance(t, ArrayType) or is_scalar_type(t)):
            raise TypeError(f"{what}: parameter '{n}' of type {type_repr(t)} cannot be passed from JAX "
                            "(arrays and scalars only)")
        if isinstance(t, ArrayType) and getattr(t.dtype, "_wp_generic_", False):
            raise TypeError(f"{what}: parameter '{n}' has a generic type; JAX needs concrete types")
    num_pure = int(num_outputs) - len(in_out)
    if num_outputs < 1 or num_pure < 0:
        raise ValueError(f"{what}: num_outputs={num_outputs} must be at least 1 and count the "
                         f"{len(in_out)} in-out argument(s)")
    if num_pure > len(names):
        raise ValueError(f"{what}: num_outputs={num_outputs} but there are only {len(names)} parameters")
    split = len(names) - num_pure
    params = [Param(n, t, n in in_out) for n, t in zip(names, types)]
    inputs, outputs = params[:split], params[split:]
    for p in outputs:
        if p.in_out:
            raise ValueError(f"{what}: in-out argument '{p.name}' is among the last num_outputs parameters: "
                             "in_out arguments should be placed before output-only arguments")
        if not p.is_array:
            raise TypeError(f"{what}: output '{p.name}' must be an array, got {type_repr(p.type)}")
    for p in inputs:
        if p.in_out and not p.is_array:
            raise TypeError(f"{what}: in-out argument '{p.name}' must be an array")
    return inputs, outputs


def normalize_dims(dims: Any) -> tuple[int, ...]:
    """Launch or output dimensions as a tuple (an int ``n`` means ``(n,)``)."""
    if isinstance(dims, (int, np.integer)):
        return (int(dims),)
    return tuple(int(d) for d in dims)


def result_struct(shape: Sequence[int], dtype: Any, inputs: Sequence[Any]) -> Any:
    """The ``jax.ShapeDtypeStruct`` of an FFI result. Inside ``shard_map`` it varies over the
    manual mesh axes that any input varies over, as JAX's ``check_vma`` requires (JAX 0.10
    spells that ``manual_axis_type``, earlier versions ``vma``)."""
    varying: frozenset[Any] = frozenset()
    manual_type, mesh = None, None
    for a in inputs:
        aval = jax.typeof(a) if hasattr(jax, "typeof") else None
        manual = getattr(aval, "manual_axis_type", None)
        if manual is not None and manual.varying:
            assert aval is not None  # manual_axis_type was read from it
            manual_type, mesh = type(manual), aval.sharding.mesh
            varying |= frozenset(manual.varying)
        varying |= frozenset(getattr(aval, "vma", None) or ())
    shape = tuple(shape)
    if not varying:
        return jax.ShapeDtypeStruct(shape, dtype)
    if manual_type is not None:
        assert mesh is not None  # set with manual_type
        sharding = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(*([None] * len(shape))))
        return jax.ShapeDtypeStruct(shape, dtype, sharding=sharding,
                                    manual_axis_type=manual_type(varying=varying))
    return jax.ShapeDtypeStruct(shape, dtype, vma=varying)  # type: ignore[call-arg]  # JAX >= 0.7
