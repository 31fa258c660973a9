"""Building IR: an :class:`Emitter` appends ops to one region; type helpers for adjoints."""

from __future__ import annotations

import math
from typing import Any, Sequence

from warp.extending import builtin_registry, ir, is_scalar_type, Overload, SourceLoc, type_repr

from warp_autodiff import ops
from warp_autodiff.adjoint_types import is_composite, is_struct


class RuleError(Exception):
    """A derivative rule could not be applied (e.g. a builtin it needs is not installed)."""


def zero_value(t: Any) -> Any:
    """The Python constant of a zero of type ``t`` (as a ``const`` op holds it)."""
    if is_scalar_type(t):
        return 0.0 if t._kind_ == "float" else 0
    if is_composite(t):
        return tuple([0.0] * math.prod(t._shape_))
    if is_struct(t):
        return None  # lowers to the all-zero struct
    hook = getattr(t, "_wp_zero_", None)
    if hook is not None:
        return hook()
    raise RuleError(f"no zero value for type {type_repr(t)}")


class Emitter:
    """Appends ops to ``region``; new ops carry ``loc`` (the forward op being differentiated)."""

    def __init__(self, region: ir.Region, loc: SourceLoc | None = None):
        self.region = region
        self.loc = loc

    def op(
        self,
        kind: str,
        args: Sequence[ir.Value],
        result_types: Sequence[Any] = (),
        regions: Sequence[ir.Region] = (),
        **attrs: Any,
    ) -> ir.Op:
        op = ir.Op(
            kind, list(args), [ir.Value(t) for t in result_types], dict(attrs), list(regions), loc=self.loc
        )
        self.region.ops.append(op)
        return op

    def const(self, value: Any, t: Any) -> ir.Value:
        op = self.op("const", [], [t], value=value)
        op.result.const = value
        return op.result

    def zero(self, t: Any) -> ir.Value:
        return self.const(zero_value(t), t)

    def or_zero(self, value: ir.Value | None, t: Any) -> ir.Value:
        """``value``, or the zero of type ``t`` when it is None (an adjoint nothing contributed to)."""
        return value if value is not None else self.zero(t)

    def scalar(self, value: float, like: ir.Value) -> ir.Value:
        """A float constant of the scalar type of ``like`` (its component type for composites)."""
        t = like.type if is_scalar_type(like.type) else like.type._wp_scalar_type_
        return self.const(float(value) if t._kind_ == "float" else int(value), t)

    def internal(self, overload: Overload, args: Sequence[ir.Value], result: Any) -> ir.Value:
        """Call ``overload`` (an operation outside the registry) returning a value of type ``result``."""
        return self.op("call", args, [result], overload=overload).results[0]

    def effect(self, overload: Overload, args: Sequence[ir.Value]) -> None:
        """Call ``overload`` (an operation outside the registry) for its effect; it has no result."""
        self.op("call", args, [], overload=overload)

    def call(self, name: str, *args: ir.Value) -> ir.Value:
        """Call builtin ``name`` (overload resolved by argument types) and return its result."""
        if name not in builtin_registry:
            raise RuleError(f"builtin '{name}' is not available (is the package providing it installed?)")
        res = builtin_registry.resolve(name, [a.type for a in args])
        if res is None:
            raise RuleError(
                f"builtin '{name}' has no overload for ({', '.join(type_repr(a.type) for a in args)})"
            )
        rtype = res.result
        types = [] if rtype is None else list(rtype) if isinstance(rtype, tuple) else [rtype]
        op = self.op("call", list(args), types, overload=res.overload)
        return op.results[0] if op.results else None  # type: ignore[return-value]

    def has(self, name: str, *types: Any) -> bool:
        return name in builtin_registry and builtin_registry.resolve(name, list(types)) is not None

    # -- arithmetic shorthands used by rules ------------------------------------------------
    def add(self, a: ir.Value, b: ir.Value) -> ir.Value:
        if a.type != b.type:
            raise RuleError(f"adding adjoints of different types {type_repr(a.type)} and {type_repr(b.type)}")
        return self.internal(ops.ADD, [a, b], a.type)  # type: ignore[return-value]

    def mul(self, a: ir.Value, b: ir.Value) -> ir.Value:
        return self.call("mul", a, b)

    def sub(self, a: ir.Value, b: ir.Value) -> ir.Value:
        return self.call("sub", a, b)

    def div(self, a: ir.Value, b: ir.Value) -> ir.Value:
        return self.call("div", a, b)

    def neg(self, a: ir.Value) -> ir.Value:
        return self.call("neg", a)

    def select(self, cond: ir.Value, a: ir.Value, b: ir.Value) -> ir.Value:
        """``cond ? a : b`` (both evaluated)."""
        return self.internal(ops.SELECT, [cond, a, b], a.type)  # type: ignore[return-value]

    def cmp(self, name: str, a: ir.Value, b: ir.Value) -> ir.Value:
        return self.call(name, a, b)

    def cast(self, value: ir.Value, t: Any) -> ir.Value:
        if value.type == t:
            return value
        return self.call(t.__name__, value)
