"""Every differentiable builtin has a derivative: a rule attached to its overload or a ``func=`` body.

A builtin registered with ``lower=`` and without ``differentiable=False`` whose overload carries
no rule would get a zero gradient with a warning at run time; renaming a builtin that a rule was
given for by name leaves that rule unattached. Both fail here, naming the builtin.
"""

from __future__ import annotations

import warp  # noqa: F401 - loads the plugins
from warp.extending import builtin_registry, unattached_rule_names
from warp.plugins.manager import plugin_distributions

#: distributions of this repository whose builtins are checked (test plugins register others)
CHECKED = {"warp-core", "warp-builtins", "warp-geometry", "warp-autodiff"}


def test_the_plugins_of_this_repository_are_loaded():
    assert {"warp-builtins", "warp-autodiff"} <= set(plugin_distributions.values())


def test_every_differentiable_builtin_has_a_rule_or_a_func_body():
    missing = sorted(
        {
            f"{overload.package}: {overload.signature()}"
            for name in builtin_registry.names()
            for overload in builtin_registry.get(name).overloads
            if overload.package in CHECKED
            and overload.differentiable
            and overload.func is None
            and not overload.derivative_rules
        }
    )
    assert not missing, (
        "differentiable builtins without a derivative rule or func= body (add a rule with "
        "warp.extending.derivative, or declare differentiable=False):\n  " + "\n  ".join(missing)
    )


def test_no_rule_names_a_builtin_that_does_not_exist():
    assert unattached_rule_names() == [], "rules given for builtin names no plugin registers (renamed?)"


def test_a_rule_is_found_through_the_overload_of_a_call():
    sin = builtin_registry.resolve("sin", [warp.float32])
    assert sin is not None and sin.overload.derivative_rule([warp.float32]) is not None
    assert builtin_registry.get("sin").overloads[0].derivative_rules
