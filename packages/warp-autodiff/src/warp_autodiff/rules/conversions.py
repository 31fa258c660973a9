"""Rules for the remaining quaternion, transform, spatial and norm builtins of warp-builtins.

Most are given as kernel-language reference implementations (see ``derivative_from_func``):
each ``@wp.func`` below follows the formula and the branch structure of the builtin's lowering
(``warp_builtins.quaternion``, ``.transform``, ``.spatial``, ``.vector_math``), so its adjoint is
the builtin's. Where the lowering selects between candidates that are all computed (``select``),
the reference branches with ``if`` instead, so that the adjoint of a candidate that was not
taken (possibly the square root of a negative number) never reaches the gradient.

Linear builtins that only move components around (``transform_set_translation``,
``spatial_adjoint``, ...) have explicit rules.
"""

from __future__ import annotations

from typing import Any

import warp as wp
from warp.extending import func, int32, CONSTRUCT, derivative, derivative_from_func

from warp_autodiff.rules.context import RuleContext
from warp_autodiff.rules.reference import rotate_xyzw

PI = 3.141592653589793
TWO_PI = 6.283185307179586
HALF_PI = 1.5707963267948966


def _kinds(*kinds: str):
    """Predicate: the argument types have these kinds ("scalar" for scalars, "*" for any)."""

    def kind(t: Any) -> str:
        return getattr(t, "_wp_kind_", "") or "scalar"

    def applies(types: list[Any]) -> bool:
        return len(types) == len(kinds) and all(k == "*" or kind(t) == k for t, k in zip(types, kinds))

    return applies


# -- quaternions ----------------------------------------------------------------------------------

@func
def quat_from_axis_angle_ref(axis: Any, angle: Any):
    half = angle * 0.5
    s = wp.sin(half)
    return wp.quaternion(axis[0] * s, axis[1] * s, axis[2] * s, wp.cos(half))


@func
def quat_to_axis_angle_ref(q: Any):
    u = wp.vector(q[0], q[1], q[2])
    axis = wp.normalize(u)
    if q[3] < 0.0:
        axis = -axis
    return axis, wp.atan2(wp.length(u), wp.abs(q[3])) * 2.0


@func
def quat_to_axis_angle_out_ref(q: Any, axis: Any, angle: Any):
    """The output-parameter form: the results do not depend on the values axis and angle held."""
    return quat_to_axis_angle_ref(q)


@func
def quat_normalize_ref(q: Any):
    """q / |q|, or the identity when |q| is zero (as the builtins normalize)."""
    n = wp.length(q)
    r = q * 0.0
    if n > 0.0:
        r = q * (1.0 / n)
    else:
        r[3] = 1.0
    return r


@func
def quat_slerp_ref(a: Any, b: Any, t: Any):
    axis, angle = quat_to_axis_angle_ref(wp.quat_inverse(a) * b)
    return a * quat_from_axis_angle_ref(axis, angle * t)


@func
def quat_rpy_ref(roll: Any, pitch: Any, yaw: Any):
    cy = wp.cos(yaw * 0.5)
    sy = wp.sin(yaw * 0.5)
    cr = wp.cos(roll * 0.5)
    sr = wp.sin(roll * 0.5)
    cp = wp.cos(pitch * 0.5)
    sp = wp.sin(pitch * 0.5)
    return wp.quaternion(
        cy * sr * cp - sy * cr * sp,
        cy * cr * sp + sy * sr * cp,
        sy * cr * cp - cy * sr * sp,
        cy * cr * cp + sy * sr * sp,
    )


@func
def quat_to_rpy_ref(q: Any):
    x = q[0]
    y = q[1]
    z = q[2]
    w = q[3]
    roll = wp.atan2((w * x + y * z) * 2.0, 1.0 - (x * x + y * y) * 2.0)
    sinp = (w * y - z * x) * 2.0
    pitch = sinp
    if wp.abs(sinp) >= 1.0:
        pitch = wp.copysign(HALF_PI, sinp)
    else:
        pitch = wp.asin(wp.clamp(sinp, -1.0, 1.0))
    yaw = wp.atan2((w * z + x * y) * 2.0, 1.0 - (y * y + z * z) * 2.0)
    return wp.vector(roll, pitch, yaw)


@func
def euler_axis_quat(index: Any, angle: Any):
    """quat_from_axis_angle(e_index, angle) for an integer index (0, 1 or 2)."""
    half = angle * 0.5
    s = wp.sin(half)
    return wp.quaternion(
        wp.where(index == 0, s, 0.0), wp.where(index == 1, s, 0.0), wp.where(index == 2, s, 0.0), wp.cos(half)
    )


@func
def euler_third_slot(i: int, j: int, k: int):
    """The component of e holding the third angle (the remaining one for a proper sequence)."""
    return wp.where(k == i, 3 - i - j, k)


@func
def quat_from_euler_ref(e: Any, i: Any, j: Any, k: Any):
    """Extrinsic rotations about i, j, k by e[i], e[j], e[k]: q_k q_j q_i (as the builtin)."""
    ii = wp.int32(i)
    jj = wp.int32(j)
    kk = wp.int32(k)
    qi = euler_axis_quat(ii, pick_xyz(e, ii))
    qj = euler_axis_quat(jj, pick_xyz(e, jj))
    qk = euler_axis_quat(kk, pick_xyz(e, euler_third_slot(ii, jj, kk)))
    return (qk * qj) * qi


@func
def pick_xyz(q: Any, index: int):
    out = q[0]
    out = wp.where(index == 1, q[1], out)
    out = wp.where(index == 2, q[2], out)
    return out


@func
def wrap_angle(a: Any):
    shifted = a + PI
    return shifted - wp.floor(shifted / TWO_PI) * TWO_PI - PI


@func
def quat_to_euler_impl(q: Any, i: Any, j: Any, k: Any, eps: Any):
    first = wp.int32(k)
    mid = wp.int32(j)
    second = wp.int32(i)
    proper = first == second
    third = wp.where(proper, 3 - first - mid, second)
    cyclic = (first == 0 and mid == 1) or (first == 1 and mid == 2) or (first == 2 and mid == 0)
    qi = pick_xyz(q, first)
    qj = pick_xyz(q, mid)
    qk = pick_xyz(q, third)
    qw = q[3]
    sqk = wp.where(cyclic, qk, -qk)
    a = wp.where(proper, qw, qw - qj)
    b = wp.where(proper, qi, qi + sqk)
    c = wp.where(proper, qj, qj + qw)
    d = wp.where(proper, sqk, sqk - qi)
    t2 = wp.atan2(wp.sqrt(c * c + d * d), wp.sqrt(a * a + b * b)) * 2.0
    at_zero = wp.abs(t2) <= eps
    at_pi = wp.abs(t2 - PI) <= eps
    t1 = t2
    t3 = t2
    if at_zero:
        t1 = wp.atan2(b, a) * 2.0
        t3 = t2 * 0.0
    elif at_pi:
        t1 = wp.atan2(d, c) * -2.0
        t3 = t2 * 0.0
    else:
        half_sum = wp.atan2(b, a)
        half_diff = wp.atan2(d, c)
        t1 = half_sum - half_diff
        t3 = half_sum + half_diff
    if not proper:
        t3 = wp.where(cyclic, t3, -t3)
        t2 = t2 - HALF_PI
    return wp.vector(wrap_angle(t3), t2, wrap_angle(t1))


@func
def quat_to_euler_by_axis(q: Any, i: Any, j: Any, k: Any, eps: Any):
    """Angles about the fixed axes i, j, k, each in its axis's component (inverse of
    quat_from_euler_ref): the intrinsic k, j, i angles, scattered."""
    ii = wp.int32(i)
    jj = wp.int32(j)
    kk = wp.int32(k)
    r = quat_to_euler_impl(q, kk, jj, ii, eps)
    slot = euler_third_slot(ii, jj, kk)
    return wp.vector(
        wp.where(slot == 0, r[0], wp.where(jj == 0, r[1], r[2])),
        wp.where(slot == 1, r[0], wp.where(jj == 1, r[1], r[2])),
        wp.where(slot == 2, r[0], wp.where(jj == 2, r[1], r[2])),
    )


@func
def quat_to_euler_ref(q: wp.quatf, i: Any, j: Any, k: Any):
    return quat_to_euler_by_axis(q, i, j, k, wp.float32(1e-4))


@func  # noqa: F811 - the float64 overload (the builtin's tolerance depends on the precision)
def quat_to_euler_ref(q: wp.quatd, i: Any, j: Any, k: Any):  # noqa: F811
    return quat_to_euler_by_axis(q, i, j, k, wp.float64(1e-7))


@func  # noqa: F811 - float16 (computed in float32 by the builtin, with its tolerance)
def quat_to_euler_ref(q: Any, i: Any, j: Any, k: Any):  # noqa: F811
    return quat_to_euler_by_axis(q, i, j, k, q[3] * 0.0 + 1e-4)


@func
def quat_from_matrix_ref(m: Any):
    """Shepperd's method on the upper-left 3x3 block; the candidate the builtin selects."""
    tr = m[0, 0] + m[1, 1] + m[2, 2]
    q = wp.quaternion(tr, tr, tr, tr)
    if tr >= 0.0:
        h = wp.sqrt(tr + 1.0)
        k = 0.5 / h
        q = wp.quaternion((m[2, 1] - m[1, 2]) * k, (m[0, 2] - m[2, 0]) * k, (m[1, 0] - m[0, 1]) * k, h * 0.5)
    else:
        y_max = m[1, 1] > m[0, 0]
        d_max = wp.where(y_max, m[1, 1], m[0, 0])
        if m[2, 2] > d_max:
            h = wp.sqrt(m[2, 2] - (m[0, 0] + m[1, 1]) + 1.0)
            k = 0.5 / h
            q = wp.quaternion(
                (m[2, 0] + m[0, 2]) * k, (m[1, 2] + m[2, 1]) * k, h * 0.5, (m[1, 0] - m[0, 1]) * k
            )
        elif y_max:
            h = wp.sqrt(m[1, 1] - (m[2, 2] + m[0, 0]) + 1.0)
            k = 0.5 / h
            q = wp.quaternion(
                (m[0, 1] + m[1, 0]) * k, h * 0.5, (m[1, 2] + m[2, 1]) * k, (m[0, 2] - m[2, 0]) * k
            )
        else:
            h = wp.sqrt(m[0, 0] - (m[1, 1] + m[2, 2]) + 1.0)
            k = 0.5 / h
            q = wp.quaternion(
                h * 0.5, (m[0, 1] + m[1, 0]) * k, (m[2, 0] + m[0, 2]) * k, (m[2, 1] - m[1, 2]) * k
            )
    return quat_normalize_ref(q)


@func
def quat_twist_ref(axis: Any, q: Any):
    n = wp.normalize(axis)
    proj = n * wp.dot(wp.vector(q[0], q[1], q[2]), n)
    return quat_normalize_ref(wp.quaternion(proj[0], proj[1], proj[2], q[3]))


@func
def quat_twist_angle_signed_ref(axis: Any, q: Any):
    t = quat_twist_ref(axis, q)
    y = wp.dot(wp.vector(t[0], t[1], t[2]), wp.normalize(axis))
    return wp.atan2(y, t[3]) * 2.0


@func
def quat_twist_angle_ref(axis: Any, q: Any):
    return wp.abs(quat_twist_angle_signed_ref(axis, q))


Q, V, S, M, T = "quaternion", "vector", "scalar", "matrix", "transform"
derivative_from_func("quat_from_axis_angle", quat_from_axis_angle_ref, applies=_kinds(V, S))
derivative_from_func("quat_to_axis_angle", quat_to_axis_angle_ref, applies=_kinds(Q))
derivative_from_func("quat_to_axis_angle", quat_to_axis_angle_out_ref, applies=_kinds(Q, V, S))
derivative_from_func("quat_slerp", quat_slerp_ref, applies=_kinds(Q, Q, S))
derivative_from_func("quat_rpy", quat_rpy_ref, applies=_kinds(S, S, S))
derivative_from_func("quat_to_rpy", quat_to_rpy_ref, applies=_kinds(Q))
derivative_from_func("quat_from_euler", quat_from_euler_ref, applies=_kinds(V, S, S, S))
derivative_from_func("quat_to_euler", quat_to_euler_ref, applies=_kinds(Q, S, S, S))
derivative_from_func("quat_from_matrix", quat_from_matrix_ref, applies=_kinds(M))
derivative_from_func("quat_twist", quat_twist_ref, applies=_kinds(V, Q))
derivative_from_func("quat_twist_angle", quat_twist_angle_ref, applies=_kinds(V, Q))
derivative_from_func("quat_twist_angle_signed", quat_twist_angle_signed_ref, applies=_kinds(V, Q))

# -- transforms and 4x4 matrices ------------------------------------------------------------------


@func
def compose_ref(p: Any, q: Any, s: Any):
    """[R(q) diag(s) | p; 0 0 0 1], R(q) as quat_to_matrix computes it."""
    x = q[0]
    y = q[1]
    z = q[2]
    w = q[3]
    c = w * w * 2.0 - 1.0
    xx = x * x * 2.0
    yy = y * y * 2.0
    zz = z * z * 2.0
    xy = x * y * 2.0
    xz = x * z * 2.0
    yz = y * z * 2.0
    wx = w * x * 2.0
    wy = w * y * 2.0
    wz = w * z * 2.0
    return wp.matrix(
        (c + xx) * s[0], (xy - wz) * s[1], (xz + wy) * s[2], p[0],
        (xy + wz) * s[0], (c + yy) * s[1], (yz - wx) * s[2], p[1],
        (xz - wy) * s[0], (yz + wx) * s[1], (c + zz) * s[2], p[2],
        0.0, 0.0, 0.0, 1.0,
        shape=(4, 4),
    )


@func
def transform_to_matrix_ref(t: Any):
    p = wp.vector(t[0], t[1], t[2])
    one = t[0] * 0.0 + 1.0
    return compose_ref(p, wp.quaternion(t[3], t[4], t[5], t[6]), wp.vector(one, one, one))


@func
def transform_from_matrix_ref(m: Any):
    q = quat_from_matrix_ref(m)
    r = wp.transformation(wp.vector(m[0, 3], m[1, 3], m[2, 3]), q)
    return r


@func
def transform_decompose_ref(m: Any):
    c0 = wp.vector(m[0, 0], m[1, 0], m[2, 0])
    c1 = wp.vector(m[0, 1], m[1, 1], m[2, 1])
    c2 = wp.vector(m[0, 2], m[1, 2], m[2, 2])
    s = wp.vector(wp.length(c0), wp.length(c1), wp.length(c2))
    if s[0] > 0.0:
        c0 = c0 * (1.0 / s[0])
    else:
        c0 = c0 * 0.0
    if s[1] > 0.0:
        c1 = c1 * (1.0 / s[1])
    else:
        c1 = c1 * 0.0
    if s[2] > 0.0:
        c2 = c2 * (1.0 / s[2])
    else:
        c2 = c2 * 0.0
    r = wp.matrix_from_cols(c0, c1, c2)
    return wp.vector(m[0, 3], m[1, 3], m[2, 3]), quat_from_matrix_ref(r), s


@func
def mat_point_ref(m: Any, p: Any):
    r = p
    r[0] = m[0, 0] * p[0] + m[0, 1] * p[1] + m[0, 2] * p[2] + m[0, 3]
    r[1] = m[1, 0] * p[0] + m[1, 1] * p[1] + m[1, 2] * p[2] + m[1, 3]
    r[2] = m[2, 0] * p[0] + m[2, 1] * p[1] + m[2, 2] * p[2] + m[2, 3]
    return r


@func
def mat_vector_ref(m: Any, v: Any):
    r = v
    r[0] = m[0, 0] * v[0] + m[0, 1] * v[1] + m[0, 2] * v[2]
    r[1] = m[1, 0] * v[0] + m[1, 1] * v[1] + m[1, 2] * v[2]
    r[2] = m[2, 0] * v[0] + m[2, 1] * v[1] + m[2, 2] * v[2]
    return r


derivative_from_func("transform_to_matrix", transform_to_matrix_ref, applies=_kinds(T))
derivative_from_func("transform_from_matrix", transform_from_matrix_ref, applies=_kinds(M))
derivative_from_func("transform_compose", compose_ref, applies=_kinds(V, Q, V))
derivative_from_func("transform_decompose", transform_decompose_ref, applies=_kinds(M))
derivative_from_func("transform_point", mat_point_ref, applies=_kinds(M, V))
derivative_from_func("transform_vector", mat_vector_ref, applies=_kinds(M, V))


def _set_part(start: int):
    """transform_set_translation (components 0-2) / transform_set_rotation (3-6), copy or in place:
    r = t with r[start:start+n] = x: adj_t = adj_r with that part cleared, adj_x = that part."""

    def backward(ctx: RuleContext) -> list[Any]:
        e, g = ctx.e, ctx.adj_out
        x_type = ctx.op.args[1].type
        n = x_type._shape_[0]
        zero = e.scalar(0.0, g)
        dt = g
        parts = []
        for k in range(n):
            idx = e.const(start + k, int32)
            parts.append(e.call("extract", g, idx))
            dt = e.call("assign_copy", dt, idx, zero)
        dx = None
        if ctx.wants(1):
            dx = e.zero(x_type)
            for k, part in enumerate(parts):
                dx = e.call("assign_copy", dx, e.const(k, int32), part)
        return [dt if ctx.wants(0) else None, dx]

    return backward


for _name in ("transform_set_translation", "transform_set_translation_copy"):
    derivative(_name, applies=_kinds(T, V), primal_args=())(_set_part(0))
for _name in ("transform_set_rotation", "transform_set_rotation_copy"):
    derivative(_name, applies=_kinds(T, Q), primal_args=())(_set_part(3))

# -- spatial ----------------------------------------------------------------------------------------


@func
def spatial_from_parts(like: Any, w: Any, v: Any):
    """A spatial vector of ``like``'s type with top (angular) part w and bottom (linear) part v."""
    r = like
    r[0] = w[0]
    r[1] = w[1]
    r[2] = w[2]
    r[3] = v[0]
    r[4] = v[1]
    r[5] = v[2]
    return r


@func
def transform_twist_ref(t: Any, x: Any):
    w = rotate_xyzw(t[3], t[4], t[5], t[6], wp.vector(x[0], x[1], x[2]))
    v = rotate_xyzw(t[3], t[4], t[5], t[6], wp.vector(x[3], x[4], x[5])) + wp.cross(
        wp.vector(t[0], t[1], t[2]), w
    )
    return spatial_from_parts(x, w, v)


@func
def transform_wrench_ref(t: Any, x: Any):
    v = rotate_xyzw(t[3], t[4], t[5], t[6], wp.vector(x[3], x[4], x[5]))
    w = rotate_xyzw(t[3], t[4], t[5], t[6], wp.vector(x[0], x[1], x[2])) + wp.cross(
        wp.vector(t[0], t[1], t[2]), v
    )
    return spatial_from_parts(x, w, v)


derivative_from_func("transform_twist", transform_twist_ref, applies=_kinds(T, V))
derivative_from_func("transform_wrench", transform_wrench_ref, applies=_kinds(T, V))


@derivative("spatial_adjoint", applies=_kinds(M, M), primal_args=())
def _spatial_adjoint(ctx: RuleContext) -> list[Any]:
    """r = [[R, 0], [S, R]]: adj_R = adj_r[:3, :3] + adj_r[3:, 3:], adj_S = adj_r[3:, :3]."""
    e, g = ctx.e, ctx.adj_out
    r_type, s_type = ctx.op.args[0].type, ctx.op.args[1].type

    def at(i: int, j: int) -> Any:
        return e.call("extract", g, e.const(i, int32), e.const(j, int32))

    dr = [e.add(at(i, j), at(i + 3, j + 3)) for i in range(3) for j in range(3)] if ctx.wants(0) else None
    ds = [at(i + 3, j) for i in range(3) for j in range(3)] if ctx.wants(1) else None
    return [
        e.internal(CONSTRUCT, dr, r_type) if dr else None,
        e.internal(CONSTRUCT, ds, s_type) if ds else None,
    ]


# -- Huber norms ---------------------------------------------------------------------------------


@func
def norm_huber_ref(v: Any, delta: Any):
    sq = wp.dot(v, v)
    if sq <= delta * delta:
        return 0.5 * sq
    return delta * (wp.sqrt(sq) - 0.5 * delta)


@func
def norm_huber_unit_ref(v: Any):
    sq = wp.dot(v, v)
    if sq <= 1.0:
        return 0.5 * sq
    return wp.sqrt(sq) - 0.5


@func
def norm_pseudo_huber_ref(v: Any, delta: Any):
    return delta * wp.sqrt(1.0 + wp.dot(v, v) / (delta * delta))


@func
def norm_pseudo_huber_unit_ref(v: Any):
    return wp.sqrt(1.0 + wp.dot(v, v))


@func
def smooth_normalize_ref(v: Any, delta: Any):
    return v * (1.0 / norm_pseudo_huber_ref(v, delta))


@func
def smooth_normalize_unit_ref(v: Any):
    return v * (1.0 / norm_pseudo_huber_unit_ref(v))


derivative_from_func("norm_huber", norm_huber_ref, applies=_kinds(V, S))
derivative_from_func("norm_huber", norm_huber_unit_ref, applies=_kinds(V))
derivative_from_func("norm_pseudo_huber", norm_pseudo_huber_ref, applies=_kinds(V, S))
derivative_from_func("norm_pseudo_huber", norm_pseudo_huber_unit_ref, applies=_kinds(V))
derivative_from_func("smooth_normalize", smooth_normalize_ref, applies=_kinds(V, S))
derivative_from_func("smooth_normalize", smooth_normalize_unit_ref, applies=_kinds(V))
