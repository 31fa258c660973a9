"""Gradient checks and Jacobians (``wp.autograd``; also importable as ``warp.autograd``).

- :func:`jacobian`: Jacobians from adjoints, one row per output element (``tape.backward`` with a
  one-hot ``grads`` seed, then ``tape.zero()``), the recipe of the documentation;
- :func:`jacobian_fd`: the same Jacobians by central finite differences;
- :func:`gradcheck`: compares the two; :func:`gradcheck_tape` checks every launch of a tape.

``function`` is a ``@wp.kernel`` (launched over ``dim`` with ``inputs``/``outputs``) or a Python
callable ``function(*inputs)`` that launches kernels writing into the arrays ``outputs``.
Array arguments with float element types are differentiated; the others are passed through.
Outputs (except arrays that are also inputs) are zeroed before every evaluation, so kernels
that accumulate into their outputs (``wp.atomic_add``) are measured correctly.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from warp.extending import array as _array, is_scalar_type, Kernel, launch, zeros_like

from warp_autodiff.tape import Tape

Key = tuple[int, int]


def _is_float_array(a: Any) -> bool:
    if not isinstance(a, _array):
        return False
    dtype = a.dtype
    scalar = dtype if is_scalar_type(dtype) else getattr(dtype, "_wp_scalar_type_", None)
    return scalar is not None and getattr(scalar, "_kind_", "") == "float"


def _names(function: Any, inputs: Sequence[Any], outputs: Sequence[Any]) -> tuple[list[str], list[str]]:
    if isinstance(function, Kernel):
        names = list(function.arg_names)
        return names[: len(inputs)], names[len(inputs): len(inputs) + len(outputs)]
    return [f"input_{i}" for i in range(len(inputs))], [f"output_{j}" for j in range(len(outputs))]


def _select(function: Any, inputs: Sequence[Any], outputs: Sequence[Any], mask: Any) -> list[Key]:
    in_names, out_names = _names(function, inputs, outputs)
    pairs = [
        (i, j)
        for i, a in enumerate(inputs)
        if _is_float_array(a)
        for j, b in enumerate(outputs)
        if _is_float_array(b)
    ]
    if not mask:
        return pairs

    def index(item: Any, names: list[str]) -> int:
        return names.index(item) if isinstance(item, str) else int(item)

    wanted = {(index(i, in_names), index(j, out_names)) for i, j in mask}
    return [p for p in pairs if p in wanted]


class _Evaluator:
    """Runs the forward computation with outputs reset first."""

    def __init__(self, function: Any, dim: Any, inputs: Sequence[Any], outputs: Sequence[Any], device: Any,
                 max_blocks: int, block_dim: int):
        if not isinstance(function, Kernel) and not callable(function):
            raise TypeError("function must be a @wp.kernel or a callable launching kernels")
        if isinstance(function, Kernel) and dim is None:
            raise ValueError("dim is required when function is a kernel")
        self.function, self.dim, self.device = function, dim, device
        self.inputs, self.outputs = list(inputs), list(outputs)
        self.max_blocks, self.block_dim = max_blocks, block_dim
        ids = {id(a) for a in self.inputs}
        self.resettable = [o for o in self.outputs if isinstance(o, _array) and id(o) not in ids]

    def __call__(self) -> None:
        for o in self.resettable:
            o.zero_()
        if isinstance(self.function, Kernel):
            launch(self.function, self.dim, self.inputs, self.outputs, device=self.device,
                   max_blocks=self.max_blocks, block_dim=self.block_dim)
        else:
            self.function(*self.inputs)


def _flat(a: _array) -> np.ndarray:
    return a.numpy().reshape(-1)


def _store(a: _array, host: np.ndarray) -> None:
    """Make ``a`` hold ``host``, which came from ``a.numpy()`` and was changed: on the CPU that is
    the array's own memory (nothing to do); on another device a copy, uploaded here."""
    if a.device is not None and not a.device.is_cpu:
        a.assign(host)


class _Grads:
    """Gives every differentiated array a gradient for the duration of a computation."""

    def __init__(self, arrays: Sequence[Any]):
        self.arrays = [a for a in arrays if isinstance(a, _array)]
        self.added: list[Any] = []

    def __enter__(self) -> _Grads:
        for a in self.arrays:
            if a.grad is None and _is_float_array(a):
                a.requires_grad = True
                self.added.append(a)
        return self

    def __exit__(self, *exc: Any) -> None:
        for a in self.added:
            a.requires_grad = False


def jacobian(
    function: Any,
    dim: Any = None,
    inputs: Sequence[Any] | None = None,
    outputs: Sequence[Any] | None = None,
    input_output_mask: list[tuple[Any, Any]] | None = None,
    device: Any = None,
    max_blocks: int = 0,
    block_dim: int = 256,
    max_outputs_per_var: int = -1,
    plot_jacobians: bool = False,
) -> dict[Key, _array]:
    """Jacobians ``d outputs[j] / d inputs[i]`` from adjoints, keyed by ``(i, j)``.

    Each Jacobian is a 2-D array (output elements x input elements, components flattened).
    """
    inputs, outputs = list(inputs or []), list(outputs or [])
    pairs = _select(function, inputs, outputs, input_output_mask)
    evaluate = _Evaluator(function, dim, inputs, outputs, device, max_blocks, block_dim)
    result: dict[Key, np.ndarray] = {}
    with _Grads(inputs + outputs):
        tape = Tape()
        with tape:
            evaluate()
        for j in sorted({j for _, j in pairs}):
            out = outputs[j]
            rows = _flat(out).size if max_outputs_per_var < 0 else min(max_outputs_per_var, _flat(out).size)
            ins = [i for i, jj in pairs if jj == j]
            mats = {i: np.zeros((_flat(out).size, _flat(inputs[i]).size)) for i in ins}
            tape.zero()
            for r in range(rows):
                seed = _zeros_like(out)
                host = seed.numpy()
                host.reshape(-1)[r] = 1.0
                _store(seed, host)
                tape.backward(grads={out: seed})
                for i in ins:
                    mats[i][r, :] = _flat(inputs[i].grad)
                tape.zero()
            for i in ins:
                result[(i, j)] = mats[i]
    return {k: _to_warp(v, inputs[k[0]]) for k, v in result.items()}


def jacobian_fd(
    function: Any,
    dim: Any = None,
    inputs: Sequence[Any] | None = None,
    outputs: Sequence[Any] | None = None,
    input_output_mask: list[tuple[Any, Any]] | None = None,
    device: Any = None,
    max_blocks: int = 0,
    block_dim: int = 256,
    max_inputs_per_var: int = -1,
    eps: float = 1e-4,
    plot_jacobians: bool = False,
) -> dict[Key, _array]:
    """Jacobians by central finite differences ``(f(x + eps) - f(x - eps)) / 2 eps``."""
    inputs, outputs = list(inputs or []), list(outputs or [])
    pairs = _select(function, inputs, outputs, input_output_mask)
    evaluate = _Evaluator(function, dim, inputs, outputs, device, max_blocks, block_dim)
    result: dict[Key, np.ndarray] = {}
    for i in sorted({i for i, _ in pairs}):
        outs = [j for ii, j in pairs if ii == i]
        x = inputs[i].numpy()
        flat = x.reshape(-1)
        if not np.shares_memory(flat, x):
            raise ValueError("jacobian_fd needs contiguous input arrays")
        cols = flat.size if max_inputs_per_var < 0 else min(max_inputs_per_var, flat.size)
        mats = {j: np.zeros((_flat(outputs[j]).size, flat.size)) for j in outs}
        for c in range(cols):
            orig = flat[c].copy()
            flat[c] = orig + eps
            x_plus = float(flat[c])
            _store(inputs[i], x)
            evaluate()
            plus = {j: _flat(outputs[j]).astype(np.float64) for j in outs}
            flat[c] = orig - eps
            x_minus = float(flat[c])
            _store(inputs[i], x)
            evaluate()
            minus = {j: _flat(outputs[j]).astype(np.float64) for j in outs}
            flat[c] = orig
            _store(inputs[i], x)
            denom = x_plus - x_minus  # the perturbation actually stored (float32 rounds it)
            for j in outs:
                mats[j][:, c] = (plus[j] - minus[j]) / denom
        for j in outs:
            result[(i, j)] = mats[j]
    evaluate()  # leave the outputs at the unperturbed values
    return {k: _to_warp(v, inputs[k[0]]) for k, v in result.items()}


def gradcheck(
    function: Any,
    dim: Any = None,
    inputs: Sequence[Any] | None = None,
    outputs: Sequence[Any] | None = None,
    *,
    eps: float = 1e-4,
    atol: float = 1e-3,
    rtol: float = 1e-2,
    raise_exception: bool = True,
    input_output_mask: list[tuple[Any, Any]] | None = None,
    device: Any = None,
    max_blocks: int = 0,
    block_dim: int = 256,
    max_inputs_per_var: int = -1,
    max_outputs_per_var: int = -1,
    plot_relative_error: bool = False,
    plot_absolute_error: bool = False,
    show_summary: bool = True,
) -> bool:
    """Check adjoint Jacobians against finite differences: ``|J_ad - J_fd| <= atol + rtol |J_fd|``.

    Returns True when every checked entry agrees; otherwise raises ``ValueError`` describing the
    worst entry (or returns False with ``raise_exception=False``).
    """
    inputs, outputs = list(inputs or []), list(outputs or [])
    fd = jacobian_fd(function, dim, inputs, outputs, input_output_mask, device, max_blocks, block_dim,
                     max_inputs_per_var, eps)
    ad = jacobian(function, dim, inputs, outputs, input_output_mask, device, max_blocks, block_dim,
                  max_outputs_per_var)
    in_names, out_names = _names(function, inputs, outputs)
    ok = True
    lines = []
    for key in sorted(fd):
        i, j = key
        a, f = ad[key].numpy(), fd[key].numpy()
        rows = a.shape[0] if max_outputs_per_var < 0 else min(max_outputs_per_var, a.shape[0])
        cols = a.shape[1] if max_inputs_per_var < 0 else min(max_inputs_per_var, a.shape[1])
        a, f = a[:rows, :cols], f[:rows, :cols]
        abs_err = np.abs(a - f)
        tol = atol + rtol * np.abs(f)
        bad = ~(abs_err <= tol)  # NaN counts as a failure
        name = f"{in_names[i]} -> {out_names[j]}"
        max_abs = float(np.nanmax(abs_err)) if abs_err.size else 0.0
        rel = abs_err / np.maximum(np.abs(f), 1e-30)
        max_rel = float(np.nanmax(rel)) if rel.size else 0.0
        lines.append(f"  {name:40s} max abs err {max_abs:.3e}  max rel err {max_rel:.3e}  "
                     f"{'FAIL' if bad.any() else 'ok'}")
        if bad.any():
            ok = False
            r, c = np.argwhere(bad)[0]
            lines.append(f"    first mismatch at output element {r}, input element {c}: adjoint {a[r, c]!r}, "
                         f"finite difference {f[r, c]!r}")
    if show_summary:
        print("gradcheck " + ("passed" if ok else "FAILED") + ":\n" + "\n".join(lines))
    if not ok and raise_exception:
        raise ValueError("gradient check failed:\n" + "\n".join(lines))
    return ok


def gradcheck_tape(
    tape: Tape,
    *,
    eps: float = 1e-4,
    atol: float = 1e-3,
    rtol: float = 1e-2,
    raise_exception: bool = True,
    input_output_mask: list[tuple[Any, Any]] | None = None,
    blacklist_kernels: list[Any] | None = None,
    whitelist_kernels: list[Any] | None = None,
    max_inputs_per_var: int = -1,
    max_outputs_per_var: int = -1,
    show_summary: bool = True,
    reverse_launches: bool = False,
    skip_to_launch_index: int = 0,
) -> bool:
    """Run :func:`gradcheck` on every kernel launch recorded on ``tape`` (custom functions skipped).

    Each launch is checked in isolation with the arrays it was recorded with; arrays the
    kernel writes are recomputed by it, so run this after the forward pass.
    """
    launches = [entry for entry in tape.launches if not callable(entry)]
    if reverse_launches:
        launches = launches[::-1]
    ok = True
    for entry in launches[skip_to_launch_index:]:
        kernel, dim, inputs, outputs, device = entry
        if blacklist_kernels and kernel in blacklist_kernels:
            continue
        if whitelist_kernels and kernel not in whitelist_kernels:
            continue
        ok = gradcheck(kernel, dim, inputs, outputs, eps=eps, atol=atol, rtol=rtol,
                       raise_exception=raise_exception, input_output_mask=input_output_mask, device=device,
                       max_inputs_per_var=max_inputs_per_var, max_outputs_per_var=max_outputs_per_var,
                       show_summary=show_summary) and ok
    return ok


def _zeros_like(a: _array) -> _array:
    return zeros_like(a)


def _to_warp(values: np.ndarray, like: _array) -> _array:
    scalar = like.dtype if is_scalar_type(like.dtype) else like.dtype._wp_scalar_type_
    return _array(values.astype(scalar._np_dtype_), dtype=scalar)


__all__: list[str] = ["gradcheck", "gradcheck_tape", "jacobian", "jacobian_fd"]
