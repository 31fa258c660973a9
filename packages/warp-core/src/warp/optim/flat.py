"""Flat scalar views of parameter and gradient arrays, shared by the optimizers."""

from __future__ import annotations

from typing import Any, Sequence

from warp.arrays import array, zeros
from warp.types.composite import matrix, vector
from warp.types.helpers import type_is_matrix, type_length, type_scalar_type, type_to_warp
from warp.types.scalars import float16, float32, float64, type_repr

FLOAT_TYPES = (float16, float32, float64)


def scalar_of(optimizer: str, dtype: Any) -> Any:
    """The floating-point scalar type of a parameter dtype, or a TypeError naming the optimizer."""
    scalar = type_to_warp(type_scalar_type(dtype))
    if scalar not in FLOAT_TYPES:
        raise TypeError(
            f"{optimizer} parameters must be arrays of float16, float32 or float64 scalars, vectors or "
            f"matrices, got {type_repr(dtype)}"
        )
    return scalar


def flat_view(optimizer: str, what: str, a: array, scalar: Any) -> array:
    """A contiguous 1-D view of ``a``'s scalar components (no copy)."""
    if not isinstance(a, array):
        raise TypeError(f"{optimizer} {what} must be a wp.array, got {type(a).__name__}")
    if not a.is_contiguous:
        raise ValueError(f"{optimizer} {what} must be contiguous (call .contiguous() first)")
    n = a.size * type_length(a.dtype)
    return array(ptr=a.ptr, dtype=scalar, shape=(n,), device=a.device)


def state_scalar(scalar: Any) -> Any:
    """The scalar type optimizer state is kept in (float32 for float16 parameters)."""
    return float32 if scalar == float16 else scalar


def check_grads(optimizer: str, params: Sequence[array], grads: Sequence[Any]) -> None:
    """Raise a clear error unless ``grads`` pairs up with ``params`` (count, dtype, shape, device)."""
    if len(grads) != len(params):
        raise ValueError(f"{optimizer}.step() expects {len(params)} gradient arrays (one per parameter), "
                         f"got {len(grads)}")
    for p, g in zip(params, grads):
        if not isinstance(g, array):
            raise TypeError(f"{optimizer} gradients must be wp.arrays, got {type(g).__name__}")
        if g.dtype != p.dtype:
            raise TypeError(f"{optimizer} gradient dtype must match parameter dtype {type_repr(p.dtype)}, "
                            f"got {type_repr(g.dtype)}")
        if g.shape != p.shape:
            raise ValueError(f"{optimizer} gradient shape must match parameter shape {p.shape}, "
                             f"got {g.shape}")
        if g.device != p.device:
            raise ValueError(f"{optimizer} gradient device {g.device} differs from parameter device "
                             f"{p.device}")


def state_buffer(p: array) -> tuple[array, array]:
    """A zeroed state buffer shaped like ``p`` (float32 components for float16 ones) and its flat view."""
    scalar = type_to_warp(type_scalar_type(p.dtype))
    state = state_scalar(scalar)
    dtype = p.dtype
    if state != scalar:
        if type_is_matrix(dtype):
            dtype = matrix(dtype._shape_, state)
        elif type_length(dtype) > 1 or dtype != scalar:
            dtype = vector(type_length(dtype), state)
        else:
            dtype = state
    buffer = zeros(p.shape, dtype=dtype, device=p.device)
    return buffer, flat_view("optimizer", "state", buffer, state)


def bind_params(
    optimizer: str,
    params: Sequence[array],
    old_params: Sequence[array] | None,
    buffers: Sequence[list[array]],
    flat: Sequence[tuple[Any, ...]],
) -> tuple[list[array], list[list[array]], list[tuple[Any, ...]]]:
    """Bind an optimizer to ``params``. ``buffers`` holds its state buffers, one list per kind (Adam:
    m and v; SGD: b) parallel to ``old_params``, and ``flat`` its entries ``(scalar, flat parameter,
    flat state of each kind)``. A parameter that was bound before (the same array, same shape)
    keeps its buffers; others get zeroed ones. Returns the new ``(params, buffers, flat)``."""
    params = list(params)
    old = {id(p): k for k, p in enumerate(old_params or [])}
    new_buffers: list[list[array]] = [[] for _ in buffers]
    new_flat: list[tuple[Any, ...]] = []
    for p in params:
        scalar = scalar_of(optimizer, p.dtype)
        k = old.get(id(p))
        if k is not None and buffers[0][k].shape == p.shape:
            states = [(kind[k], flat[k][2 + n]) for n, kind in enumerate(buffers)]
        else:
            states = [state_buffer(p) for _ in buffers]
        for kind, (buffer, _) in zip(new_buffers, states):
            kind.append(buffer)
        new_flat.append((scalar, flat_view(optimizer, "parameters", p, scalar), *(f for _, f in states)))
    return params, new_buffers, new_flat
