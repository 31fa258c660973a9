"""Matrix builtins of the "Vector Math" group: transpose, trace, determinant, inverse, ...

Determinants and inverses use closed forms (cofactors; the 2x2 sub-determinant expansion for
4x4). A singular matrix (determinant exactly zero) has the zero matrix as its inverse, as in
NVIDIA Warp. float16 matrices are inverted in float32 and rounded back.
"""

from __future__ import annotations

from typing import Any

import llvmlite.ir as ir
from warp.extending import matrix, vector, WarpCodegenTypeError, LowerContext, BuiltinRegistry

from warp_builtins.composite_ir import Emitter, Num, result_type, scalar_of
from warp_builtins.composite_patterns import F, S, mat, of_kind, same, square, vec

GROUP = "Vector Math"


def det2(m: list[list[Num]]) -> Num:
    return m[0][0] * m[1][1] - m[0][1] * m[1][0]


def det3(m: list[list[Num]]) -> Num:
    return (
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    )


def _expansion4(a: list[list[Num]]) -> tuple[list[Num], list[Num], Num]:
    s = [
        a[0][0] * a[1][1] - a[1][0] * a[0][1],
        a[0][0] * a[1][2] - a[1][0] * a[0][2],
        a[0][0] * a[1][3] - a[1][0] * a[0][3],
        a[0][1] * a[1][2] - a[1][1] * a[0][2],
        a[0][1] * a[1][3] - a[1][1] * a[0][3],
        a[0][2] * a[1][3] - a[1][2] * a[0][3],
    ]
    c = [
        a[2][0] * a[3][1] - a[3][0] * a[2][1],
        a[2][0] * a[3][2] - a[3][0] * a[2][2],
        a[2][0] * a[3][3] - a[3][0] * a[2][3],
        a[2][1] * a[3][2] - a[3][1] * a[2][2],
        a[2][1] * a[3][3] - a[3][1] * a[2][3],
        a[2][2] * a[3][3] - a[3][2] * a[2][3],
    ]
    det = s[0] * c[5] - s[1] * c[4] + s[2] * c[3] + s[3] * c[2] - s[4] * c[1] + s[5] * c[0]
    return s, c, det


def det4(a: list[list[Num]]) -> Num:
    return _expansion4(a)[2]


def adjugate_and_det(a: list[list[Num]]) -> tuple[list[list[Num]], Num]:
    """The adjugate (inverse times determinant) and the determinant of a 2x2, 3x3 or 4x4 matrix."""
    n = len(a)
    if n == 2:
        return [[a[1][1], -a[0][1]], [-a[1][0], a[0][0]]], det2(a)
    if n == 3:
        def cof(i: int, j: int) -> Num:
            r = [k for k in range(3) if k != i]
            c = [k for k in range(3) if k != j]
            minor = a[r[0]][c[0]] * a[r[1]][c[1]] - a[r[0]][c[1]] * a[r[1]][c[0]]
            return minor if (i + j) % 2 == 0 else -minor

        adj = [[cof(j, i) for j in range(3)] for i in range(3)]
        det = a[0][0] * adj[0][0] + a[0][1] * adj[1][0] + a[0][2] * adj[2][0]
        return adj, det
    s, c, det = _expansion4(a)
    adj = [
        [a[1][1] * c[5] - a[1][2] * c[4] + a[1][3] * c[3], -a[0][1] * c[5] + a[0][2] * c[4] - a[0][3] * c[3],
         a[3][1] * s[5] - a[3][2] * s[4] + a[3][3] * s[3], -a[2][1] * s[5] + a[2][2] * s[4] - a[2][3] * s[3]],
        [-a[1][0] * c[5] + a[1][2] * c[2] - a[1][3] * c[1], a[0][0] * c[5] - a[0][2] * c[2] + a[0][3] * c[1],
         -a[3][0] * s[5] + a[3][2] * s[2] - a[3][3] * s[1], a[2][0] * s[5] - a[2][2] * s[2] + a[2][3] * s[1]],
        [a[1][0] * c[4] - a[1][1] * c[2] + a[1][3] * c[0], -a[0][0] * c[4] + a[0][1] * c[2] - a[0][3] * c[0],
         a[3][0] * s[4] - a[3][1] * s[2] + a[3][3] * s[0], -a[2][0] * s[4] + a[2][1] * s[2] - a[2][3] * s[0]],
        [-a[1][0] * c[3] + a[1][1] * c[1] - a[1][2] * c[0], a[0][0] * c[3] - a[0][1] * c[1] + a[0][2] * c[0],
         -a[3][0] * s[3] + a[3][1] * s[1] - a[3][2] * s[0], a[2][0] * s[3] - a[2][1] * s[1] + a[2][2] * s[0]],
    ]
    return adj, det


_DET = {2: det2, 3: det3, 4: det4}


def _rows_in(e: Emitter, cls: Any, value: Any) -> tuple[Emitter, list[list[Num]]]:
    """Rows of a float matrix converted to the compute precision (float16 -> float32)."""
    ce = e.compute()
    return ce, [[e.convert(x, ce) for x in row] for row in e.rows(cls, value)]


def _lower_determinant(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[0]))
    ce, rows = _rows_in(e, types[0], args[0])
    return ce.convert(_DET[len(rows)](rows), e).v


def _lower_inverse(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[0]))
    ce, rows = _rows_in(e, types[0], args[0])
    adj, det = adjugate_and_det(rows)
    ok = det.ne(0.0)
    inv = 1.0 / ce.select(ok, det, 1.0)
    out = [ce.convert(ce.select(ok, x * inv, 0.0), e) for row in adj for x in row]
    return e.build(types[0], out)


def _transpose_type(ts: list) -> Any:
    r, c = ts[0]._shape_
    return matrix((c, r), ts[0]._wp_scalar_type_)


def _lower_transpose(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[0]))
    rows = e.rows(types[0], args[0])
    r, c = types[0]._shape_
    return e.build(result_type(ctx), [rows[i][j] for j in range(c) for i in range(r)])


def _lower_trace(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[0]))
    rows = e.rows(types[0], args[0])
    return e.sum([rows[i][i] for i in range(len(rows))]).v


def _diag_type(ts: list) -> Any:
    n = ts[0]._shape_[0]
    return matrix((n, n), ts[0]._wp_scalar_type_)


def _lower_diag(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[0]))
    v = e.parts(types[0], args[0])
    n = len(v)
    return e.build(result_type(ctx), [v[i] if i == j else e.c(0) for i in range(n) for j in range(n)])


def _get_diag_type(ts: list) -> Any:
    return vector(ts[0]._shape_[0], ts[0]._wp_scalar_type_)


def _lower_get_diag(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[0]))
    rows = e.rows(types[0], args[0])
    return e.build(result_type(ctx), [rows[i][i] for i in range(len(rows))])


def _lower_ddot(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[0]))
    return e.dot(e.parts(types[0], args[0]), e.parts(types[1], args[1])).v


def _skew_type(ts: list) -> Any:
    return matrix((3, 3), ts[0]._wp_scalar_type_)


def _lower_skew(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[0]))
    x, y, z = e.parts(types[0], args[0])
    zero = e.c(0)
    return e.build(result_type(ctx), [zero, -z, y, z, zero, -x, -y, x, zero])


def _need_vectors(ts: list, name: str) -> None:
    if not ts:
        raise WarpCodegenTypeError(f"{name}() needs at least one vector")


def _from_rows_type(ts: list) -> Any:
    _need_vectors(ts, "matrix_from_rows")
    return matrix((len(ts), ts[0]._shape_[0]), ts[0]._wp_scalar_type_)


def _from_cols_type(ts: list) -> Any:
    _need_vectors(ts, "matrix_from_cols")
    return matrix((ts[0]._shape_[0], len(ts)), ts[0]._wp_scalar_type_)


def _lower_from_rows(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[0]))
    return e.build(result_type(ctx), [x for a, t in zip(args, types) for x in e.parts(t, a)])


def _lower_from_cols(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
    e = Emitter(ctx.builder, scalar_of(types[0]))
    cols = [e.parts(t, a) for a, t in zip(args, types)]
    n = types[0]._shape_[0]
    return e.build(result_type(ctx), [col[i] for i in range(n) for col in cols])


def register(registry: BuiltinRegistry) -> None:
    """Register the matrix builtins."""
    add = registry.add
    g = GROUP
    add(
        "transpose",
        params=[("a", of_kind("matrix"))],
        result=_transpose_type,
        lower=_lower_transpose,
        group=g,
        doc="Transpose of a matrix: an (R, C) matrix gives a (C, R) matrix.",
    )
    add("trace", params=[("a", square())], result=S, lower=_lower_trace, group=g,
        doc="Sum of the diagonal components of a square matrix.")
    add("diag", params=[("vec", of_kind("vector"))], result=_diag_type, lower=_lower_diag, group=g,
        doc="Square matrix with vec on its diagonal and zeros elsewhere.")
    add("get_diag", params=[("mat", square())], result=_get_diag_type, lower=_lower_get_diag, group=g,
        doc="The diagonal of a square matrix as a vector.")
    M = same("matrix")
    add("ddot", params=[("a", M), ("b", M)], result=S, lower=_lower_ddot, group=g,
        doc="Double dot product of two matrices: sum over i, j of a[i, j] * b[i, j].")
    add("skew", params=[("vec", vec(3))], result=_skew_type, lower=_lower_skew, group=g,
        doc="Skew-symmetric matrix of a 3-vector v, such that skew(v) * x == cross(v, x).")
    for n in (2, 3, 4):
        pat = [("a", mat(n, n, F))]
        add("determinant", params=pat, result=F, lower=_lower_determinant, group=g,
            doc="Determinant of a 2x2, 3x3 or 4x4 matrix.")
        add("inverse", params=pat, result=lambda ts: ts[0], lower=_lower_inverse, group=g,
            doc="Inverse of a 2x2, 3x3 or 4x4 matrix (the zero matrix when it is singular).")
        add("inverse_approx", params=pat, result=lambda ts: ts[0], lower=_lower_inverse, group=g,
            doc="Inverse of a 2x2, 3x3 or 4x4 matrix, possibly approximate (computed as inverse here).")
    VR = same("vector")
    add("matrix_from_rows", params=[("args", VR)], result=_from_rows_type, lower=_lower_from_rows, group=g,
        variadic=True, doc="Matrix whose rows are the given vectors (all of one vector type).")
    add("matrix_from_cols", params=[("args", VR)], result=_from_cols_type, lower=_lower_from_cols, group=g,
        variadic=True, doc="Matrix whose columns are the given vectors (all of one vector type).")

