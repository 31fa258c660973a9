"""Python-scope matrix multiplication of 2-D (and batched 3-D) arrays: ``wp.matmul``,
``wp.batched_matmul`` and ``a @ b`` on arrays, as in NVIDIA Warp's runtime reference.

``d = alpha * (a @ b) + beta * c`` runs as a kernel, so a ``wp.Tape`` records it like any launch;
its adjoint is computed by dedicated kernels (``adj_a += alpha * adj_d @ b.T``,
``adj_b += alpha * a.T @ adj_d``, ``adj_c += beta * adj_d``) rather than by differentiating the
forward loop. ``c`` may be ``d`` (in-place update).

A core plugin (``warp.plugins.manager.CORE_PLUGINS``): it publishes ``wp.matmul`` and
``wp.batched_matmul`` with ``warp_exports`` and multiplies arrays for ``a @ b`` with
``warp_array_matmul``, so that neither ``warp`` nor the array class imports it (and the module is not
``warp.matmul``, which would shadow the function ``wp.matmul``).
"""

from __future__ import annotations

from typing import Any

import warp as wp  # kernels below resolve wp.tid at compile time
from warp.arrays.array import array
from warp.decorators import kernel
from warp.kernels import CustomAdjoint
from warp.runtime.launch import launch
from warp.types.scalars import float16, float32, float64
from warp.runtime.python_builtins import PythonBuiltin
from warp.plugins import hookimpl

__all__ = ["batched_matmul", "matmul"]

_FLOATS = (float16, float32, float64)


@kernel(enable_backward=False)
def _gemm(
    a: array(dtype=Any, ndim=2),
    b: array(dtype=Any, ndim=2),
    c: array(dtype=Any, ndim=2),
    d: array(dtype=Any, ndim=2),
    alpha: Any,
    beta: Any,
) -> None:
    i, j = wp.tid()
    s = d.dtype(0)
    for k in range(a.shape[1]):
        s += a[i, k] * b[k, j]
    d[i, j] = alpha * s + beta * c[i, j]


@kernel(enable_backward=False)
def _gemm_adj_a(
    b: array(dtype=Any, ndim=2), adj_a: array(dtype=Any, ndim=2), adj_d: array(dtype=Any, ndim=2), alpha: Any
) -> None:
    i, k = wp.tid()
    s = adj_a.dtype(0)
    for j in range(b.shape[1]):
        s += adj_d[i, j] * b[k, j]
    adj_a[i, k] = adj_a[i, k] + alpha * s


@kernel(enable_backward=False)
def _gemm_adj_b(
    a: array(dtype=Any, ndim=2), adj_b: array(dtype=Any, ndim=2), adj_d: array(dtype=Any, ndim=2), alpha: Any
) -> None:
    k, j = wp.tid()
    s = adj_b.dtype(0)
    for i in range(a.shape[0]):
        s += a[i, k] * adj_d[i, j]
    adj_b[k, j] = adj_b[k, j] + alpha * s


@kernel(enable_backward=False)
def _gemm_adj_c(
    adj_c: array(dtype=Any, ndim=2), adj_d: array(dtype=Any, ndim=2), beta: Any, in_place: int
) -> None:
    i, j = wp.tid()
    if in_place != 0:
        adj_c[i, j] = beta * adj_d[i, j]  # c is d: the gradient of the old d replaces the new one's
    else:
        adj_c[i, j] = adj_c[i, j] + beta * adj_d[i, j]


@kernel(enable_backward=False)
def _batched_gemm(
    a: array(dtype=Any, ndim=3),
    b: array(dtype=Any, ndim=3),
    c: array(dtype=Any, ndim=3),
    d: array(dtype=Any, ndim=3),
    alpha: Any,
    beta: Any,
) -> None:
    n, i, j = wp.tid()
    s = d.dtype(0)
    for k in range(a.shape[2]):
        s += a[n, i, k] * b[n, k, j]
    d[n, i, j] = alpha * s + beta * c[n, i, j]


@kernel(enable_backward=False)
def _batched_gemm_adj_a(
    b: array(dtype=Any, ndim=3), adj_a: array(dtype=Any, ndim=3), adj_d: array(dtype=Any, ndim=3), alpha: Any
) -> None:
    n, i, k = wp.tid()
    s = adj_a.dtype(0)
    for j in range(b.shape[2]):
        s += adj_d[n, i, j] * b[n, k, j]
    adj_a[n, i, k] = adj_a[n, i, k] + alpha * s


@kernel(enable_backward=False)
def _batched_gemm_adj_b(
    a: array(dtype=Any, ndim=3), adj_b: array(dtype=Any, ndim=3), adj_d: array(dtype=Any, ndim=3), alpha: Any
) -> None:
    n, k, j = wp.tid()
    s = adj_b.dtype(0)
    for i in range(a.shape[1]):
        s += a[n, i, k] * adj_d[n, i, j]
    adj_b[n, k, j] = adj_b[n, k, j] + alpha * s


@kernel(enable_backward=False)
def _batched_gemm_adj_c(
    adj_c: array(dtype=Any, ndim=3), adj_d: array(dtype=Any, ndim=3), beta: Any, in_place: int
) -> None:
    n, i, j = wp.tid()
    if in_place != 0:
        adj_c[n, i, j] = beta * adj_d[n, i, j]
    else:
        adj_c[n, i, j] = adj_c[n, i, j] + beta * adj_d[n, i, j]


def _check(name: str, a: Any, b: Any, c: Any, d: Any, ndim: int) -> None:
    for label, x in (("a", a), ("b", b), ("c", c), ("d", d)):
        if not isinstance(x, array) or x.ndim != ndim:
            raise RuntimeError(f"{name}: '{label}' must be a {ndim}-D warp array")
    if len({a.dtype, b.dtype, c.dtype, d.dtype}) != 1 or a.dtype not in _FLOATS:
        raise RuntimeError(
            f"{name}: a, b, c and d must have the same float dtype (float16, float32 or float64)"
        )
    if len({str(x.device) for x in (a, b, c, d)}) != 1:
        raise RuntimeError(f"{name}: a, b, c and d must live on the same device")
    m, k = a.shape[-2:]
    k2, n = b.shape[-2:]
    batch = {x.shape[0] for x in (a, b, c, d)} if ndim == 3 else {1}
    if k != k2 or tuple(c.shape[-2:]) != (m, n) or tuple(d.shape[-2:]) != (m, n) or len(batch) != 1:
        raise RuntimeError(
            f"{name} has incompatible dimensions: a {a.shape}, b {b.shape}, c {c.shape}, d {d.shape}"
        )


def _run(
    gemm: Any, name: str, ndim: int, a: Any, b: Any, c: Any, d: Any, alpha: float, beta: float, device: Any
) -> Any:
    """Check the operands of ``name`` and launch ``gemm`` over ``d``'s shape; returns ``d``."""
    _check(name, a, b, c, d, ndim)
    t = a.dtype
    launch(gemm, dim=d.shape, inputs=[a, b, c, d, t(alpha), t(beta)], device=device or a.device)
    return d


def _adjoint(adj_kernels: tuple[Any, Any, Any]) -> CustomAdjoint:
    """The adjoint of a GEMM launch, run by ``wp.launch(..., adjoint=True)`` (and so by ``wp.Tape``)."""

    def run(
        dim: Any, inputs: list, outputs: list, adj_inputs: list, adj_outputs: list, device: Any, stream: Any
    ) -> None:
        a, b, c, d, alpha, beta = [*inputs, *outputs]
        adj_a, adj_b, adj_c, adj_d = [*adj_inputs, *adj_outputs][:4]
        if adj_d is None:
            return
        ka, kb, kc = adj_kernels

        def accumulate(adj_kernel: Any, adj: Any, args: list) -> None:
            launch(adj_kernel, dim=adj.shape, inputs=args, device=device, stream=stream, record_tape=False)

        if adj_a is not None:
            accumulate(ka, adj_a, [b, adj_a, adj_d, alpha])
        if adj_b is not None:
            accumulate(kb, adj_b, [a, adj_b, adj_d, alpha])
        if adj_c is not None:
            in_place = int(c.ptr == d.ptr and adj_c.ptr == adj_d.ptr)
            accumulate(kc, adj_c, [adj_c, adj_d, beta, in_place])

    return run


_gemm.custom_adjoint = _adjoint((_gemm_adj_a, _gemm_adj_b, _gemm_adj_c))
_batched_gemm.custom_adjoint = _adjoint((_batched_gemm_adj_a, _batched_gemm_adj_b, _batched_gemm_adj_c))


def matmul(
    a: Any,
    b: Any,
    c: Any = None,
    d: Any = None,
    alpha: float = 1.0,
    beta: float = 0.0,
    allow_tf32x3_arith: bool = False,
    device: Any = None,
) -> Any:
    """``d = alpha * (a @ b) + beta * c`` for 2-D arrays (differentiable, recorded by ``wp.Tape``).

    ``a`` is (m, k), ``b`` (k, n), ``c`` and ``d`` (m, n), all of one float dtype on one device.
    Called with values instead of arrays (``wp.matmul(m1, m2)``), it is the kernel builtin
    evaluated in Python scope. ``allow_tf32x3_arith`` is accepted for compatibility (no effect).
    """
    if not isinstance(a, array):
        args = [x for x in (a, b, c, d) if x is not None]
        return PythonBuiltin("matmul")(*args)
    return _run(_gemm, "wp.matmul", 2, a, b, c, d, alpha, beta, device)


def batched_matmul(
    a: Any,
    b: Any,
    c: Any,
    d: Any,
    alpha: float = 1.0,
    beta: float = 0.0,
    allow_tf32x3_arith: bool = False,
    device: Any = None,
) -> Any:
    """``d[i] = alpha * (a[i] @ b[i]) + beta * c[i]`` for 3-D arrays of matrices (differentiable)."""
    return _run(_batched_gemm, "wp.batched_matmul", 3, a, b, c, d, alpha, beta, device)


@hookimpl
def warp_exports() -> dict[str, Any]:
    """``wp.matmul`` and ``wp.batched_matmul``."""
    return {"matmul": matmul, "batched_matmul": batched_matmul}


@hookimpl
def warp_array_matmul(a: array, b: Any) -> array | None:
    """``a @ b`` of two 2-D arrays: a new array (requiring gradients if either operand does);
    None for other operands."""
    if not isinstance(b, array) or a.ndim != 2 or b.ndim != 2:
        return None
    requires_grad = a.requires_grad or b.requires_grad
    c = array(shape=(a.shape[0], b.shape[1]), dtype=a.dtype, device=a.device, requires_grad=requires_grad)
    c.zero_()
    d = array(shape=(a.shape[0], b.shape[1]), dtype=a.dtype, device=a.device, requires_grad=requires_grad)
    return matmul(a, b, c, d)
