"""``wp.Tape``: records kernel launches and replays their adjoints in reverse order."""

from __future__ import annotations

from typing import Any, Callable

import warp.runtime.launch as _launch
from warp.arrays import array as _array

_active: list[Tape] = []


class Tape:
    """Record kernel launches within a ``with`` block and compute gradients with :meth:`backward`.

    Gradients accumulate into the ``.grad`` arrays of the arrays the recorded kernels use
    (those created with ``requires_grad=True``); arrays without a gradient are skipped.
    :attr:`gradients` maps each array whose gradient the tape used to that gradient array.
    """

    def __init__(self) -> None:
        #: array -> its gradient array, for every array whose gradient a backward pass used
        self.gradients: dict[Any, Any] = {}
        #: recorded launches ``(kernel, dim, inputs, outputs, device)`` and custom callables
        self.launches: list[Any] = []
        self.scopes: list[tuple[int, str | None, Any]] = []
        self.loss: Any = None

    # -- recording --------------------------------------------------------------------------
    def __enter__(self) -> Tape:
        if _active:
            raise RuntimeError("Warp: a Tape is already recording; nested tapes are not supported")
        _active.append(self)
        _launch._launch_hooks.append(self._record)
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            _launch._launch_hooks.remove(self._record)
        except ValueError:
            pass
        if _active and _active[-1] is self:
            _active.pop()

    def _record(self, kernel: Any, dim: Any, inputs: Any, outputs: Any, device: Any) -> None:
        self.launches.append((kernel, dim, list(inputs), list(outputs), device))

    def record_func(self, backward: Callable[[], None], arrays: list[Any]) -> None:
        """Record a Python callable run (instead of a kernel adjoint) during :meth:`backward`.

        ``arrays`` are the arrays whose gradients it updates; they are zeroed by :meth:`zero`.
        """
        for a in arrays:
            if isinstance(a, _array) and a.grad is not None:
                self.gradients[a] = a.grad
            else:
                raise RuntimeError(f"Tape.record_func: array {a!r} has no gradient (create it with requires_grad=True)")
        self.launches.append(backward)

    def record_scope_begin(self, scope_name: str, metadata: Any = None) -> None:
        """Mark the start of a named group of launches (kept for visualization tools)."""
        self.scopes.append((len(self.launches), scope_name, metadata))

    def record_scope_end(self, remove_scope_if_empty: bool = True) -> None:
        """Mark the end of the innermost named group of launches."""
        self.scopes.append((len(self.launches), None, None))

    # -- backward ---------------------------------------------------------------------------
    def backward(self, loss: Any = None, grads: dict[Any, Any] | None = None) -> None:
        """Run the adjoints of the recorded launches in reverse order.

        ``loss``: a one-element array with ``requires_grad=True``; its gradient is set to 1.
        ``grads``: ``{array: seed}`` gradients to start from (e.g. a row selector for Jacobians).
        """
        if loss is not None:
            if not isinstance(loss, _array):
                raise TypeError(f"Tape.backward: loss must be a warp array, got {type(loss).__name__}")
            if loss.size > 1:
                raise RuntimeError("Can only return gradients for scalar loss functions.")
            if loss.grad is None:
                raise RuntimeError(
                    "Scalar loss arrays should have requires_grad=True set before calling Tape.backward()"
                )
            self.loss = loss
            loss.grad.fill_(1.0)
        if grads:
            for a, g in grads.items():
                if a.grad is None:
                    a.grad = g
                else:
                    a.grad.assign(g)
                self.gradients[a] = a.grad
        from warp.runtime.launch import launch

        for entry in reversed(self.launches):
            if callable(entry):
                entry()
                continue
            kernel, dim, inputs, outputs, device = entry
            adj_inputs = [self.get_adjoint(a) for a in inputs]
            adj_outputs = [self.get_adjoint(a) for a in outputs]
            launch(kernel, dim, inputs, outputs, adj_inputs, adj_outputs, device=device, adjoint=True)

    def get_adjoint(self, a: Any) -> Any:
        """The adjoint argument for launch argument ``a``: its gradient, ``None``, or ``a`` itself."""
        if isinstance(a, _array):
            grad = a.grad
            if grad is None:
                return None
            self.gradients[a] = grad
            return grad
        if getattr(type(a), "_wp_kind_", "") == "struct":
            return self._struct_adjoint(a)
        return a  # scalars and other values: no gradient flows back through them

    def _struct_adjoint(self, s: Any) -> Any:
        """A struct of the same type whose array fields are the gradients of ``s``'s arrays."""
        adj = type(s)()
        for name, _ in type(s)._fields_:
            value = getattr(s, name)
            if isinstance(value, _array) or getattr(type(value), "_wp_kind_", "") == "struct":
                grad = self.get_adjoint(value)
                if grad is not None:
                    setattr(adj, name, grad)
        return adj

    # -- housekeeping -----------------------------------------------------------------------
    def zero(self) -> None:
        """Set every gradient array the tape used to zero."""
        for grad in self.gradients.values():
            if isinstance(grad, _array):
                grad.zero_()

    def reset(self) -> None:
        """Forget the recorded launches and zero the gradients."""
        self.launches = []
        self.scopes = []
        self.zero()

    def __repr__(self) -> str:
        return f"<warp.Tape launches={len(self.launches)} gradients={len(self.gradients)}>"
