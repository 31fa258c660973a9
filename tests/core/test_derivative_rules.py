"""Derivative rules attach to builtin overloads (warp.extending.derivative), not to name strings."""

from __future__ import annotations

import pytest

import warp as wp
from warp.extending import (
    DerivativeRule,
    builtin_registry,
    derivative,
    lookup_rule,
    register_rule,
    unattached_rule_names,
    unregister_rule,
    zero_derivative,
)


def _lower_identity(ctx, args, types):
    return args[0]


def _add(name: str, t=wp.float32):
    return builtin_registry.add(name, params=[("x", t)], result=t, lower=_lower_identity)


def test_a_rule_given_by_overload_attaches_to_that_overload_only():
    f32 = _add("drtest_by_overload")
    f64 = _add("drtest_by_overload", wp.float64)

    @derivative(f32, primal_args=())
    def rule(ctx):
        return [ctx.adj_out]

    assert [r.backward for r in f32.derivative_rules] == [rule]
    assert f64.derivative_rules == []
    assert lookup_rule(f32, [wp.float32]).backward is rule
    assert lookup_rule(f64, [wp.float64]) is None
    assert "drtest_by_overload" not in unattached_rule_names()


def test_a_rule_given_by_name_attaches_to_overloads_registered_before_and_after():
    before = _add("drtest_by_name")
    zero_derivative("drtest_by_name")
    after = _add("drtest_by_name", wp.float64)
    assert len(before.derivative_rules) == 1
    assert after.derivative_rules == before.derivative_rules
    assert lookup_rule("drtest_by_name", [wp.float64]) is before.derivative_rules[0]


def test_a_rule_for_a_name_no_builtin_has_is_reported_until_the_builtin_exists():
    zero_derivative("drtest_renamed_later")
    assert "drtest_renamed_later" in unattached_rule_names()
    overload = _add("drtest_renamed_later")
    assert "drtest_renamed_later" not in unattached_rule_names()
    assert overload.derivative_rule([wp.float32]) is not None


def test_the_latest_rule_whose_predicate_accepts_wins_and_can_be_removed():
    overload = _add("drtest_precedence")
    general = register_rule(DerivativeRule("drtest_precedence", lambda ctx: None))
    special = register_rule(DerivativeRule("drtest_precedence", lambda ctx: None, applies=lambda ts: False))
    assert overload.derivative_rule([wp.float32]) is general
    newest = register_rule(DerivativeRule("drtest_precedence", lambda ctx: None), overload)
    assert overload.derivative_rule([wp.float32]) is newest
    unregister_rule(newest, overload)
    assert overload.derivative_rule([wp.float32]) is general
    unregister_rule(general)
    assert overload.derivative_rule([wp.float32]) is None
    assert [r for r in overload.derivative_rules] == [special]


def test_a_bad_rule_target_is_a_type_error():
    with pytest.raises(TypeError, match=r"rule 'x': a target is a builtin name or an Overload, got int"):
        register_rule(DerivativeRule("x", lambda ctx: None), 3)
