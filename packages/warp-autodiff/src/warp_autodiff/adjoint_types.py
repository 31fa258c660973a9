"""Which warp types carry adjoints: predicates shared by the derivative rules, the adjoint
operations (:mod:`warp_autodiff.ops`) and the reverse-mode transform."""

from __future__ import annotations

from typing import Any

from warp.extending import ArrayType, is_scalar_type


def is_composite(t: Any) -> bool:
    return (
        isinstance(t, type)
        and getattr(t, "_wp_kind_", "") != ""
        and getattr(t, "_wp_scalar_type_", None) is not None
    )


def is_float_scalar(t: Any) -> bool:
    return is_scalar_type(t) and t._kind_ == "float"


def is_struct(t: Any) -> bool:
    return isinstance(t, type) and getattr(t, "_wp_kind_", "") == "struct"


def is_differentiable(t: Any) -> bool:
    """Whether values of type ``t`` carry adjoints: float scalars, float composites, and structs
    with such fields (their adjoint is a struct of the same type holding the fields' adjoints).

    A type may opt in or out explicitly with a ``_wp_differentiable_`` class attribute.
    """
    flag = getattr(t, "_wp_differentiable_", None)
    if flag is not None:
        return bool(flag)
    if is_float_scalar(t):
        return True
    if is_struct(t):
        return any(is_differentiable(ft) for _, ft in t._fields_)
    return is_composite(t) and is_float_scalar(t._wp_scalar_type_)


def is_array(t: Any) -> bool:
    return isinstance(t, ArrayType)


def carries_arrays(t: Any) -> bool:
    """Arrays, and structs with array fields: their adjoints (gradient arrays) flow forward."""
    if is_array(t):
        return True
    return is_struct(t) and any(carries_arrays(ft) for _, ft in t._fields_)
