"""The builtin registry: every function callable from kernel code, with its typed overloads.

Plugins add builtins through the ``warp_register_builtins`` hook. An overload is chosen by
matching argument types against parameter *patterns*:

- a concrete type (``wp.float32``) matches itself;
- ``Scalar``, ``Float``, ``Int`` match any scalar of that family; ``typing.Any`` matches all;
- a :class:`TypeVar` matches like its bound and must bind to the same type everywhere it occurs
  (``T = TypeVar("T", Float)``; params ``(T, T)`` accept two equal float types);
- any object with a ``match(actual, bindings) -> bool`` method (see :class:`ArrayOf`).

The result is a concrete type, a :class:`TypeVar` (its binding), ``None`` (no value), or a
callable ``result(arg_types) -> type`` (a ``tuple`` of types for several results).

Output parameters (C++ references in NVIDIA Warp, e.g. ``face`` in ``wp.mesh_query_point(id, p,
d, inside, face, u, v)``) are declared with ``mutated_args=(4, ...)``: the builtin's result type
lists the declared result first and then the new value of each such argument, and the frontend
rebinds the local variables passed at those positions. A ``func``-backed builtin returns the
same tuple from its ``@wp.func``.

Lowering: ``lower(ctx, args, arg_types)`` receives a :class:`warp.compiler.lowering.LowerContext`
(``ctx.builder`` is the llvmlite ``IRBuilder``, ``ctx.module`` the ``ir.Module``,
``ctx.target`` the :class:`warp.targets.base.Target`, ``ctx.llvm_type(t)`` maps warp types to
LLVM) and the LLVM values of the arguments; it returns the LLVM value of the result (or None).
``lower_for={"cuda": lower_cuda}`` gives other lowerings for some targets, by target name (as
JAX's ``register_lowering(..., platform=)``); ``lower`` serves the others. Alternatively ``func``
names a ``@wp.func`` written in the kernel language, compiled like a user function.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from warp.types.patterns import ArrayOf, TypeVar, match_type  # noqa: F401  (re-exported: plugins name them here)
from warp.types.scalars import canonical_type, is_float, is_int, is_scalar_type, type_repr
from warp.compiler.derivative_rule import DerivativeRule


@dataclass
class Overload:
    """One typed signature of a builtin with its lowering."""

    name: str
    params: tuple[tuple[str, Any], ...]
    result: Any
    lower: Callable[..., Any] | None = None
    func: Any = None
    doc: str = ""
    group: str = ""
    package: str = ""
    variadic: bool = False
    differentiable: bool = True
    side_effects: bool = False
    #: its only side effect is printing (``wp.expect_eq``): callable from Python scope, where it
    #: prints as it would in a kernel
    prints_only: bool = False
    #: said last when no overload of the builtin accepts a call's arguments (what they must satisfy,
    #: e.g. "Can't test equality for objects with different types")
    mismatch_hint: str = ""
    #: the builtin returns the updated value of its first argument as its last result, and the
    #: frontend rebinds the variable passed first (wp.randf(state) advances ``state``)
    mutates_first_arg: bool = False
    #: output (or in/out) parameters: positions of arguments whose new values the builtin returns
    #: as its last results, in this order; the frontend rebinds the variables passed there, which
    #: must be plain local variables (``wp.mesh_query_point(id, p, d, inside, face, u, v)``)
    mutated_args: tuple[int, ...] = ()
    #: callable from Python scope (``wp.sin(1.0)``); False for kernel-only builtins such as the
    #: geometry queries, which read objects through ids (NVIDIA Warp's ``export=False``)
    export: bool = True
    #: for a builtin returning arrays (or a struct holding arrays) that are not derived from its
    #: arguments, e.g. ``wp.mesh_get(id)``: an overload taking the same arguments that returns
    #: their gradient arrays (the same type); reverse-mode differentiation accumulates the
    #: adjoints of reads from the result's arrays into those (None: the arrays get no gradient)
    adjoint_source: Overload | None = None
    #: the array it returns is a view that need not be contiguous (``a[::2]``): functions calling
    #: it are lowered with strided element addressing, also for launches over contiguous arrays
    strided_result: bool = False
    #: lowerings for particular targets, by target name (``lower`` serves the others)
    lower_for: dict[str, Callable[..., Any]] = field(default_factory=dict)
    #: reverse-mode derivative rules of this overload, latest registered first (the first whose
    #: ``applies`` accepts a call's argument types is used); see :mod:`warp.compiler.derivatives`
    derivative_rules: list[DerivativeRule] = field(default_factory=list, repr=False, compare=False)

    def attach_rule(self, rule: DerivativeRule) -> None:
        """Attach a derivative rule; it takes precedence over rules registered before it."""
        if any(r is rule for r in self.derivative_rules):
            return
        self.derivative_rules.append(rule)
        self.derivative_rules.sort(key=lambda r: -r.order)

    def detach_rule(self, rule: DerivativeRule) -> None:
        """Remove a derivative rule attached before (no error if it is not attached)."""
        self.derivative_rules[:] = [r for r in self.derivative_rules if r is not rule]

    def derivative_rule(self, arg_types: Sequence[Any]) -> DerivativeRule | None:
        """The derivative rule for a call with these argument types, or None."""
        types = list(arg_types)
        for rule in self.derivative_rules:
            if rule.accepts(types):
                return rule
        return None

    def lowering_for(self, target_name: str) -> Callable[..., Any]:
        """The lowering of this overload on the target named ``target_name``."""
        lower = self.lower_for.get(target_name, self.lower)
        if lower is None:
            raise ValueError(f"builtin '{self.name}' is written in the kernel language (func=), not lowered")
        return lower

    def updated_args(self) -> tuple[int, ...]:
        """Positions of the arguments this builtin updates (returned last, in this order)."""
        if self.mutated_args:
            return self.mutated_args
        return (0,) if self.mutates_first_arg else ()

    def bind(self, arg_types: Sequence[Any]) -> dict[str, Any] | None:
        """Type-variable bindings if the argument types match this overload, else None."""
        if self.variadic:
            if not self.params:
                return {}
            pattern = self.params[0][1]
            bindings: dict[str, Any] = {}
            return bindings if all(match_type(pattern, t, bindings) for t in arg_types) else None
        if len(arg_types) != len(self.params):
            return None
        bindings = {}
        for (_, pattern), actual in zip(self.params, arg_types):
            if not match_type(pattern, actual, bindings):
                return None
        return bindings

    def result_type(self, arg_types: Sequence[Any], bindings: dict[str, Any]) -> Any:
        """The result type for these argument types (a tuple for several results)."""
        res = self.result
        if isinstance(res, TypeVar):
            return bindings[res.name]
        if callable(res) and not isinstance(res, type):
            return res(list(arg_types))
        return canonical_type(res)

    def signature(self) -> str:
        """Readable signature, e.g. ``(x: float32, y: float32) -> float32``."""
        args = ", ".join(f"{n}: {type_repr(p)}" for n, p in self.params)
        if self.variadic:
            args = f"*{args}"
        res = self.result
        if res is None:
            res_s = "None"
        elif isinstance(res, TypeVar):
            res_s = repr(res)
        elif isinstance(res, tuple):
            res_s = "(" + ", ".join(type_repr(r) for r in res) + ")"
        elif callable(res) and not isinstance(res, type):
            res_s = "inferred"
        else:
            res_s = type_repr(res)
        return f"({args}) -> {res_s}"


@dataclass
class Builtin:
    """A named builtin with all of its overloads."""

    name: str
    overloads: list[Overload] = field(default_factory=list)
    #: ``explain(arg_types) -> message | None``: why no overload accepts these argument types, in
    #: the builtin's own words (e.g. the element types atomics support); see :meth:`BuiltinRegistry.explain`
    explain: Callable[[Sequence[Any]], str | None] | None = None

    @property
    def doc(self) -> str:
        return next((o.doc for o in self.overloads if o.doc), "")

    @property
    def group(self) -> str:
        return next((o.group for o in self.overloads if o.group), "")


@dataclass
class Resolution:
    """Result of overload resolution: the overload, final argument types and the result type."""

    overload: Overload
    arg_types: list[Any]
    result: Any


#: ``define(module, symbol, ty)``: adds to an ``llvmlite.ir.Module`` the definition of the
#: function ``symbol: ty -> ty`` replacing a late intrinsic (see :meth:`BuiltinRegistry.add_late_intrinsic`)
LateDefinition = Callable[[Any, str, Any], None]


class BuiltinRegistry:
    """Name -> :class:`Builtin`; filled by plugins through ``warp_register_builtins``."""

    def __init__(self) -> None:
        self.builtins: dict[str, Builtin] = {}
        #: distribution name of the plugin currently registering (set by the plugin manager)
        self.current_package: str | None = None
        #: target name -> LLVM intrinsic name -> definer, see :meth:`add_late_intrinsic`
        self.late_intrinsics: dict[str, dict[str, LateDefinition]] = {}
        #: derivative rules given by builtin name: attached to every overload of that name,
        #: those registered already and those registered later (see :meth:`attach_rule`)
        self.rules_by_name: dict[str, list[DerivativeRule]] = {}

    def add_late_intrinsic(self, name: str, define: LateDefinition, *, target: str = "cpu") -> None:
        """Define LLVM's intrinsic ``llvm.<name>.*`` after vectorization, on the target named
        ``target`` (the CPU's compiler is the one that defines late intrinsics today).

        Lowerings emit ``llvm.<name>.<type>`` (``"sin"``: ``llvm.sin.f32``), which LLVM's
        vectorizers widen; once the module is optimized, ``define(module, symbol, ty)`` adds to
        an ``llvmlite.ir.Module`` the function ``symbol: ty -> ty`` (``ty`` a float type or a
        vector of one) that replaces it, and it is inlined. See :mod:`warp.targets.cpu.late_intrinsics`.
        """
        self.late_intrinsics.setdefault(target, {})[name] = define

    def late_intrinsics_for(self, target: str) -> dict[str, LateDefinition]:
        """The late intrinsic definitions registered for the target named ``target``, by name."""
        return self.late_intrinsics.get(target, {})

    def add(
        self,
        name: str,
        *,
        params: dict[str, Any] | Sequence[tuple[str, Any]],
        result: Any,
        lower: Callable[..., Any] | None = None,
        func: Any = None,
        lower_for: dict[str, Callable[..., Any]] | None = None,
        doc: str = "",
        group: str = "",
        variadic: bool = False,
        differentiable: bool = True,
        side_effects: bool = False,
        prints_only: bool = False,
        mismatch_hint: str = "",
        mutates_first_arg: bool = False,
        mutated_args: Sequence[int] = (),
        export: bool = True,
        strided_result: bool = False,
    ) -> Overload:
        """Register one overload of builtin ``name`` and return it.

        ``lower_for`` maps target names to lowerings used there instead of ``lower``.
        """
        if (lower is None) == (func is None):
            raise ValueError(f"builtin '{name}': give exactly one of lower= or func=")
        if lower_for and lower is None:
            raise ValueError(f"builtin '{name}': lower_for= needs lower= (the lowering of the other targets)")
        items = tuple(params.items()) if isinstance(params, dict) else tuple(params)
        items = tuple((n, canonical_type(t)) for n, t in items)
        overload = Overload(
            name=name,
            params=items,
            result=result,
            lower=lower,
            func=func,
            doc=doc,
            group=group,
            package=self.current_package or "",
            variadic=variadic,
            differentiable=differentiable,
            side_effects=side_effects,
            prints_only=prints_only,
            mismatch_hint=mismatch_hint,
            mutates_first_arg=mutates_first_arg,
            mutated_args=tuple(mutated_args),
            export=export,
            strided_result=strided_result,
            lower_for=dict(lower_for or {}),
        )
        for rule in self.rules_by_name.get(name, ()):
            overload.attach_rule(rule)
        self.builtins.setdefault(name, Builtin(name)).overloads.append(overload)
        return overload

    def attach_rule(self, name: str, rule: DerivativeRule) -> None:
        """Attach ``rule`` to every overload of builtin ``name``, now and when one is added later."""
        self.rules_by_name.setdefault(name, []).append(rule)
        builtin = self.builtins.get(name)
        for overload in builtin.overloads if builtin is not None else ():
            overload.attach_rule(rule)

    def detach_rule(self, rule: DerivativeRule) -> None:
        """Remove ``rule`` from the name table and from every overload it was attached to."""
        for name, rules in self.rules_by_name.items():
            if any(r is rule for r in rules):
                rules[:] = [r for r in rules if r is not rule]
                builtin = self.builtins.get(name)
                for overload in builtin.overloads if builtin is not None else ():
                    overload.detach_rule(rule)

    def explain(self, name: str, explain: Callable[[Sequence[Any]], str | None]) -> None:
        """Give builtin ``name`` (registered before) a specific message for arguments no overload
        accepts: ``explain(arg_types)`` returns it, or None for the generic "no overload" error."""
        self.builtins[name].explain = explain

    def get(self, name: str) -> Builtin | None:
        """The builtin of that name, or None."""
        return self.builtins.get(name)

    def __contains__(self, name: str) -> bool:
        return name in self.builtins

    def names(self) -> list[str]:
        """All registered builtin names, sorted."""
        return sorted(self.builtins)

    def resolve(self, name: str, arg_types: Sequence[Any], weak: Sequence[bool] = ()) -> Resolution | None:
        """Pick the overload of ``name`` for ``arg_types``.

        ``weak[i]`` marks argument ``i`` as an untyped literal: if no overload matches exactly,
        such a literal may take the type of another argument of the same family (a float
        literal becomes float64 next to a float64, an int literal int64 next to an int64).
        """
        builtin = self.builtins.get(name)
        if builtin is None:
            return None
        arg_types = list(arg_types)
        for candidate in _literal_candidates(arg_types, list(weak) or [False] * len(arg_types)):
            for overload in builtin.overloads:
                bindings = overload.bind(candidate)
                if bindings is not None:
                    return Resolution(overload, candidate, overload.result_type(candidate, bindings))
        return None


def _literal_candidates(arg_types: list[Any], weak: list[bool]) -> list[list[Any]]:
    """Argument type lists to try: as given, then with weak literals adopting a partner's type."""
    candidates = [arg_types]
    if not any(weak):
        return candidates
    strong = [t for t, w in zip(arg_types, weak) if not w]
    for target in dict.fromkeys(strong):
        scalar = target.dtype if getattr(target, "is_array_type", False) else target
        scalar = getattr(scalar, "_wp_scalar_type_", scalar)
        if not is_scalar_type(scalar):
            continue
        new = [
            scalar if w and _same_family(t, scalar) else t for t, w in zip(arg_types, weak)
        ]
        if new != arg_types and new not in candidates:
            candidates.append(new)
    return candidates


def _same_family(literal_type: Any, target: Any) -> bool:
    return (is_float(literal_type) and is_float(target)) or (is_int(literal_type) and is_int(target))


#: The process-wide registry.
builtin_registry = BuiltinRegistry()
