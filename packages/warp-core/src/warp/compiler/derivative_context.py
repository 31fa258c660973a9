"""What a derivative rule may use of the context it receives (:class:`DerivativeContext`).

A rule's ``backward(ctx)`` (see :mod:`warp.compiler.derivatives`) is called by the reverse-mode
transform of warp-autodiff with its ``RuleContext`` for one forward ``call`` op. Core declares
the part of that object a rule may rely on as a :class:`typing.Protocol`, so that a plugin can
type its rules (``def _rule(ctx: DerivativeContext) -> list[Any]``) without importing
warp-autodiff, and mypy checks that warp-autodiff's context provides it (where the transform
calls ``rule.backward``). :class:`DerivativeEmitter` is the part of ``ctx.e``, the builder of
the reverse sweep's ops, that rules use.
"""

from __future__ import annotations

from typing import Any, Protocol, Sequence

from warp.compiler import ir
from warp.compiler.registry import Overload

__all__ = ["DerivativeContext", "DerivativeEmitter"]


class DerivativeEmitter(Protocol):
    """Builds the ops of the reverse sweep (``ctx.e``); each returns the new op's result."""

    def op(
        self,
        kind: str,
        args: Sequence[ir.Value],
        result_types: Sequence[Any] = ...,
        regions: Sequence[ir.Region] = ...,
        **attrs: Any,
    ) -> ir.Op:
        """Append an op of ``kind`` (an IR op kind such as ``"call"``) and return it."""
        ...

    def const(self, value: Any, t: Any) -> ir.Value:
        """A constant ``value`` of type ``t``."""
        ...

    def zero(self, t: Any) -> ir.Value:
        """The zero of type ``t``."""
        ...

    def scalar(self, value: float, like: ir.Value) -> ir.Value:
        """A constant of the scalar type of ``like`` (its component type for composites)."""
        ...

    def internal(self, overload: Overload, args: Sequence[ir.Value], result: Any) -> ir.Value:
        """Call ``overload`` (an operation outside the registry) returning a value of type ``result``."""
        ...

    def effect(self, overload: Overload, args: Sequence[ir.Value]) -> None:
        """Call ``overload`` (an operation outside the registry) for its effect only."""
        ...

    def call(self, name: str, *args: ir.Value) -> ir.Value:
        """Call builtin ``name`` (overload resolved by the argument types)."""
        ...

    def has(self, name: str, *types: Any) -> bool:
        """Whether builtin ``name`` is registered with an overload for ``types``."""
        ...

    def add(self, a: ir.Value, b: ir.Value) -> ir.Value:
        """``a + b`` of two adjoints of one type."""
        ...

    def mul(self, a: ir.Value, b: ir.Value) -> ir.Value:
        """``a * b`` (the builtin ``mul``)."""
        ...

    def sub(self, a: ir.Value, b: ir.Value) -> ir.Value:
        """``a - b`` (the builtin ``sub``)."""
        ...

    def div(self, a: ir.Value, b: ir.Value) -> ir.Value:
        """``a / b`` (the builtin ``div``)."""
        ...

    def neg(self, a: ir.Value) -> ir.Value:
        """``-a`` (the builtin ``neg``)."""
        ...

    def select(self, cond: ir.Value, a: ir.Value, b: ir.Value) -> ir.Value:
        """``cond ? a : b`` (both evaluated)."""
        ...

    def cmp(self, name: str, a: ir.Value, b: ir.Value) -> ir.Value:
        """The comparison builtin ``name`` (``"lt"``, ...) of ``a`` and ``b``."""
        ...

    def cast(self, value: ir.Value, t: Any) -> ir.Value:
        """``value`` converted to type ``t`` (itself when it has that type)."""
        ...


class DerivativeContext(Protocol):
    """What a derivative rule sees of one forward op; ``backward(ctx)`` returns one adjoint
    contribution per argument (``None`` for none)."""

    @property
    def e(self) -> DerivativeEmitter:
        """The builder of the reverse sweep's ops."""
        ...

    @property
    def op(self) -> ir.Op:
        """The forward op being differentiated."""
        ...

    @property
    def name(self) -> str:
        """The name of the builtin the op calls."""
        ...

    @property
    def args(self) -> list[Any]:
        """The op's arguments as replayed in the reverse sweep (primal values)."""
        ...

    @property
    def types(self) -> list[Any]:
        """The types of the op's arguments."""
        ...

    @property
    def results(self) -> list[Any]:
        """The op's replayed results (None for results the replay dropped)."""
        ...

    @property
    def adj(self) -> list[Any]:
        """The adjoints of the op's results (None for a result without one)."""
        ...

    @property
    def adj_out(self) -> Any:
        """The adjoint of the (first) result, zero if it has none."""
        ...

    def wants(self, k: int) -> bool:
        """Whether argument ``k`` takes an adjoint (differentiable and not a constant)."""
        ...

    def array_accumulate(self, k: int, indices: list[Any], value: Any) -> None:
        """``adj(arg k)[indices] += value``."""
        ...

    def array_adjoint(self, k: int, indices: list[Any]) -> Any:
        """``adj(arg k)[indices]`` (zero when that array has no adjoint)."""
        ...

    def array_clear(self, k: int, indices: list[Any]) -> None:
        """``adj(arg k)[indices] = 0``."""
        ...
