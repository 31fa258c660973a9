"""The gradient-check utility (wp.autograd.gradcheck) on kernels, multi-kernel chains and tapes,
and the derivative rule table: extending it, and what happens without a rule."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
import warp_autodiff
from adutil import F, f64
from warp.compiler.registry import builtin_registry

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")


@wp.kernel
def stage1(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = x[i] * x[i] - F(0.5) * x[i]


@wp.kernel
def stage2(y: wp.array(dtype=F), w: wp.array(dtype=F), z: wp.array(dtype=F)):
    i = wp.tid()
    z[i] = y[i] * w[i] / (F(1.0) + y[i] * y[i])


@wp.kernel
def stage3(z: wp.array(dtype=F), loss: wp.array(dtype=F)):
    i = wp.tid()
    wp.atomic_add(loss, 0, z[i] * z[i])


def test_gradcheck_of_a_multi_kernel_chain():
    rng = np.random.default_rng(0)
    x, w = f64(rng.normal(size=16)), f64(rng.normal(size=16))
    # intermediate arrays need gradients for the adjoint to flow through them
    y, z = wp.zeros(16, dtype=F, requires_grad=True), wp.zeros(16, dtype=F, requires_grad=True)
    loss = wp.zeros(1, dtype=F)

    def chain(x, w):
        wp.launch(stage1, 16, inputs=[x], outputs=[y])
        wp.launch(stage2, 16, inputs=[y, w], outputs=[z])
        loss.zero_()
        wp.launch(stage3, 16, inputs=[z], outputs=[loss])

    assert wp.autograd.gradcheck(chain, inputs=[x, w], outputs=[loss], eps=1e-6, atol=1e-7, rtol=1e-6,
                                 show_summary=False)


def test_gradcheck_tape_checks_every_launch():
    rng = np.random.default_rng(1)
    x, w = f64(rng.normal(size=8), True), f64(rng.normal(size=8), True)
    y, z = wp.zeros(8, dtype=F, requires_grad=True), wp.zeros(8, dtype=F, requires_grad=True)
    loss = wp.zeros(1, dtype=F, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(stage1, 8, inputs=[x], outputs=[y])
        wp.launch(stage2, 8, inputs=[y, w], outputs=[z])
        wp.launch(stage3, 8, inputs=[z], outputs=[loss])
    assert wp.autograd.gradcheck_tape(tape, eps=1e-6, atol=1e-7, rtol=1e-6, show_summary=False)


def test_gradcheck_reports_summary(capsys):
    x, y = f64([0.5, 1.5]), wp.zeros(2, dtype=F)
    assert wp.autograd.gradcheck(stage1, 2, [x], [y], eps=1e-6, show_summary=True)
    out = capsys.readouterr().out
    assert "gradcheck passed" in out and "x -> y" in out


# -- the rule table -----------------------------------------------------------------------------

def _lower_cube(ctx, args, types):
    x = args[0]
    return ctx.builder.fmul(x, ctx.builder.fmul(x, x))


def _register(name):
    if name not in builtin_registry:
        builtin_registry.add(name, params=[("x", F)], result=F, lower=_lower_cube, group="Test")


_register("adtest_cube")
_register("adtest_cube_wrong")
_register("adtest_cube_norule")


@warp_autodiff.derivative("adtest_cube", primal_args=(0,))
def _cube_rule(ctx):
    (x,) = ctx.args
    e = ctx.e
    return [e.mul(ctx.adj_out, e.mul(e.scalar(3.0, x), e.mul(x, x)))]


@warp_autodiff.derivative("adtest_cube_wrong", primal_args=(0,))
def _cube_wrong_rule(ctx):
    (x,) = ctx.args
    return [ctx.e.mul(ctx.adj_out, ctx.e.mul(x, x))]  # missing factor 3


@wp.kernel
def cube(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.adtest_cube(x[i])


@wp.kernel
def cube_wrong(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.adtest_cube_wrong(x[i])


@wp.kernel
def cube_norule(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    y[i] = wp.adtest_cube_norule(x[i]) + x[i]


def test_rules_added_by_a_plugin_are_used():
    x, y = f64([0.5, -1.5, 2.0]), wp.zeros(3, dtype=F)
    assert wp.autograd.gradcheck(cube, 3, [x], [y], eps=1e-6, atol=1e-6, rtol=1e-6, show_summary=False)
    assert warp_autodiff.lookup_rule("adtest_cube", [F]) is not None
    assert "sin" in warp_autodiff.rules.rule_names()


def test_gradcheck_detects_a_wrong_rule():
    x, y = f64([0.5, -1.5, 2.0]), wp.zeros(3, dtype=F)
    assert not wp.autograd.gradcheck(
        cube_wrong, 3, [x], [y], eps=1e-6, raise_exception=False, show_summary=False
    )
    with pytest.raises(ValueError, match="gradient check failed"):
        wp.autograd.gradcheck(cube_wrong, 3, [x], [y], eps=1e-6, show_summary=False)


def test_missing_rule_warns_and_counts_as_zero():
    x, y = f64([0.5, -1.5]), wp.zeros(2, dtype=F)
    with pytest.warns(wp.AdjointWarning, match="'adtest_cube_norule' has no derivative rule"):
        jac = wp.autograd.jacobian(cube_norule, 2, [x], [y])
    np.testing.assert_allclose(jac[(0, 0)].numpy(), np.eye(2))


def test_rule_for_composite_types_can_be_added_next_to_scalar_one():
    """A rule with a type predicate takes precedence only for the types it accepts."""
    scalar_rule = warp_autodiff.lookup_rule("mul", [F, F])
    marker = warp_autodiff.DerivativeRule("mul", lambda ctx: None, applies=lambda ts: ts[0] is wp.vec3d)
    warp_autodiff.register_rule(marker)
    try:
        assert warp_autodiff.lookup_rule("mul", [wp.vec3d, F]) is marker
        assert warp_autodiff.lookup_rule("mul", [F, F]) is scalar_rule
    finally:
        warp_autodiff.rules.unregister_rule(marker)
