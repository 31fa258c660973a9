"""Rules given as kernel-language reference implementations (see ``derivative_from_func``).

The builtins keep their fast lowering for the forward pass; their adjoints are the adjoints of
the ``@wp.func`` bodies below, which compute the same values with differentiable operations.
Generic (``Any``) parameters specialize for float32 and float64; results are built by
assigning the components of a copy of an argument of the result's type.
"""

from __future__ import annotations

from typing import Any

import warp as wp
from warp.extending import func, int32, derivative, derivative_from_func

from warp_autodiff.rules.context import RuleContext


@func
def rotate_xyzw(x: Any, y: Any, z: Any, w: Any, v: Any):
    """Components 0..2 of ``v`` rotated by the unit quaternion (x, y, z, w), in the builtin's order."""
    c = 2.0 * w * w - 1.0
    d = 2.0 * (x * v[0] + y * v[1] + z * v[2])
    r = v
    r[0] = v[0] * c + 2.0 * w * (y * v[2] - z * v[1]) + x * d
    r[1] = v[1] * c + 2.0 * w * (z * v[0] - x * v[2]) + y * d
    r[2] = v[2] * c + 2.0 * w * (x * v[1] - y * v[0]) + z * d
    return r


@func
def quat_rotate_ref(q: Any, v: Any):
    return rotate_xyzw(q[0], q[1], q[2], q[3], v)


@func
def quat_rotate_inv_ref(q: Any, v: Any):
    return rotate_xyzw(-q[0], -q[1], -q[2], q[3], v)


@func
def quat_inverse_ref(q: Any):
    r = q
    r[0] = -q[0]
    r[1] = -q[1]
    r[2] = -q[2]
    return r


@func
def transform_point_ref(t: Any, p: Any):
    r = rotate_xyzw(t[3], t[4], t[5], t[6], p)
    r[0] = r[0] + t[0]
    r[1] = r[1] + t[1]
    r[2] = r[2] + t[2]
    return r


@func
def transform_vector_ref(t: Any, v: Any):
    return rotate_xyzw(t[3], t[4], t[5], t[6], v)


@func
def transform_multiply_ref(a: Any, b: Any):
    x = a[3]
    y = a[4]
    z = a[5]
    w = a[6]
    r = rotate_xyzw(x, y, z, w, b)
    r[0] = r[0] + a[0]
    r[1] = r[1] + a[1]
    r[2] = r[2] + a[2]
    x2 = b[3]
    y2 = b[4]
    z2 = b[5]
    w2 = b[6]
    r[3] = w * x2 + x * w2 + y * z2 - z * y2
    r[4] = w * y2 - x * z2 + y * w2 + z * x2
    r[5] = w * z2 + x * y2 - y * x2 + z * w2
    r[6] = w * w2 - x * x2 - y * y2 - z * z2
    return r


@func
def transform_inverse_ref(t: Any):
    r = rotate_xyzw(-t[3], -t[4], -t[5], t[6], t)
    r[0] = -r[0]
    r[1] = -r[1]
    r[2] = -r[2]
    r[3] = -t[3]
    r[4] = -t[4]
    r[5] = -t[5]
    return r


@func
def quat_to_matrix_ref(q: wp.quatf):
    x = q[0]
    y = q[1]
    z = q[2]
    w = q[3]
    c = 2.0 * w * w - 1.0  # columns are quat_rotate(q, e_j), as the builtin computes them
    return wp.mat33f(
        c + 2.0 * x * x, 2.0 * (x * y - z * w), 2.0 * (x * z + y * w),
        2.0 * (x * y + z * w), c + 2.0 * y * y, 2.0 * (y * z - x * w),
        2.0 * (x * z - y * w), 2.0 * (y * z + x * w), c + 2.0 * z * z,
    )


@func  # noqa: F811 - a second overload of the same function (float64)
def quat_to_matrix_ref(q: wp.quatd):  # noqa: F811
    x = q[0]
    y = q[1]
    z = q[2]
    w = q[3]
    c = 2.0 * w * w - 1.0  # columns are quat_rotate(q, e_j), as the builtin computes them
    return wp.mat33d(
        c + 2.0 * x * x, 2.0 * (x * y - z * w), 2.0 * (x * z + y * w),
        2.0 * (x * y + z * w), c + 2.0 * y * y, 2.0 * (y * z - x * w),
        2.0 * (x * z - y * w), 2.0 * (y * z + x * w), c + 2.0 * z * z,
    )


@func  # noqa: F811 - any other precision (float16)
def quat_to_matrix_ref(q: Any):  # noqa: F811
    x = q[0]
    y = q[1]
    z = q[2]
    w = q[3]
    c = 2.0 * w * w - 1.0
    return wp.matrix(
        c + 2.0 * x * x, 2.0 * (x * y - z * w), 2.0 * (x * z + y * w),
        2.0 * (x * y + z * w), c + 2.0 * y * y, 2.0 * (y * z - x * w),
        2.0 * (x * z - y * w), 2.0 * (y * z + x * w), c + 2.0 * z * z,
        shape=(3, 3),
    )


def _kinds(*kinds: str):
    def applies(types: list[Any]) -> bool:
        return len(types) == len(kinds) and all(
            getattr(t, "_wp_kind_", "") == k for t, k in zip(types, kinds)
        )

    return applies


derivative_from_func("quat_rotate", quat_rotate_ref, applies=_kinds("quaternion", "vector"))
derivative_from_func("quat_rotate_inv", quat_rotate_inv_ref, applies=_kinds("quaternion", "vector"))
derivative_from_func("quat_inverse", quat_inverse_ref, applies=_kinds("quaternion"))
derivative_from_func("quat_to_matrix", quat_to_matrix_ref, applies=_kinds("quaternion"))
derivative_from_func("transform_point", transform_point_ref, applies=_kinds("transform", "vector"))
derivative_from_func("transform_vector", transform_vector_ref, applies=_kinds("transform", "vector"))
derivative_from_func("transform_inverse", transform_inverse_ref, applies=_kinds("transform"))
for _name in ("mul", "transform_multiply"):
    derivative_from_func(_name, transform_multiply_ref, applies=_kinds("transform", "transform"))


def _slice_rule(start: int):
    """transform_get_translation (components 0-2) / transform_get_rotation (3-6)."""

    def backward(ctx: RuleContext) -> list[Any]:
        e, g = ctx.e, ctx.adj_out
        t = ctx.op.args[0].type
        out = e.zero(t)
        for k in range(g.type._shape_[0]):
            part = e.call("extract", g, e.const(k, int32))
            out = e.call("assign_copy", out, e.const(start + k, int32), part)
        return [out]

    return backward


derivative("transform_get_translation", primal_args=())(_slice_rule(0))
derivative("transform_get_rotation", primal_args=())(_slice_rule(3))


@func
def spatial_cross_ref(a: Any, b: Any):
    r = a
    r[0] = a[1] * b[2] - a[2] * b[1]
    r[1] = a[2] * b[0] - a[0] * b[2]
    r[2] = a[0] * b[1] - a[1] * b[0]
    r[3] = (a[4] * b[2] - a[5] * b[1]) + (a[1] * b[5] - a[2] * b[4])
    r[4] = (a[5] * b[0] - a[3] * b[2]) + (a[2] * b[3] - a[0] * b[5])
    r[5] = (a[3] * b[1] - a[4] * b[0]) + (a[0] * b[4] - a[1] * b[3])
    return r


@func
def spatial_cross_dual_ref(a: Any, b: Any):
    r = a
    r[0] = (a[1] * b[2] - a[2] * b[1]) + (a[4] * b[5] - a[5] * b[4])
    r[1] = (a[2] * b[0] - a[0] * b[2]) + (a[5] * b[3] - a[3] * b[5])
    r[2] = (a[0] * b[1] - a[1] * b[0]) + (a[3] * b[4] - a[4] * b[3])
    r[3] = a[1] * b[5] - a[2] * b[4]
    r[4] = a[2] * b[3] - a[0] * b[5]
    r[5] = a[0] * b[4] - a[1] * b[3]
    return r


@func
def velocity_at_point_ref(qd: Any, p: Any):
    r = p
    r[0] = qd[1] * p[2] - qd[2] * p[1] + qd[3]
    r[1] = qd[2] * p[0] - qd[0] * p[2] + qd[4]
    r[2] = qd[0] * p[1] - qd[1] * p[0] + qd[5]
    return r


derivative_from_func("spatial_cross", spatial_cross_ref, applies=_kinds("vector", "vector"))
derivative_from_func("spatial_cross_dual", spatial_cross_dual_ref, applies=_kinds("vector", "vector"))
derivative_from_func("velocity_at_point", velocity_at_point_ref, applies=_kinds("vector", "vector"))
derivative("spatial_top", primal_args=())(_slice_rule(0))
derivative("spatial_bottom", primal_args=())(_slice_rule(3))
