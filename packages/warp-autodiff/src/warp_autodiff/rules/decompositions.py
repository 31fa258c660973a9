"""Adjoints of the matrix decompositions of warp-builtins: eig3, svd3, svd2, qr3.

The builtins iterate (Jacobi sweeps, Givens rotations); differentiating through the iterations
would be costly and inexact, so their rules apply the closed-form adjoints of the converged
decompositions instead. Each adjoint is a ``@wp.func`` taking the primal input, the primal
results and the adjoints of the results, and returning the adjoint of the input; the rule calls
its specialization for the argument types.

- ``eig3(A) -> (Q, d)``, ``A = Q diag(d) Q^T``: with ``F_ij = 1 / (d_j - d_i)`` (i != j),
  ``G = Q (diag(adj_d) + F o (Q^T adj_Q)) Q^T`` and ``adj_A = (G + G^T) / 2``, the adjoint with
  respect to the symmetric matrix decomposed (as NVIDIA Warp gives it: a loss of the eigenvalues
  alone, such as
  ``dot(d, d) = trace(A^2)``, has gradient ``2A`` in both triangles). A term whose eigenvector
  seed ``(Q^T adj_Q)_ij`` is zero contributes zero, also at repeated eigenvalues (``0 / 0``
  would give NaN): eigenvalue-only losses have finite gradients at every symmetric matrix.
- ``svd3``/``svd2`` ``(A) -> (U, s, V)``, ``A = U diag(s) V^T`` (square, signed ``s``): with
  ``F_ij = 1 / (s_j^2 - s_i^2)``, ``J = U^T adj_U``, ``K = V^T adj_V``,
  ``adj_A = U (diag(adj_s) + (F o (J - J^T)) S + S (F o (K - K^T))) V^T``.
- ``qr3(A) -> (Q, R)``, ``A = Q R``: with ``M = triu(adj_R) R^T`` and
  ``N = Q^T adj_Q - M``, ``adj_A = Q (M + tril(N - N^T, -1)) R^-T``.

They hold for distinct eigenvalues (singular values of distinct magnitude, full rank for QR),
where the decompositions are differentiable.
"""

from __future__ import annotations

from typing import Any, Sequence

import warp as wp
from warp.extending import func, int32, derivative

from warp_autodiff.rules.context import RuleContext
from warp_autodiff.specialization import specialize


@func
def eig3_adjoint(a: Any, q: Any, d: Any, adj_q: Any, adj_d: Any):
    x = wp.transpose(q) * adj_q
    for i in range(3):
        for j in range(3):
            if i == j:
                x[i, j] = adj_d[i]
            elif x[i, j] != 0.0:
                x[i, j] = x[i, j] / (d[j] - d[i])
    g = q * x * wp.transpose(q)
    return (g + wp.transpose(g)) * 0.5


@func
def svd_adjoint(a: Any, u: Any, s: Any, v: Any, adj_u: Any, adj_s: Any, adj_v: Any, n: int):
    j = wp.transpose(u) * adj_u
    k = wp.transpose(v) * adj_v
    jj = j - wp.transpose(j)
    kk = k - wp.transpose(k)
    p = jj
    for r in range(n):
        for c in range(n):
            if r == c:
                p[r, c] = adj_s[r]
            else:
                p[r, c] = (jj[r, c] * s[c] + s[r] * kk[r, c]) / (s[c] * s[c] - s[r] * s[r])
    return u * p * wp.transpose(v)


@func
def qr3_adjoint(a: Any, q: Any, r: Any, adj_q: Any, adj_r: Any):
    upper = adj_r
    for i in range(3):
        for j in range(i):
            upper[i, j] = 0.0
    m = upper * wp.transpose(r)
    nn = wp.transpose(q) * adj_q - m
    x = m
    for i in range(3):
        for j in range(i):
            x[i, j] = m[i, j] + nn[i, j] - nn[j, i]
    return q * x * wp.transpose(wp.inverse(r))


def _call_adjoint(ctx: RuleContext, fn: Any, extra: Sequence[Any] = ()) -> list[Any]:
    e = ctx.e
    a = ctx.args[0]  # the out-argument forms pass the variables receiving the results after it
    results = [e.zero(r.type) if v is None else v for r, v in zip(ctx.op.results, ctx.results)]
    adjoints = [e.zero(r.type) if g is None else g for r, g in zip(ctx.op.results, ctx.adj)]
    args = [a, *results, *adjoints, *extra]
    spec = specialize(fn, [x.type for x in args])
    return [e.op("call_func", args, [a.type], func=spec).result]


@derivative("eig3", primal_args=(0,))
def _eig3(ctx: RuleContext) -> list[Any]:
    return _call_adjoint(ctx, eig3_adjoint)


@derivative("svd3", "svd2", primal_args=(0,))
def _svd(ctx: RuleContext) -> list[Any]:
    n = ctx.op.args[0].type._shape_[0]
    return _call_adjoint(ctx, svd_adjoint, [ctx.e.const(n, int32)])


@derivative("qr3", primal_args=(0,))
def _qr3(ctx: RuleContext) -> list[Any]:
    return _call_adjoint(ctx, qr3_adjoint)
