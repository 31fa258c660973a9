"""The :class:`RuleContext` a derivative rule receives for one forward op (see
:mod:`warp_autodiff.rules`); its own module so that the rule modules can import it without
importing the package that imports them.

It provides what :class:`warp.extending.DerivativeContext` declares, the protocol that rules of
other packages are typed with (mypy checks it where the reverse-mode transform calls a rule)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from warp_autodiff.adjoint_types import is_differentiable

if TYPE_CHECKING:
    from warp.extending import ir

    from warp_autodiff.transform.emit import Emitter

__all__ = ["RuleContext"]


class RuleContext:
    """What a rule sees of one forward op (see the module docstring)."""

    def __init__(self, transform: Any, emitter: Emitter, op: ir.Op, scope: Any, adjoints: list[Any]):
        self._t = transform
        self.e = emitter
        self.op = op
        self._scope = scope
        self.args = [scope.get(a) for a in op.args]
        #: replayed results (None for results the replay dropped, e.g. of array writes)
        self.results = [scope.env.get(id(r)) for r in op.results]
        self.adj = adjoints

    @property
    def name(self) -> str:
        return self.op.attrs["overload"].name

    @property
    def types(self) -> list[Any]:
        return [a.type for a in self.op.args]

    @property
    def adj_out(self) -> Any:
        """Adjoint of the (first) result, zero if it has none."""
        if self.adj and self.adj[0] is not None:
            return self.adj[0]
        return self.e.zero(self.op.results[0].type)

    def wants(self, k: int) -> bool:
        """Whether argument ``k`` takes an adjoint (differentiable and not a constant)."""
        a = self.op.args[k]
        return is_differentiable(a.type) and not a.is_const

    def array_accumulate(self, k: int, indices: list[Any], value: Any) -> None:
        """``adj(arg k)[indices] += value`` (atomic unless only this thread writes there)."""
        self._t.array_accumulate(self.e, self._scope, self.op, k, indices, value)

    def array_adjoint(self, k: int, indices: list[Any]) -> Any:
        """``adj(arg k)[indices]`` (zero when that array has no adjoint)."""
        return self._t.array_adjoint_load(self.e, self._scope, self.op, k, indices)

    def array_clear(self, k: int, indices: list[Any]) -> None:
        """``adj(arg k)[indices] = 0``: the adjoint of an overwritten element is consumed."""
        self._t.array_clear(self.e, self._scope, self.op, k, indices)
