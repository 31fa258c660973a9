"""Registering reverse-mode derivative rules on builtin overloads (JAX's ``primitive_transposes``).

A rule is attached to :class:`~warp.compiler.registry.Overload` objects
(:attr:`~warp.compiler.registry.Overload.derivative_rules`), not looked up by name when a kernel is
differentiated. A target of :func:`derivative` is either an ``Overload`` (what ``registry.add``
returns, or one of core's special operations such as ``CONSTRUCT``) or a builtin name, which
stands for every overload of that name: those registered already and those registered later
(rules are usually defined when a plugin module is imported, before the registration hooks run).
A name no plugin registers leaves its rule unattached: :func:`unattached_rule_names` lists them,
and the test suite fails on any, so renaming a builtin cannot silently drop its rule.

warp-autodiff's reverse-mode transform interprets the rules (its ``RuleContext`` is what
``backward`` receives); a plugin defining a ``lower=`` builtin registers the builtin's rule here,
through :mod:`warp.extending`, whether or not warp-autodiff is installed.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence, Union

from warp.compiler.derivative_rule import DerivativeRule
from warp.compiler.registry import Overload, builtin_registry

#: what a rule is attached to: an overload, or every overload of a builtin name
RuleTarget = Union[str, Overload]
PrimalArgs = Union[tuple[int, ...], Callable[[Any], tuple[int, ...]], None]


def _target_name(target: RuleTarget) -> str:
    return target if isinstance(target, str) else target.name


def register_rule(rule: DerivativeRule, *targets: RuleTarget) -> DerivativeRule:
    """Attach ``rule`` to ``targets`` (default: every overload of builtin ``rule.name``).

    It takes precedence over rules attached before it wherever its ``applies`` accepts the types.
    """
    for target in targets or (rule.name,):
        if isinstance(target, str):
            builtin_registry.attach_rule(target, rule)
        elif isinstance(target, Overload):
            target.attach_rule(rule)
        else:
            raise TypeError(
                f"derivative rule '{rule.name}': a target is a builtin name or an Overload, "
                f"got {type(target).__name__}"
            )
    return rule


def unregister_rule(rule: DerivativeRule, *overloads: Overload) -> None:
    """Detach ``rule`` from the builtin names it was given for and from ``overloads``."""
    builtin_registry.detach_rule(rule)
    for overload in overloads:
        overload.detach_rule(rule)


def derivative(
    *targets: RuleTarget,
    applies: Callable[[list[Any]], bool] | None = None,
    primal_args: PrimalArgs = None,
    replay: str = "keep",
    always: bool = False,
) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
    """Decorator attaching a backward function as the rule of ``targets`` (overloads or builtin names)."""

    def wrap(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
        for target in targets:
            rule = DerivativeRule(_target_name(target), fn, applies, primal_args, replay, always)
            register_rule(rule, target)
        return fn

    return wrap


def derivative_from_func(
    target: RuleTarget, func: Any, *, applies: Callable[[list[Any]], bool] | None = None
) -> None:
    """Differentiate ``target`` as if it were the ``@wp.func`` ``func`` (same arguments).

    The forward pass still runs the builtin's own lowering; only its adjoint is derived from
    ``func``'s body. Useful for builtins whose derivative is tedious to write by hand.
    """
    rule = DerivativeRule(_target_name(target), _no_backward, applies, None, "keep", False, func)
    register_rule(rule, target)


def zero_derivative(*targets: RuleTarget, replay: str = "keep") -> None:
    """Builtins whose derivative is zero everywhere it exists (comparisons, floor, sign, ...)."""
    for target in targets:
        register_rule(DerivativeRule(_target_name(target), _no_backward, None, (), replay, False), target)


def _no_backward(ctx: object) -> Sequence[Any] | None:
    return None


def lookup_rule(target: RuleTarget, arg_types: Sequence[Any]) -> DerivativeRule | None:
    """The rule of an overload (or of builtin ``name``'s overloads) for these argument types, or None."""
    if isinstance(target, Overload):
        return target.derivative_rule(arg_types)
    types = list(arg_types)
    rules = {id(r): r for r in builtin_registry.rules_by_name.get(target, ())}
    builtin = builtin_registry.get(target)
    for overload in builtin.overloads if builtin is not None else ():
        rules.update((id(r), r) for r in overload.derivative_rules)
    for rule in sorted(rules.values(), key=lambda r: -r.order):
        if rule.accepts(types):
            return rule
    return None


def rule_names() -> list[str]:
    """Builtin names that rules were given for."""
    return sorted(name for name, rules in builtin_registry.rules_by_name.items() if rules)


def unattached_rule_names() -> list[str]:
    """Builtin names that rules were given for but that no registered builtin has (a rename?)."""
    return sorted(name for name in rule_names() if name not in builtin_registry)
