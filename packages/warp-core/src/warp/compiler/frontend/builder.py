"""State of the frontend while it translates one function: regions, variables, loops."""

from __future__ import annotations

import ast
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

from warp.compiler import ir
from warp.compiler.registry import Resolution, builtin_registry
from warp.compiler.source import SourceInfo
from warp.errors import (
    MissingPluginError,
    SourceLoc,
    WarpCodegenAttributeError,
    WarpCodegenError,
    WarpCodegenNameError,
    WarpCodegenTypeError,
)
from warp.plugins.manager import plugin_distributions
from warp.plugins.install_hints import distribution_hint, install_hint
from warp.not_provided import KERNEL_BUILTINS as NOT_PROVIDED_BUILTINS, NAMES as NOT_PROVIDED_NAMES
from warp.plugins.declarations import providing_distribution
from warp.types.composite_values import is_composite
from warp.types.scalars import type_repr
from warp.compiler.frontend.calls import accepts
from warp.compiler.frontend.pyobj import PyObj  # noqa: F401 - re-exported: the frontend's modules import it here


class UnknownAttributeError(WarpCodegenAttributeError):
    """``obj.name`` in kernel code where a module or other Python object has no ``name``."""


class UndefinedNameError(WarpCodegenNameError, KeyError):
    """A name in kernel code that is neither a local, a global of the function's module nor a
    name of warp (a ``KeyError`` too, as NVIDIA Warp raises for it)."""

    def __str__(self) -> str:  # the message itself, not KeyError's repr of it
        return self._format()


@dataclass
class LoopFrame:
    """An enclosing loop: the names whose values it carries from iteration to iteration."""

    carried: list[str]
    #: for a loop unrolled at compile time: the scope its iterations are translated in (a
    #: break/continue must be reached in it, i.e. under compile-time conditions only)
    unrolled_scope: Any = None
    #: the break/continue that ended the iteration being unrolled, if any
    jumped: str | None = None


@dataclass
class Scope:
    """Variable bindings of the region being built; ``terminated`` after break/continue/return."""

    vars: dict[str, Any]
    terminated: bool = False
    assigned: set[str] = field(default_factory=set)


class FunctionBuilder:
    """Emits IR ops into the current region and tracks variable bindings."""

    def __init__(self, source: SourceInfo, name: str):
        self.source = source
        self.name = name
        self.regions: list[ir.Region] = []
        self.scopes: list[Scope] = []
        self.loops: list[LoopFrame] = []
        self.node: ast.AST | None = None
        self.return_types: list[Any] | None = None
        #: the declared return annotation as written (``int16``, ``tuple[int, int]``) when
        #: ``return_types`` come from it, for error messages; None when inferred from returns
        self.return_annotation: str | None = None
        #: while translating an augmented assignment: AST node -> its value, so that the parts
        #: of the target (``a[f()].x *= 2``) are evaluated once although read and written
        self.memo: dict[ast.AST, Any] | None = None

    # -- errors ---------------------------------------------------------------------------
    def loc(self, node: ast.AST | None = None) -> SourceLoc:
        return self.source.loc(node if node is not None else self.node)

    def error(
        self, message: str, cls: type[WarpCodegenError] = WarpCodegenError, node: ast.AST | None = None
    ) -> WarpCodegenError:
        """An exception of class ``cls`` located at ``node`` (or the statement being translated)."""
        return cls(message, function=self.name, loc=self.loc(node))

    # -- regions and scopes -------------------------------------------------------------
    @property
    def region(self) -> ir.Region:
        return self.regions[-1]

    @property
    def scope(self) -> Scope:
        return self.scopes[-1]

    @contextmanager
    def enter(self, region: ir.Region, vars: dict[str, Any]) -> Iterator[Scope]:
        """Build ops into ``region`` with ``vars`` as the visible bindings."""
        scope = Scope(dict(vars))
        self.regions.append(region)
        self.scopes.append(scope)
        try:
            yield scope
        finally:
            self.regions.pop()
            self.scopes.pop()

    def emit(self, kind: str, args: list[ir.Value], result_types: Sequence[Any] = (), **attrs: Any) -> ir.Op:
        """Append an op to the current region; its results get fresh values of the given types."""
        results = [ir.Value(t) for t in result_types]
        op = ir.Op(kind, list(args), results, attrs, loc=self.loc())
        self.region.ops.append(op)
        return op

    def emit_region_op(
        self, kind: str, args: list[ir.Value], regions: list[ir.Region], result_types: list[Any], **attrs: Any
    ) -> ir.Op:
        op = self.emit(kind, args, result_types, **attrs)
        op.regions = regions
        return op

    # -- variables ------------------------------------------------------------------------
    def lookup_var(self, name: str) -> Any:
        return self.scope.vars.get(name)

    def assign_var(self, name: str, value: Any) -> None:
        self.scope.vars[name] = value
        self.scope.assigned.add(name)

    # -- constants and calls --------------------------------------------------------------
    def const(self, value: Any, type_: Any, weak: bool = False) -> ir.Value:
        """A literal value of the given type."""
        op = self.emit("const", [], [type_], value=value)
        op.result.const = value
        op.result.weak = op.result.literal = weak
        return op.result

    def call_builtin(self, name: str, args: list[ir.Value], node: ast.AST | None = None) -> ir.Op:
        """Resolve builtin ``name`` for ``args`` and emit the call (one op per builtin call)."""
        resolution = self.resolve_builtin(name, args, node)
        args = (
            [self.coerce(a, t) for a, t in zip(args, resolution.arg_types)]
            if not resolution.overload.variadic
            else args
        )
        if resolution.overload.func is not None:
            op = self.call_func_builtin(resolution.overload.func, args, node)
            op.attrs["builtin"] = resolution.overload
            return op
        result = resolution.result
        if result is None:
            types: list[Any] = []
        elif isinstance(result, tuple):
            types = list(result)
        else:
            types = [result]
        return self.emit("call", args, types, overload=resolution.overload)

    def call_func_builtin(self, fn: Any, args: list[ir.Value], node: ast.AST | None) -> ir.Op:
        """A builtin implemented in the kernel language: call its ``@wp.func`` specialization."""
        types = tuple(a.type for a in args)
        for overload in fn.overloads:
            if len(overload.param_types) == len(args) and all(
                accepts(p, a) is not None for p, a in zip(overload.param_types, args)
            ):
                spec = fn.specialization(overload, types)
                return self.emit("call_func", args, spec.return_types, func=spec)
        raise self.error(f"no definition of '{fn.name}' accepts these arguments", WarpCodegenTypeError, node)

    def resolve_builtin(self, name: str, args: list[ir.Value], node: ast.AST | None = None) -> Resolution:
        if name not in builtin_registry:
            raise self.missing_builtin(name, node)
        resolution = builtin_registry.resolve(name, [a.type for a in args], [a.weak for a in args])
        if resolution is None:
            builtin = builtin_registry.get(name)
            assert builtin is not None  # registered: checked above
            reason = builtin.explain([a.type for a in args]) if builtin.explain is not None else None
            if reason is not None:
                raise self.error(reason, WarpCodegenTypeError, node)
            got = ", ".join(type_repr(a.type) for a in args) or "no arguments"
            if _composite_math_missing([a.type for a in args]):
                raise self.error(
                    f"no overload of '{name}' accepts arguments ({got}): operations on vectors, matrices, "
                    "quaternions and transforms are provided by the 'warp-builtins' package, which is not "
                    f"installed or is disabled; install it with: {install_hint('warp-builtins')}",
                    MissingPluginError,
                    node,
                )
            same = _same_types_hint(name, [a.type for a in args])
            same = "" if same is None else f": {same}"
            options = "\n      ".join(o.signature() for o in builtin.overloads[:8])
            more = "" if len(builtin.overloads) <= 8 else f"\n      ... {len(builtin.overloads) - 8} more"
            hint = next((o.mismatch_hint for o in builtin.overloads if o.mismatch_hint), "")
            raise self.error(
                f"Couldn't find function overload for '{name}': "
                f"no overload of '{name}' accepts arguments ({got}){same}; note that warp does not "
                f"convert between numeric types implicitly, cast explicitly (e.g. float(x), wp.int64(i))"
                f"\n    candidates:\n      {options}{more}" + (f"\n{hint}" if hint else ""),
                WarpCodegenTypeError,
                node,
            )
        return resolution

    def missing_builtin(
        self, name: str, node: ast.AST | None = None, *, as_attribute: bool = False
    ) -> WarpCodegenError:
        """The error for kernel builtin ``name`` that does not exist (``as_attribute``: met as
        ``wp.name``, where a name nothing provides is an unknown attribute of warp)."""
        entry = NOT_PROVIDED_NAMES.get(name)
        if entry is not None:
            return self.error(
                f"'wp.{name}' is a kernel builtin of NVIDIA Warp that this implementation does not provide "
                f"({entry.what}); instead: {entry.instead}; docs/coming-from-warp.md lists them",
                WarpCodegenNameError,
                node,
            )
        dist = providing_distribution(name)
        if name in NOT_PROVIDED_BUILTINS or (dist is not None and dist in plugin_distributions.values()):
            return self.error(
                f"'wp.{name}' is a kernel builtin of NVIDIA Warp that this implementation does not "
                "provide; docs/coming-from-warp.md lists them",
                WarpCodegenNameError,
                node,
            )
        if dist is not None:
            return self.error(
                f"builtin 'wp.{name}' is provided by the '{dist}' package, which is not installed "
                f"or is disabled; install it with: {distribution_hint(dist)}",
                MissingPluginError,
                node,
            )
        if as_attribute:
            return self.error(
                f"`{name}` is not an attribute of 'warp' ('{name}' is not a kernel builtin)",
                UnknownAttributeError,
                node,
            )
        return self.error(f"'{name}' is not a kernel builtin", WarpCodegenNameError, node)

    def coerce(self, value: ir.Value, type_: Any) -> ir.Value:
        """A weak literal re-typed to ``type_`` (other values must already have that type)."""
        if value.type == type_ or not value.weak:
            return value
        return self.const(_convert_literal(value.const, type_), type_)

    def strong(self, value: Any) -> Any:
        """A weak literal made into a typed constant (done when a literal is bound to a name)."""
        if isinstance(value, ir.Value) and value.weak:
            typed = self.const(value.const, value.type)
            typed.literal = True
            return typed
        return value


def _same_types_hint(name: str, arg_types: list[Any]) -> str | None:
    """NVIDIA Warp's words when ``name`` would accept its arguments if they all had one of their
    types (``1 * 1.0``, ``wp.dot(vec2f, vec2h)``), else None."""
    distinct = list(dict.fromkeys(arg_types))
    if len(arg_types) < 2 or len(distinct) < 2:
        return None
    if not any(builtin_registry.resolve(name, [t] * len(arg_types)) is not None for t in distinct):
        return None
    exactly = "exactly " if any(is_composite(t) for t in arg_types) else ""
    names = ", ".join(repr(type_repr(t)) for t in arg_types)
    return f"Input types must be {exactly}the same, got [{names}]"


def _composite_math_missing(arg_types: list[Any]) -> bool:
    """True when an argument is a vector/matrix/quaternion/transform and warp-builtins (which
    provides the overloads of operators and functions on them) is not loaded."""
    return any(is_composite(t) for t in arg_types) and "warp-builtins" not in plugin_distributions.values()


def _convert_literal(value: Any, type_: Any) -> Any:
    kind = getattr(type_, "_kind_", None)
    if kind == "float":
        return float(value)
    if kind in ("int", "uint"):
        return int(value)
    if kind == "bool":
        return bool(value)
    return value
