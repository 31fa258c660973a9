"""Short type codes and generic type comparison over sequences (``warp.types`` API).

``get_type_code(t)`` spells a type as a compact string, the form used where a type must become
part of a name: ``float32`` -> ``f4``, ``vec3f`` -> ``v3f4``, ``mat33d`` -> ``m33f8``,
``quatf`` -> ``qf4``, ``tuple[float, vec3f]`` -> ``tpl2f4v3f4``; ``tuple[vec3f, ...]`` (any length)
is ``tpl2v3f4?``. ``types_equal_generic(a, b)`` compares types as :func:`types_equal` with
generics matching, and also tuples of types, where ``(T, Ellipsis)`` matches any number of ``T``.
"""

from __future__ import annotations

import builtins
from typing import Any, get_args, get_origin

from warp.types.composite_values import is_composite
from warp.types.helpers import _array_type, types_equal
from warp.types.scalars import canonical_type, is_scalar_type

_KIND_LETTER = {"int": "i", "uint": "u", "float": "f", "bool": "b"}
_COMPOSITE_LETTER = {"quaternion": "q", "transform": "t"}


def _scalar_code(t: Any) -> str:
    if t.__name__ == "bfloat16":
        return "bf2"
    if t._kind_ == "bool":
        return "b"
    return f"{_KIND_LETTER[t._kind_]}{t._bits_ // 8}"


def get_type_code(t: Any) -> str:
    """A short string naming type ``t`` (scalars, composites, arrays and tuples of those).

    Raises ``TypeError`` ("Unrecognized type ...") for types that are not warp types.
    """
    if t is Ellipsis:
        return "?"
    if get_origin(t) is tuple:
        args = get_args(t)
        return f"tpl{len(args)}" + "".join(get_type_code(a) for a in args)
    array = _array_type(t)
    if array is not None:
        return f"a{array.ndim}{get_type_code(array.dtype)}"
    t = canonical_type(t)
    if is_scalar_type(t):
        return _scalar_code(t)
    if is_composite(t):
        scalar = _scalar_code(t._wp_scalar_type_)
        if t._wp_kind_ == "vector":
            return f"v{t._shape_[0]}{scalar}"
        if t._wp_kind_ == "matrix":
            return f"m{t._shape_[0]}{t._shape_[1]}{scalar}"
        return f"{_COMPOSITE_LETTER[t._wp_kind_]}{scalar}"
    name = getattr(t, "__name__", None) or repr(t)
    raise TypeError(f"Unrecognized type '{name}'")


def _sequence(t: Any) -> tuple[Any, ...] | None:
    if isinstance(t, (tuple, list)):
        return tuple(t)
    if get_origin(t) is tuple:
        return get_args(t)
    return None


def _check_ellipsis(pattern: tuple[Any, ...]) -> builtins.bool:
    """True if ``pattern`` is ``(T, Ellipsis)``; TypeError if Ellipsis appears in any other way."""
    if Ellipsis not in pattern:
        return False
    if len(pattern) != 2 or pattern[1] is not Ellipsis or pattern[0] is Ellipsis:
        raise TypeError(
            f"An ellipsis sequence pattern must contain one type followed by Ellipsis, got {pattern!r}"
        )
    return True


def types_equal_generic(a: Any, b: Any) -> builtins.bool:
    """:func:`types_equal` with generics matching, extended to tuples of types.

    A tuple ``(T, Ellipsis)`` on either side matches a tuple of any length whose items all match ``T``.
    """
    seq_a, seq_b = _sequence(a), _sequence(b)
    if seq_a is None and seq_b is None:
        return types_equal(a, b, match_generic=True)
    if seq_a is None or seq_b is None:
        return False
    for pattern, other in ((seq_a, seq_b), (seq_b, seq_a)):
        if _check_ellipsis(pattern):
            if _check_ellipsis(other):
                return types_equal_generic(pattern[0], other[0])
            return all(types_equal_generic(pattern[0], item) for item in other)
    return len(seq_a) == len(seq_b) and all(types_equal_generic(x, y) for x, y in zip(seq_a, seq_b))


__all__ = ["get_type_code", "types_equal_generic"]
