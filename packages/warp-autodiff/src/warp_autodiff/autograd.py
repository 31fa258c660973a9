"""Gradient checks and Jacobians (``wp.autograd``; also importable as ``warp.autograd``).

- :func:`jacobian`: Jacobians from adjoints, one row per output element (``tape.backward`` with a
  one-hot ``grads`` seed, then ``tape.zero()``), the recipe of the documentation;
- :func:`jacobian_fd`: the same Jacobians by central finite differences;
- :func:`gradcheck`: compares the two; :func:`gradcheck_tape` checks every launch of a tape.

``function`` is a ``@wp.kernel`` (launched over ``dim`` with ``inputs``/``outputs``) or a Python
callable ``function(*inputs)`` that launches kernels, either writing into the arrays ``outputs``
or, when no ``outputs`` are given, returning its output array(s).
Array arguments with float element types are differentiated; the others are passed through.
Outputs (except arrays that are also inputs) are zeroed before every evaluation, so kernels
that accumulate into their outputs (``wp.atomic_add``) are measured correctly. With
``restore_inputs`` (the default) the input arrays are put back to their values before every
evaluation and at the end (also when the function raises), so functions that change their
inputs are measured from the same point each time. ``plot_jacobians`` draws the result with
:func:`~warp_autodiff.jacobian_plot.jacobian_plot` (matplotlib).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from warp.extending import array as _array, is_scalar_type, Kernel, launch, zeros_like

from warp_autodiff.jacobian_plot import FunctionMetadata, jacobian_plot
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
    """Runs the forward computation with outputs reset (and inputs restored) first.

    A callable given no ``outputs`` returns them: they are known after the first evaluation
    (:meth:`discover`), and each evaluation's own returned arrays are what it computed.
    """

    def __init__(self, function: Any, dim: Any, inputs: Sequence[Any], outputs: Sequence[Any], device: Any,
                 max_blocks: int, block_dim: int, restore_inputs: bool = True):
        if not isinstance(function, Kernel) and not callable(function):
            raise TypeError("function must be a @wp.kernel or a callable launching kernels")
        if isinstance(function, Kernel) and dim is None:
            raise ValueError("dim is required when function is a kernel")
        self.function, self.dim, self.device = function, dim, device
        self.inputs, self.outputs = list(inputs), list(outputs)
        self.max_blocks, self.block_dim = max_blocks, block_dim
        self.returns_outputs = not isinstance(function, Kernel) and not self.outputs
        ids = {id(a) for a in self.inputs}
        self.resettable = [o for o in self.outputs if isinstance(o, _array) and id(o) not in ids]
        arrays = [a for a in self.inputs if isinstance(a, _array)] if restore_inputs else []
        self.saved = [(a, a.numpy().copy()) for a in arrays]

    def restore(self) -> None:
        """Put the input arrays back to their values when the check began (with restore_inputs)."""
        for a, values in self.saved:
            a.assign(values)

    def discover(self) -> None:
        """Evaluate once to learn the outputs of a callable that returns them."""
        if self.returns_outputs and not self.outputs:
            self.restore()
            self.outputs = self()

    def __call__(self) -> list[Any]:
        """Evaluate; returns the output arrays that hold the result."""
        for o in self.resettable:
            o.zero_()
        if isinstance(self.function, Kernel):
            launch(self.function, self.dim, self.inputs, self.outputs, device=self.device,
                   max_blocks=self.max_blocks, block_dim=self.block_dim)
            return self.outputs
        result = self.function(*self.inputs)
        if not self.returns_outputs:
            return self.outputs
        returned = list(result) if isinstance(result, (list, tuple)) else [result]
        if not returned or not all(isinstance(o, _array) for o in returned):
            raise TypeError(
                f"function '{getattr(self.function, '__name__', self.function)}' given no outputs must "
                "return "
                "a warp array or a list of warp arrays"
            )
        return returned

    def metadata(self) -> FunctionMetadata:
        """Labels and types of the inputs and outputs, for plots."""
        if isinstance(self.function, Kernel):
            return FunctionMetadata.from_kernel(self.function, self.inputs, self.outputs)
        return FunctionMetadata.from_function(self.function, self.inputs, self.outputs)


def backward_disabled(kernel: Any) -> bool:
    """Whether adjoint code generation is off for ``kernel`` (its own ``enable_backward``, else
    its module's option, which follows ``wp.config.enable_backward``)."""
    flag = kernel.enable_backward
    if flag is None:
        flag = kernel.module.options["enable_backward"]
    return not flag


def _check_backward(kernels: Sequence[Any]) -> None:
    for kernel in kernels:
        if isinstance(kernel, Kernel) and backward_disabled(kernel):
            raise ValueError(
                f"Kernel must have backward pass enabled to compute Jacobians: kernel '{kernel.key}' has "
                "enable_backward=False (set on the kernel or on its module)"
            )


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
    metadata: FunctionMetadata | None = None,
    restore_inputs: bool = True,
) -> dict[Key, _array]:
    """Jacobians ``d outputs[j] / d inputs[i]`` from adjoints, keyed by ``(i, j)``.

    Each Jacobian is a 2-D array (output elements x input elements, components flattened); rows
    past ``max_outputs_per_var`` (when not -1) are not computed and hold NaN.
    ``ValueError`` when a kernel involved has backward code generation disabled.
    """
    inputs, outputs = list(inputs or []), list(outputs or [])
    evaluate = _Evaluator(function, dim, inputs, outputs, device, max_blocks, block_dim, restore_inputs)
    _check_backward([function])
    try:
        result = _jacobian_ad(evaluate, input_output_mask, max_outputs_per_var)
        jacobians = {k: _to_warp(v, inputs[k[0]]) for k, v in result.items()}
        if plot_jacobians:
            jacobian_plot(jacobians, metadata or evaluate.metadata())
        return jacobians
    finally:
        evaluate.restore()


def _jacobian_ad(evaluate: _Evaluator, mask: Any, max_outputs_per_var: int) -> dict[Key, np.ndarray]:
    inputs = evaluate.inputs
    result: dict[Key, np.ndarray] = {}
    with _Grads(inputs + evaluate.outputs):
        evaluate.restore()
        tape = Tape()
        with tape:
            outputs = evaluate()
        _check_backward([entry[0] for entry in tape.launches if not callable(entry)])
        evaluate.outputs = outputs
        pairs = _select(evaluate.function, inputs, outputs, mask)
        for j in sorted({j for _, j in pairs}):
            out = outputs[j]
            rows = _flat(out).size if max_outputs_per_var < 0 else min(max_outputs_per_var, _flat(out).size)
            ins = [i for i, jj in pairs if jj == j]
            # rows beyond max_outputs_per_var are not computed: NaN
            mats = {i: np.full((_flat(out).size, _flat(inputs[i]).size), np.nan) for i in ins}
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
    return result


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
    metadata: FunctionMetadata | None = None,
    restore_inputs: bool = True,
) -> dict[Key, _array]:
    """Jacobians by central finite differences ``(f(x + eps) - f(x - eps)) / 2 eps`` (forward
    launches only: kernels without backward code are fine); columns past ``max_inputs_per_var``
    (when not -1) are not computed and hold NaN."""
    inputs, outputs = list(inputs or []), list(outputs or [])
    evaluate = _Evaluator(function, dim, inputs, outputs, device, max_blocks, block_dim, restore_inputs)
    try:
        evaluate.discover()
        result = _jacobian_fd(evaluate, input_output_mask, max_inputs_per_var, eps)
        evaluate.restore()
        evaluate()  # leave the outputs at the unperturbed values
        jacobians = {k: _to_warp(v, inputs[k[0]]) for k, v in result.items()}
        if plot_jacobians:
            jacobian_plot(jacobians, metadata or evaluate.metadata())
        return jacobians
    finally:
        evaluate.restore()


def _jacobian_fd(
    evaluate: _Evaluator, mask: Any, max_inputs_per_var: int, eps: float
) -> dict[Key, np.ndarray]:
    inputs = evaluate.inputs
    pairs = _select(evaluate.function, inputs, evaluate.outputs, mask)
    result: dict[Key, np.ndarray] = {}
    for i in sorted({i for i, _ in pairs}):
        outs = [j for ii, j in pairs if ii == i]
        evaluate.restore()
        x = inputs[i].numpy()
        flat = x.reshape(-1)
        if not np.shares_memory(flat, x):
            raise ValueError("jacobian_fd needs contiguous input arrays")
        cols = flat.size if max_inputs_per_var < 0 else min(max_inputs_per_var, flat.size)
        sizes = {j: _flat(evaluate.outputs[j]).size for j in outs}
        # columns beyond max_inputs_per_var are not computed: NaN
        mats = {j: np.full((sizes[j], flat.size), np.nan) for j in outs}
        for c in range(cols):
            measured = []
            for sign in (1.0, -1.0):
                evaluate.restore()
                x = inputs[i].numpy()
                flat = x.reshape(-1)
                orig = flat[c].copy()
                flat[c] = orig + sign * eps
                stored = float(flat[c])  # the perturbed value actually stored (float32 rounds it)
                _store(inputs[i], x)
                produced = evaluate()
                measured.append((stored, {j: _flat(produced[j]).astype(np.float64) for j in outs}))
                flat[c] = orig
                _store(inputs[i], x)
            (x_plus, plus), (x_minus, minus) = measured
            for j in outs:
                mats[j][:, c] = (plus[j] - minus[j]) / (x_plus - x_minus)
        for j in outs:
            result[(i, j)] = mats[j]
    return result


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
    restore_inputs: bool = True,
) -> bool:
    """Check adjoint Jacobians against finite differences: ``|J_ad - J_fd| <= atol + rtol |J_fd|``.

    Returns True when every checked entry agrees; otherwise raises ``ValueError`` describing the
    worst entry (or returns False with ``raise_exception=False``). ``plot_relative_error`` /
    ``plot_absolute_error`` draw the error matrices (matplotlib).
    """
    inputs, outputs = list(inputs or []), list(outputs or [])
    common = dict(input_output_mask=input_output_mask, device=device, max_blocks=max_blocks,
                  block_dim=block_dim, restore_inputs=restore_inputs)
    fd = jacobian_fd(function, dim, inputs, outputs, max_inputs_per_var=max_inputs_per_var, eps=eps, **common)
    ad = jacobian(function, dim, inputs, outputs, max_outputs_per_var=max_outputs_per_var, **common)
    if not outputs and not isinstance(function, Kernel):  # a callable returning its outputs
        outputs = [None] * (max((j for _, j in fd), default=-1) + 1)
    in_names, out_names = _names(function, inputs, outputs)
    ok = True
    lines = []
    errors: dict[str, dict[Key, np.ndarray]] = {"relative": {}, "absolute": {}}
    for key in sorted(fd):
        i, j = key
        a, f = ad[key].numpy(), fd[key].numpy()
        rows = a.shape[0] if max_outputs_per_var < 0 else min(max_outputs_per_var, a.shape[0])
        cols = a.shape[1] if max_inputs_per_var < 0 else min(max_inputs_per_var, a.shape[1])
        a, f = a[:rows, :cols], f[:rows, :cols]
        abs_err = np.abs(a - f)
        errors["absolute"][key] = abs_err
        errors["relative"][key] = abs_err / np.maximum(np.abs(f), 1e-30)
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
    for kind, wanted in (("relative", plot_relative_error), ("absolute", plot_absolute_error)):
        if wanted and errors[kind]:
            if isinstance(function, Kernel):
                meta = FunctionMetadata.from_kernel(function, inputs, outputs)
            else:
                meta = FunctionMetadata.from_function(function, inputs, [o for o in outputs if o is not None])
            jacobian_plot({k: _to_warp(v, inputs[k[0]]) for k, v in errors[kind].items()}, meta,
                          title=f"{meta.key or 'unknown'} kernel Jacobian {kind} error", log_scale=False)
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
        kernel, device = entry.kernel, entry.device
        dim, inputs, outputs = entry.dim, entry.inputs, entry.outputs
        if blacklist_kernels and kernel in blacklist_kernels:
            continue
        if whitelist_kernels and kernel not in whitelist_kernels:
            continue
        if backward_disabled(kernel):  # no adjoint to check (its launches are not differentiated)
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


__all__: list[str] = [
    "FunctionMetadata", "gradcheck", "gradcheck_tape", "jacobian", "jacobian_fd", "jacobian_plot",
]
