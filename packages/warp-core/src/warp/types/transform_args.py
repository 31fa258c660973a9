"""Python-scope arguments of the transform constructor, and transform composition.

``wp.transform()`` is the identity, ``wp.transform(x)`` fills every component with the scalar
``x``, ``wp.transform(t)`` copies (converting the component type), seven numbers are the
components, and ``wp.transform(p, q)`` / ``wp.transform(p=..., q=...)`` take a translation
(3 values) and a rotation quaternion (4 values; the identity rotation when left out). Arguments
that fit none of these forms raise ``TypeError`` naming the argument.
"""

from __future__ import annotations

from typing import Any

import numpy as np

IDENTITY = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)
_NAME = "transformation constructor"


def _is_scalar(v: Any) -> bool:
    return isinstance(v, (bool, int, float, np.number, np.bool_)) or (
        hasattr(type(v), "_kind_") and hasattr(v, "value")  # a warp scalar
    )


def _scalar_value(v: Any) -> Any:
    return getattr(v, "value", v)


def _is_sequence(v: Any) -> bool:
    """Lists, tuples and array-likes (NumPy arrays, objects with ``__array__``: framework tensors)."""
    return isinstance(v, (list, tuple, np.ndarray)) or hasattr(v, "__array__")


def _sequence(name: str, v: Any, size: int) -> list[Any]:
    data = getattr(v, "_data", None)
    if data is not None:
        items = np.asarray(data).reshape(-1).tolist()
    elif not isinstance(v, (list, tuple, np.ndarray)) and hasattr(v, "__array__"):
        items = np.asarray(v).reshape(-1).tolist()
    elif isinstance(v, (list, tuple, np.ndarray)):
        items = [_scalar_value(x) for x in np.asarray(v, dtype=object).reshape(-1)]
    else:
        raise TypeError(f"Invalid argument '{name}' in {_NAME}: expected a sequence, got {type(v).__name__}")
    if len(items) != size:
        raise ValueError(f"Invalid argument '{name}' in {_NAME}: expected {size} values, got {len(items)}")
    return items


def transform_components(args: tuple, kwargs: dict[str, Any]) -> list[Any] | None:
    """The 7 components the constructor call describes; None when a single argument other than a
    scalar (a copy or a sequence of 7) is left to the generic composite constructor."""
    unexpected = [k for k in kwargs if k not in ("p", "q")]
    if unexpected:
        raise TypeError(f"got an unexpected keyword argument '{unexpected[0]}'")
    if len(args) > 2:
        for k in ("p", "q"):
            if k in kwargs:
                raise TypeError(f"multiple values for argument '{k}'")
        return list(args)
    named = dict(zip(("p", "q"), args))
    for k, v in kwargs.items():
        if k in named:
            raise TypeError(f"multiple values for argument '{k}'")
        named[k] = v
    if not named:
        return list(IDENTITY)
    if len(args) == 1 and not kwargs:
        only = args[0]
        if _is_scalar(only):
            return [_scalar_value(only)] * 7
        data = getattr(only, "_data", None)
        if data is None and not _is_sequence(only):
            what = type(only).__name__
            raise TypeError(f"Invalid argument in {_NAME}: expected a scalar value, got {what}")
        if np.size(data if data is not None else np.asarray(only, dtype=object)) != 3:
            return None  # a copy, or the 7 components as one sequence
    p = _sequence("p", named["p"], 3) if "p" in named else [0.0, 0.0, 0.0]
    q = _sequence("q", named["q"], 4) if "q" in named else [0.0, 0.0, 0.0, 1.0]
    return [*p, *q]


def _quat_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    x1, y1, z1, w1 = a
    x2, y2, z2, w2 = b
    return np.array([
        w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
        w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
        w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
        w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
    ])


def _rotate(q: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``quat_rotate``: ``x (2w^2 - 1) + 2w (v x x) + 2v (v . x)`` (exact for unit quaternions)."""
    v, w = q[:3], q[3]
    return x * (2.0 * w * w - 1.0) + np.cross(v, x) * (2.0 * w) + v * (2.0 * np.dot(v, x))


def compose(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a * b`` of two transforms: ``(p_a + rotate(q_a, p_b), q_a q_b)``."""
    return np.concatenate([a[:3] + _rotate(a[3:], b[:3]), _quat_product(a[3:], b[3:])])


__all__ = ["IDENTITY", "compose", "transform_components"]
