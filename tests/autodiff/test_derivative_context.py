"""``warp.extending.DerivativeContext``: the protocol of what a derivative rule may use of the
context it receives (``ctx.e`` a ``DerivativeEmitter``). warp-autodiff's ``RuleContext`` provides
every member when a rule runs, and rules typed with the protocol compute the same gradients."""

from __future__ import annotations

import typing

import numpy as np

import warp as wp
import warp_autodiff
from warp_builtins import noise_derivatives
from warp.extending import (
    DerivativeContext,
    DerivativeEmitter,
    DerivativeRule,
    register_rule,
    unregister_rule,
)


def _members(protocol: type) -> list[str]:
    return sorted(name for name in vars(protocol) if not name.startswith("_"))


def test_the_protocols_are_typing_protocols_naming_what_rules_use():
    for protocol in (DerivativeContext, DerivativeEmitter):
        assert getattr(protocol, "_is_protocol", False), protocol
    assert {"e", "args", "types", "adj_out", "wants"} <= set(_members(DerivativeContext))
    assert {"internal", "mul", "call", "zero", "const"} <= set(_members(DerivativeEmitter))


def test_the_noise_rules_of_warp_builtins_are_typed_with_the_protocol():
    for rule in (noise_derivatives._noise, noise_derivatives._curlnoise):
        assert typing.get_type_hints(rule)["ctx"] is DerivativeContext


def test_a_rule_receives_a_context_with_every_member_of_the_protocol():
    seen: dict[str, bool] = {}
    original = warp_autodiff.lookup_rule("sin", [wp.float32])
    assert original is not None

    def recording(ctx: DerivativeContext) -> typing.Any:
        for name in _members(DerivativeContext):
            seen[f"ctx.{name}"] = hasattr(ctx, name)
        for name in _members(DerivativeEmitter):
            seen[f"ctx.e.{name}"] = callable(getattr(ctx.e, name, None))
        assert ctx.name == "sin" and ctx.types == [wp.float32] and ctx.wants(0)
        return original.backward(ctx)

    rule = register_rule(
        DerivativeRule("sin", recording, primal_args=original.primal_args, replay=original.replay), "sin"
    )
    try:

        @wp.kernel(module="unique")
        def sine(x: wp.array(dtype=float), y: wp.array(dtype=float)):
            i = wp.tid()
            y[i] = wp.sin(x[i])

        xs = np.linspace(-2.0, 2.0, 9).astype(np.float32)
        x = wp.array(xs, dtype=float, requires_grad=True)
        y = wp.zeros(len(xs), dtype=float, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(sine, len(xs), inputs=[x, y])
        tape.backward(grads={y: wp.ones(len(xs), dtype=float)})
    finally:
        unregister_rule(rule)
    assert seen and all(seen.values()), sorted(k for k, ok in seen.items() if not ok)
    np.testing.assert_allclose(x.grad.numpy(), np.cos(xs.astype(np.float64)), rtol=1e-6, atol=1e-6)
    assert warp_autodiff.lookup_rule("sin", [wp.float32]) is original
