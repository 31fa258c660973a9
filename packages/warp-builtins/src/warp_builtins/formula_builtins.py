"""Registration of formula builtins (quaternion, transform and spatial math): the builtins whose
lowering is an :func:`warp_builtins.irexpr.formula`, and the rules giving their result types.

A result rule maps the list of argument types to the result type; the ones here take the float
component type of argument ``k`` (``scalar_of``) and build the result from it.
"""

from __future__ import annotations

from typing import Any, Callable

from warp.extending import BuiltinRegistry, matrix, quaternion, transformation, vector
from warp_builtins.irexpr import formula

#: a result rule: argument types -> result type
ResultRule = Callable[[list[Any]], Any]


def scalar_of(t: Any) -> Any:
    """The component type of a vector/matrix/quaternion/transform type; a scalar type itself."""
    return t._wp_scalar_type_ if hasattr(t, "_wp_kind_") else t


def same_as(k: int) -> ResultRule:
    """The type of argument ``k``."""
    return lambda ts: ts[k]


def scalar_like(k: int) -> ResultRule:
    """The component type of argument ``k``."""
    return lambda ts: scalar_of(ts[k])


def vector_like(n: int, k: int) -> ResultRule:
    """An ``n``-vector of the component type of argument ``k``."""
    return lambda ts: vector(n, scalar_of(ts[k]))


def matrix_like(rows: int, cols: int, k: int) -> ResultRule:
    """A ``rows`` x ``cols`` matrix of the component type of argument ``k``."""
    return lambda ts: matrix((rows, cols), scalar_of(ts[k]))


def quat_like(k: int) -> ResultRule:
    """A quaternion of the component type of argument ``k``."""
    return lambda ts: quaternion(scalar_of(ts[k]))


def xform_like(k: int) -> ResultRule:
    """A transform of the component type of argument ``k``."""
    return lambda ts: transformation(scalar_of(ts[k]))


def add_formula(
    registry: BuiltinRegistry,
    name: str,
    params: list,
    result: ResultRule,
    body: Callable[..., Any],
    doc: str,
    *,
    group: str,
    **kw: Any,
) -> Any:
    """Register builtin ``name`` of ``group``, lowered by ``formula(body, result)``; the other
    keywords go to ``registry.add``. Returns the new overload."""
    lower = formula(body, result)
    return registry.add(name, params=params, result=result, lower=lower, doc=doc, group=group, **kw)
