"""Matrix decompositions: eig3, svd3, svd2, qr3 (group "Vector Math").

- ``eig3(A) -> (Q, d)``: symmetric 3x3 eigen-decomposition by cyclic Jacobi rotations;
  ``A = Q diag(d) Q^T`` with the eigenvectors in the columns of the rotation ``Q``
  (eigenvalues are not sorted).
- ``svd3(A) -> (U, sigma, V)`` and ``svd2``: ``A = U diag(sigma) V^T`` with ``U``, ``V``
  rotations (determinant +1) and ``sigma`` sorted by decreasing magnitude; as in McAdams et al.
  (and NVIDIA Warp) the last singular value is negative when ``det(A) < 0``. Computed as the
  Jacobi eigen-decomposition of ``A^T A`` followed by a Givens QR of ``A V``.
- ``qr3(A) -> (Q, R)``: Givens QR; ``Q`` a rotation, ``R`` upper triangular.

Each algorithm is emitted once per module and scalar type as an internal function (its
Jacobi sweeps as a loop), then called. float16 inputs are computed in float32.
"""

from __future__ import annotations

from typing import Any

import llvmlite.ir as ir

from warp.extending import composite_values as lc, matrix, vector, LowerContext, BuiltinRegistry

from warp_builtins.composite_ir import Emitter, Num, counted_loop, helper_function, scalar_of
from warp_builtins.composite_patterns import F, mat, vec

GROUP = "Vector Math"
_SWEEPS = {32: 6, 64: 10}


# -- building blocks on lists of Num -----------------------------------------------------------
def _identity(e: Emitter, n: int) -> list[list[Num]]:
    return [[e.c(1.0 if i == j else 0.0) for j in range(n)] for i in range(n)]


def _jacobi_rotate(e: Emitter, a: list[list[Num]], v: list[list[Num]], p: int, q: int) -> None:
    """One Jacobi rotation zeroing a[p][q] of the symmetric matrix ``a`` (updated in place)."""
    n = len(a)
    apq = a[p][q]
    theta = (a[q][q] - a[p][p]) / (2.0 * apq)
    t = e.sign(theta) / (e.abs(theta) + e.sqrt(theta * theta + 1.0))
    t = e.select(apq.eq(0.0), 0.0, t)
    c = 1.0 / e.sqrt(t * t + 1.0)
    s = t * c
    app, aqq = a[p][p] - t * apq, a[q][q] + t * apq
    for r in range(n):
        if r in (p, q):
            continue
        arp, arq = a[r][p], a[r][q]
        a[r][p] = a[p][r] = c * arp - s * arq
        a[r][q] = a[q][r] = s * arp + c * arq
    a[p][p], a[q][q] = app, aqq
    a[p][q] = a[q][p] = e.c(0.0)
    for k in range(n):
        vkp, vkq = v[k][p], v[k][q]
        v[k][p] = c * vkp - s * vkq
        v[k][q] = s * vkp + c * vkq


def jacobi_eigen(e: Emitter, sym: list[list[Num]], sweeps: int) -> tuple[list[Num], list[list[Num]]]:
    """Eigenvalues and eigenvector columns of a symmetric matrix (loop of cyclic sweeps)."""
    n = len(sym)
    pairs = [(p, q) for p in range(n) for q in range(p + 1, n)]
    upper = [(i, j) for i in range(n) for j in range(i, n)]

    def sweep(builder: ir.IRBuilder, state: list[ir.Value]) -> list[ir.Value]:
        vals = e.nums(state)
        a: list[list[Any]] = [[None] * n for _ in range(n)]  # every entry is set below
        for k, (i, j) in enumerate(upper):
            a[i][j] = a[j][i] = vals[k]
        flat_v = vals[len(upper):]
        v = [flat_v[i * n:(i + 1) * n] for i in range(n)]
        for p, q in pairs:
            _jacobi_rotate(e, a, v, p, q)
        return [a[i][j].v for i, j in upper] + [x.v for row in v for x in row]

    init = [sym[i][j].v for i, j in upper] + [x.v for row in _identity(e, n) for x in row]
    if n == 2:
        final = sweep(e.b, init)  # one rotation diagonalizes a 2x2 symmetric matrix exactly
    else:
        final = counted_loop(e.b, sweeps, init, sweep)
    vals = e.nums(final)
    d = [vals[upper.index((i, i))] for i in range(n)]
    flat_v = vals[len(upper):]
    return d, [flat_v[i * n:(i + 1) * n] for i in range(n)]


def givens_qr(e: Emitter, a: list[list[Num]]) -> tuple[list[list[Num]], list[list[Num]]]:
    """Q (a rotation) and upper triangular R with A = Q R, by Givens rotations."""
    n = len(a)
    r = [row[:] for row in a]
    q = _identity(e, n)
    for col in range(n - 1):
        for row in range(col + 1, n):
            x, y = r[col][col], r[row][col]
            h = e.sqrt(x * x + y * y)
            zero = h.eq(0.0)
            inv = 1.0 / e.select(zero, 1.0, h)
            c = e.select(zero, 1.0, x * inv)
            s = e.select(zero, 0.0, y * inv)
            for k in range(n):
                rp, rq = r[col][k], r[row][k]
                r[col][k] = c * rp + s * rq
                r[row][k] = c * rq - s * rp
                # Q = Q G^T: columns col/row of Q rotate the same way
                qp, qq = q[k][col], q[k][row]
                q[k][col] = c * qp + s * qq
                q[k][row] = c * qq - s * qp
            r[row][col] = e.c(0.0)
    return q, r


def _swap_columns(e: Emitter, cond: Any, m: list[list[Num]], i: int, j: int) -> None:
    """Where ``cond``: column i of m becomes column j, column j becomes minus column i."""
    for row in m:
        a, b = row[i], row[j]
        row[i] = e.select(cond, b, a)
        row[j] = e.select(cond, -a, b)


def svd(e: Emitter, a: list[list[Num]], sweeps: int) -> tuple[list[list[Num]], list[Num], list[list[Num]]]:
    """U, sigma, V of a square matrix (2x2 or 3x3) as described in the module docstring."""
    n = len(a)
    ata = [
        [e.dot([a[k][i] for k in range(n)], [a[k][j] for k in range(n)]) for j in range(n)] for i in range(n)
    ]
    _, v = jacobi_eigen(e, ata, sweeps)
    b = [[e.dot(a[i], [v[k][j] for k in range(n)]) for j in range(n)] for i in range(n)]
    norms = [e.dot([b[k][j] for k in range(n)], [b[k][j] for k in range(n)]) for j in range(n)]
    # sort columns by decreasing norm; swaps negate one column to keep det(V) = +1
    for i, j in ([(0, 1), (0, 2), (1, 2)] if n == 3 else [(0, 1)]):
        cond = norms[i] < norms[j]
        _swap_columns(e, cond, b, i, j)
        _swap_columns(e, cond, v, i, j)
        norms[i], norms[j] = e.select(cond, norms[j], norms[i]), e.select(cond, norms[i], norms[j])
    u, r = givens_qr(e, b)
    return u, [r[i][i] for i in range(n)], v


# -- lowering: helper functions per scalar type --------------------------------------------------
def _emit_helper(
    ctx: LowerContext, name: str, scalar: Any, n: int, out_types: list[Any], algo: Any
) -> ir.Function:
    """The module's helper ``name`` computing ``algo(e, rows) -> parts`` on an n x n matrix."""
    in_cls = matrix((n, n), scalar)
    ret = ir.LiteralStructType([lc.llvm_type(t) for t in out_types])
    suffix = {32: "f32", 64: "f64"}[scalar._bits_]

    def body(builder: ir.IRBuilder, args: list[ir.Value]) -> ir.Value:
        e = Emitter(builder, scalar)
        outs = algo(e, e.rows(in_cls, args[0]))
        agg: ir.Value = ir.Constant(ret, ir.Undefined)
        for k, (t, parts) in enumerate(zip(out_types, outs)):
            flat = [x for row in parts for x in row] if t._wp_kind_ == "matrix" else parts
            agg = builder.insert_value(agg, e.build(t, flat), k)
        return agg

    return helper_function(ctx, f"__wp_{name}{n}_{suffix}", ret, [lc.llvm_type(in_cls)], body)


def _decomposition(name: str, algo: Any, kinds: str):
    """Lowering of a decomposition whose results have the given kinds ('m' matrix, 'v' vector)."""

    def lower(ctx: LowerContext, args: list[ir.Value], types: list[Any]) -> Any:
        src = types[0]
        n = src._shape_[0]
        scalar = scalar_of(src)
        e = Emitter(ctx.builder, scalar)
        ce = e.compute()
        cs = ce.scalar
        out_c = [matrix((n, n), cs) if k == "m" else vector(n, cs) for k in kinds]
        value = args[0]
        if cs is not scalar:
            value = ce.build(matrix((n, n), cs), [e.convert(x, ce) for x in e.parts(src, value)])
        fn = _emit_helper(ctx, name, cs, n, out_c, lambda he, rows: algo(he, rows, _SWEEPS[cs._bits_]))
        agg = ctx.builder.call(fn, [value])
        results = []
        for k, t in enumerate(out_c):
            part = ctx.builder.extract_value(agg, k)
            if cs is not scalar:
                final = ctx.op.results[k].type
                part = e.build(final, [ce.convert(x, e) for x in ce.parts(t, part)])
            results.append(part)
        return tuple(results)

    return lower


def _eig_algo(e: Emitter, rows: list[list[Num]], sweeps: int) -> tuple:
    d, v = jacobi_eigen(e, rows, sweeps)
    return v, d


def _svd_algo(e: Emitter, rows: list[list[Num]], sweeps: int) -> tuple:
    return svd(e, rows, sweeps)


def _qr_algo(e: Emitter, rows: list[list[Num]], sweeps: int) -> tuple:
    return givens_qr(e, rows)


def _results(kinds: str):
    def result(ts: list) -> tuple:
        n, s = ts[0]._shape_[0], ts[0]._wp_scalar_type_
        return tuple(matrix((n, n), s) if k == "m" else vector(n, s) for k in kinds)

    return result


def register(registry: BuiltinRegistry) -> None:
    """Register eig3, svd3, svd2 and qr3, each also in its out-argument form (``wp.svd3(A, U,
    sigma, V)`` assigns the results to the variables passed: output parameters, ``mutated_args``)."""

    def add(name: str, n: int, kinds: str, kind: str, algo: Any, names: list[str], doc: str) -> None:
        lower = _decomposition(kind, algo, kinds)
        registry.add(name, params=[("A", mat(n, n, F))], result=_results(kinds), lower=lower, group=GROUP,
                     doc=doc)
        outputs = [(p, mat(n, n, F) if k == "m" else vec(n, F)) for p, k in zip(names, kinds)]
        registry.add(name, params=[("A", mat(n, n, F)), *outputs], result=_results(kinds), lower=lower,
                     group=GROUP, mutated_args=tuple(range(1, 1 + len(kinds))), doc=doc)

    add("eig3", 3, "mv", "eig", _eig_algo, ["Q", "d"],
        "Eigen-decomposition of a symmetric 3x3 matrix: (Q, d) with A = Q diag(d) Q^T, eigenvectors in Q's "
        "columns. wp.eig3(A, Q, d) assigns them to the variables Q, d.")
    add("svd3", 3, "mvm", "svd", _svd_algo, ["U", "sigma", "V"],
        "Singular value decomposition of a 3x3 matrix: (U, sigma, V) with A = U diag(sigma) V^T. "
        "wp.svd3(A, U, sigma, V) assigns them to the variables U, sigma, V.")
    add("svd2", 2, "mvm", "svd", _svd_algo, ["U", "sigma", "V"],
        "Singular value decomposition of a 2x2 matrix: (U, sigma, V) with A = U diag(sigma) V^T. "
        "wp.svd2(A, U, sigma, V) assigns them to the variables U, sigma, V.")
    add("qr3", 3, "mm", "qr", _qr_algo, ["Q", "R"],
        "QR decomposition of a 3x3 matrix: (Q, R) with Q a rotation and R upper triangular. "
        "wp.qr3(A, Q, R) assigns them to the variables Q, R.")
