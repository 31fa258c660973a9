"""Quaternion math: rotations, conversions to and from matrices, axis-angle and Euler angles.

Quaternions are stored (x, y, z, w) with w the real part. Formulas are written over component
lists with :mod:`warp_builtins.irexpr`; the helpers ``qmul``, ``qrotate``, ... are shared with
the transform and spatial modules.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any, Sequence

import llvmlite.ir as ir

from warp.extending import (
    BuiltinRegistry,
    Float,
    Int,
    is_placeholder,
    MatrixOf,
    quaternion as quat_type,
    QuatOf,
    TypeVar,
    vector,
    VectorOf,
)
from warp_builtins.formula_builtins import (
    add_formula, matrix_like, quat_like, scalar_like, scalar_of, vector_like,
)
from warp_builtins.irexpr import Emitter, Num, add, cross, dot, length, normalize, scale
from warp_builtins.special_forms import SpecialForm, constructor_kernel, identity_kernel, python_dtype

GROUP = "Quaternion Math"
F = TypeVar("F", Float)
QUAT = QuatOf(F)
VEC3 = VectorOf(3, F)

# ---------------------------------------------------------------------------------- formulas


def qmul(a: Sequence[Num], b: Sequence[Num]) -> list[Num]:
    """Hamilton product a * b."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]


def qconj(q: Sequence[Num]) -> list[Num]:
    """The inverse of a unit quaternion (its conjugate)."""
    return [-q[0], -q[1], -q[2], q[3]]


def qrotate(q: Sequence[Num], v: Sequence[Num]) -> list[Num]:
    """v rotated by the unit quaternion q."""
    u, w = list(q[:3]), q[3]
    c = w * w * 2.0 - 1.0
    return add(add(scale(v, c), scale(cross(u, v), w * 2.0)), scale(u, dot(u, v) * 2.0))


def qrotate_inv(q: Sequence[Num], v: Sequence[Num]) -> list[Num]:
    """v rotated by the inverse of the unit quaternion q."""
    u, w = list(q[:3]), q[3]
    c = w * w * 2.0 - 1.0
    b = scale(cross(u, v), w * 2.0)
    return [a - bb + cc for a, bb, cc in zip(scale(v, c), b, scale(u, dot(u, v) * 2.0))]


def qfrom_axis_angle(em: Emitter, axis: Sequence[Num], angle: Num) -> list[Num]:
    half = angle * 0.5
    return [*scale(axis, em.sin(half)), em.cos(half)]


def qto_axis_angle(em: Emitter, q: Sequence[Num]) -> tuple[list[Num], Num]:
    """Unit axis (zero for the identity) and angle in [0, pi]."""
    u, w = list(q[:3]), q[3]
    sign = em.select(w < 0.0, -1.0, 1.0)
    axis = scale(normalize(em, u), sign)
    return axis, em.atan2(length(em, u), em.abs(w)) * 2.0


def qto_matrix(q: Sequence[Num]) -> list[Num]:
    """Row-major 3x3 rotation matrix of a unit quaternion (columns are rotated basis vectors)."""
    x, y, z, w = q
    c = w * w * 2.0 - 1.0
    xx, yy, zz = x * x * 2.0, y * y * 2.0, z * z * 2.0
    xy, xz, yz = x * y * 2.0, x * z * 2.0, y * z * 2.0
    wx, wy, wz = w * x * 2.0, w * y * 2.0, w * z * 2.0
    return [
        c + xx, xy - wz, xz + wy,
        xy + wz, c + yy, yz - wx,
        xz - wy, yz + wx, c + zz,
    ]


def qnormalize(em: Emitter, q: Sequence[Num]) -> list[Num]:
    """q / |q|, or the identity when |q| is zero."""
    n = length(em, q)
    ok = n > 0.0
    inv = em.select(ok, 1.0 / n, 0.0)
    x, y, z, w = scale(q, inv)
    return [x, y, z, em.select(ok, w, 1.0)]


def qfrom_matrix(em: Emitter, m: Sequence[Num], cols: int) -> list[Num]:
    """Unit quaternion of the rotation in the upper-left 3x3 block (branch-free Shepperd method)."""

    def a(i: int, j: int) -> Num:
        return m[i * cols + j]

    tr = a(0, 0) + a(1, 1) + a(2, 2)
    candidates = []
    # trace >= 0: w is the largest component
    h = em.sqrt(tr + 1.0)
    k = 0.5 / h
    candidates.append([(a(2, 1) - a(1, 2)) * k, (a(0, 2) - a(2, 0)) * k, (a(1, 0) - a(0, 1)) * k, h * 0.5])
    # otherwise the largest diagonal entry picks the largest of x, y, z
    h = em.sqrt(a(0, 0) - (a(1, 1) + a(2, 2)) + 1.0)
    k = 0.5 / h
    candidates.append([h * 0.5, (a(0, 1) + a(1, 0)) * k, (a(2, 0) + a(0, 2)) * k, (a(2, 1) - a(1, 2)) * k])
    h = em.sqrt(a(1, 1) - (a(2, 2) + a(0, 0)) + 1.0)
    k = 0.5 / h
    candidates.append([(a(0, 1) + a(1, 0)) * k, h * 0.5, (a(1, 2) + a(2, 1)) * k, (a(0, 2) - a(2, 0)) * k])
    h = em.sqrt(a(2, 2) - (a(0, 0) + a(1, 1)) + 1.0)
    k = 0.5 / h
    candidates.append([(a(2, 0) + a(0, 2)) * k, (a(1, 2) + a(2, 1)) * k, h * 0.5, (a(1, 0) - a(0, 1)) * k])
    y_max = a(1, 1) > a(0, 0)
    d_max = em.select(y_max, a(1, 1), a(0, 0))
    diag = em.select_all(y_max, candidates[2], candidates[1])
    diag = em.select_all(a(2, 2) > d_max, candidates[3], diag)
    return qnormalize(em, em.select_all(tr >= 0.0, candidates[0], diag))


def as_i32(em: Emitter, index: Any) -> Any:
    """An integer SSA index as i32 (indices of any integer type are accepted)."""
    i32 = ir.IntType(32)
    if index.type.width > 32:
        return em.b.trunc(index, i32)
    if index.type.width < 32:
        return em.b.sext(index, i32)
    return index


def axis_vector(em: Emitter, index: Any) -> list[Num]:
    """Unit basis vector e_index for an integer SSA index (0, 1 or 2)."""
    return [em.select(em.int_eq(index, n), 1.0, 0.0) for n in range(3)]


def pick(em: Emitter, values: Sequence[Num], index: Any) -> Num:
    """values[index] for an integer SSA index."""
    out = values[0]
    for n in range(1, len(values)):
        out = em.select(em.int_eq(index, n), values[n], out)
    return out


def _third_slot(em: Emitter, i: Any, j: Any, k: Any) -> Any:
    """The component of e holding the third angle: k, or for a proper sequence (k == i) the
    component neither i nor j names."""
    b = em.b
    remaining = b.sub(b.sub(ir.Constant(i.type, 3), i), j)
    return b.select(b.icmp_signed("==", k, i), remaining, k)


def qfrom_euler(em: Emitter, e: Sequence[Num], i: Any, j: Any, k: Any) -> list[Num]:
    """Rotations about the fixed axes i, then j, then k (extrinsic), by the angle e holds for
    each axis (e[i], e[j], e[k]), as NVIDIA Warp: q = q_k(e[k]) q_j(e[j]) q_i(e[i])."""
    i, j, k = (as_i32(em, n) for n in (i, j, k))
    qi = qfrom_axis_angle(em, axis_vector(em, i), pick(em, e, i))
    qj = qfrom_axis_angle(em, axis_vector(em, j), pick(em, e, j))
    qk = qfrom_axis_angle(em, axis_vector(em, k), pick(em, e, _third_slot(em, i, j, k)))
    return qmul(qmul(qk, qj), qi)


def qto_euler(em: Emitter, q: Sequence[Num], i: Any, j: Any, k: Any) -> list[Num]:
    """Inverse of :func:`qfrom_euler`: the angles about i, j, k, each in the component of its axis."""
    i, j, k = (as_i32(em, n) for n in (i, j, k))
    # extrinsic i, j, k by (a, b, c) is intrinsic k, j, i by (c, b, a)
    c, b, a = _intrinsic_euler(em, q, k, j, i)
    slot_k = _third_slot(em, i, j, k)
    return [em.select(em.int_eq(slot_k, n), c, em.select(em.int_eq(j, n), b, a)) for n in range(3)]


def _wrap_angle(em: Emitter, a: Num) -> Num:
    """a wrapped into [-pi, pi)."""
    two_pi = 2.0 * math.pi
    shifted = a + math.pi
    return shifted - em.floor(shifted / two_pi) * two_pi - math.pi


def _intrinsic_euler(em: Emitter, q: Sequence[Num], i: Any, j: Any, k: Any) -> list[Num]:
    """Angles (r0, r1, r2) with q = q_i(r0) q_j(r1) q_k(r2) (intrinsic i, j, k), by Bernardes &
    Viollet's direct method (any axis sequence, i32 axis indices).

    Intrinsic (i, j, k) angles are the extrinsic angles of the sequence (k, j, i), reversed.
    """
    b = em.b
    first, second = k, i  # extrinsic sequence (first, j, third)
    proper = b.icmp_signed("==", first, second)
    # for proper Euler sequences (x-y-x) the third axis is the remaining one
    third = b.select(proper, b.sub(b.sub(ir.Constant(first.type, 3), first), j), second)
    # Levi-Civita sign of (first, j, third): +1 for cyclic order
    cyclic = b.or_(b.or_(
        b.and_(em.int_eq(first, 0), em.int_eq(j, 1)),
        b.and_(em.int_eq(first, 1), em.int_eq(j, 2))),
        b.and_(em.int_eq(first, 2), em.int_eq(j, 0)))
    sign = em.select(cyclic, 1.0, -1.0)
    comps = list(q[:3])
    qi, qj, qk, qw = pick(em, comps, first), pick(em, comps, j), pick(em, comps, third), q[3]
    a = em.select(proper, qw, qw - qj)
    bb = em.select(proper, qi, qi + qk * sign)
    c = em.select(proper, qj, qj + qw)
    d = em.select(proper, qk * sign, qk * sign - qi)
    t2 = em.atan2(em.sqrt(c * c + d * d), em.sqrt(a * a + bb * bb)) * 2.0
    half_sum = em.atan2(bb, a)
    half_diff = em.atan2(d, c)
    eps = 1e-7 if em.scalar._bits_ == 64 else 1e-4
    at_zero = em.abs(t2) <= eps
    at_pi = em.abs(t2 - math.pi) <= eps
    t1 = em.select(at_zero, half_sum * 2.0, em.select(at_pi, half_diff * -2.0, half_sum - half_diff))
    t3 = em.select(em.or_(at_zero, at_pi), 0.0, half_sum + half_diff)
    t3 = em.select(proper, t3, t3 * sign)
    t2 = em.select(proper, t2, t2 - math.pi / 2)
    return [_wrap_angle(em, t3), t2, _wrap_angle(em, t1)]


def qfrom_rpy(em: Emitter, roll: Num, pitch: Num, yaw: Num) -> list[Num]:
    """Rotation about z by yaw, then y by pitch, then x by roll (intrinsic z-y-x)."""
    cy, sy = em.cos(yaw * 0.5), em.sin(yaw * 0.5)
    cr, sr = em.cos(roll * 0.5), em.sin(roll * 0.5)
    cp, sp = em.cos(pitch * 0.5), em.sin(pitch * 0.5)
    return [
        cy * sr * cp - sy * cr * sp,
        cy * cr * sp + sy * sr * cp,
        sy * cr * cp - cy * sr * sp,
        cy * cr * cp + sy * sr * sp,
    ]


def qto_rpy(em: Emitter, q: Sequence[Num]) -> list[Num]:
    """(roll, pitch, yaw) of :func:`qfrom_rpy`; pitch in [-pi/2, pi/2]."""
    x, y, z, w = q
    roll = em.atan2((w * x + y * z) * 2.0, 1.0 - (x * x + y * y) * 2.0)
    sinp = (w * y - z * x) * 2.0
    pitch = em.select(em.abs(sinp) >= 1.0, em.copysign(math.pi / 2, sinp), em.asin(em.clamp(sinp, -1.0, 1.0)))
    yaw = em.atan2((w * z + x * y) * 2.0, 1.0 - (y * y + z * z) * 2.0)
    return [roll, pitch, yaw]


def qtwist(em: Emitter, axis: Sequence[Num], q: Sequence[Num]) -> list[Num]:
    """Twist of q about axis (swing-twist decomposition); the identity when undefined."""
    n = normalize(em, axis)
    proj = scale(n, dot(list(q[:3]), n))
    return qnormalize(em, [*proj, q[3]])


def qtwist_angle_signed(em: Emitter, axis: Sequence[Num], q: Sequence[Num]) -> Num:
    """Signed rotation angle of the twist about axis, ``2 atan2(t . axis, t_w)`` in (-2 pi, 2 pi]:
    as in NVIDIA Warp, q and -q (the same rotation) give angles 2 pi apart (a twist of 4 rad is 4)."""
    t = qtwist(em, axis, q)
    return em.atan2(dot(t[:3], normalize(em, axis)), t[3]) * 2.0


# ---------------------------------------------------------------------------------- builtins


def _quat_to_axis_angle_result(ts: list) -> tuple:
    s = scalar_of(ts[0])
    return (vector(3, s), s)


_add = partial(add_formula, group=GROUP)


def register(registry: BuiltinRegistry) -> None:
    """Register the quaternion builtins."""
    _add(registry, "quat_from_axis_angle", [("axis", VEC3), ("angle", F)], quat_like(0),
         lambda em, axis, angle: qfrom_axis_angle(em, axis, angle),
         "Quaternion rotating by angle (radians) about axis (axis is not normalized).")
    _add(registry, "quat_to_axis_angle", [("quat", QUAT)], _quat_to_axis_angle_result,
         lambda em, q: qto_axis_angle(em, q),
         "Unit rotation axis and angle in [0, pi] of a unit quaternion, as a tuple (axis, angle).")
    _add(registry, "quat_to_axis_angle", [("quat", QUAT), ("axis", VEC3), ("angle", F)],
         _quat_to_axis_angle_result, lambda em, q, axis, angle: qto_axis_angle(em, q),
         "Unit rotation axis and angle in [0, pi] of a unit quaternion, assigned to the variables axis "
         "and angle (output parameters).", mutated_args=(1, 2))
    for n in (3, 4):
        _add(registry, "quat_from_matrix", [("mat", MatrixOf(n, n, F))], quat_like(0),
             (lambda c: lambda em, m: qfrom_matrix(em, m, c))(n),
             "Unit quaternion of a rotation matrix (the upper-left 3x3 block of a 4x4 matrix).")
    _add(registry, "quat_to_matrix", [("quat", QUAT)], matrix_like(3, 3, 0), lambda em, q: qto_matrix(q),
         "3x3 rotation matrix of a unit quaternion.")
    _add(registry, "quat_inverse", [("quat", QUAT)], quat_like(0), lambda em, q: qconj(q),
         "Inverse of a unit quaternion (its conjugate).")
    _add(registry, "quat_rotate", [("quat", QUAT), ("vec", VEC3)], vector_like(3, 1),
         lambda em, q, v: qrotate(q, v), "Rotate a 3-vector by a unit quaternion.")
    _add(registry, "quat_rotate_inv", [("quat", QUAT), ("vec", VEC3)], vector_like(3, 1),
         lambda em, q, v: qrotate_inv(q, v), "Rotate a 3-vector by the inverse of a unit quaternion.")
    _add(
        registry,
        "quat_rpy",
        [("roll", F), ("pitch", F), ("yaw", F)],
        quat_like(0),
        lambda em, r, p, y: qfrom_rpy(em, r, p, y),
        "Quaternion from roll, pitch, yaw angles (about x, y, z; applied yaw first: q = z(yaw) "
        "y(pitch) x(roll)).",
    )
    _add(registry, "quat_to_rpy", [("q", QUAT)], vector_like(3, 0), lambda em, q: qto_rpy(em, q),
         "Roll, pitch, yaw angles of a unit quaternion (inverse of quat_rpy), as a 3-vector.")
    _add(registry, "quat_slerp", [("a", QUAT), ("b", QUAT), ("t", F)], quat_like(0), _slerp,
         "Spherical linear interpolation from a (t = 0) to b (t = 1).")
    _add(registry, "quat_from_euler", [("e", VEC3), ("i", Int), ("j", Int), ("k", Int)], quat_like(0),
         lambda em, e, i, j, k: qfrom_euler(em, e, i, j, k),
         "Quaternion rotating about the fixed axes i, then j, then k (0 = x, 1 = y, 2 = z) by the angles "
         "e[i], e[j], e[k] (for a proper sequence, k == i, the third angle is the remaining component).")
    _add(registry, "quat_to_euler", [("q", QUAT), ("i", Int), ("j", Int), ("k", Int)], vector_like(3, 0),
         lambda em, q, i, j, k: qto_euler(em, q, i, j, k),
         "Euler angles of a unit quaternion about the fixed axes i, then j, then k, each in the "
         "component of its axis (as quat_from_euler takes them); inverse of quat_from_euler.")
    _add(registry, "quat_twist", [("axis", VEC3), ("q", QUAT)], quat_like(1),
         lambda em, axis, q: qtwist(em, axis, q),
         "Twist part of q about axis (swing-twist decomposition), as a unit quaternion.")
    _add(registry, "quat_twist_angle", [("axis", VEC3), ("q", QUAT)], scalar_like(1),
         lambda em, axis, q: em.abs(qtwist_angle_signed(em, axis, q)),
         "Rotation angle in [0, 2 pi] of the twist of q about axis (|quat_twist_angle_signed|).")
    _add(registry, "quat_twist_angle_signed", [("axis", VEC3), ("q", QUAT)], scalar_like(1),
         lambda em, axis, q: qtwist_angle_signed(em, axis, q),
         "Signed rotation angle of the twist of q about axis (right-hand rule): "
         "2 atan2(twist . axis, twist_w).")


def _slerp(em: Emitter, a: list[Num], b: list[Num], t: Num) -> list[Num]:
    axis, angle = qto_axis_angle(em, qmul(qconj(a), b))
    return qmul(a, qfrom_axis_angle(em, axis, angle * t))


# ---------------------------------------------------------------------------------- type arguments


def _generic_or_value(make: Any, args: tuple, dtype: Any) -> Any:
    """Python scope: a value, or the generic annotation when only a placeholder dtype is given."""
    if not args and is_placeholder(dtype):
        return make(dtype)  # e.g. wp.quaternion(dtype=Any) as a parameter annotation
    return make(python_dtype(args, dtype))(*args)


quat_identity = SpecialForm(
    "quat_identity",
    kernel=identity_kernel("quat_identity", quat_type, (0.0, 0.0, 0.0, 1.0)),
    python=lambda dtype=None: quat_type(python_dtype((), dtype))(0.0, 0.0, 0.0, 1.0),
    group=GROUP,
    doc="The identity quaternion (0, 0, 0, 1) of a float type (dtype defaults to float32).",
    signatures=["(dtype: Float = float32) -> quaternion(dtype)"],
)

quaternion = SpecialForm(
    "quaternion",
    kernel=constructor_kernel("quaternion", quat_type),
    python=lambda *args, dtype=None: _generic_or_value(quat_type, args, dtype),
    group=GROUP,
    doc="Quaternion from components (x, y, z, w), from a vector part and a real part, "
        "or converted from another quaternion; zero with no arguments.",
    signatures=[
        "(dtype: Float = float32) -> quaternion(dtype)",
        "(x: Float, y: Float, z: Float, w: Float, dtype: Float = inferred) -> quaternion(dtype)",
        "(ijk: vector(3, Float), real: Float, dtype: Float = inferred) -> quaternion(dtype)",
        "(quat: quaternion(Float), dtype: Float) -> quaternion(dtype)",
    ],
)

EXPORTS = {"quat_identity": quat_identity, "quaternion": quaternion}


def exports() -> dict[str, Any]:
    """Python-scope names to publish on ``wp`` (``warp_exports`` hook)."""
    return dict(EXPORTS)
