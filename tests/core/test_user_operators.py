"""Operators overloaded by a @wp.func named after the operator's builtin for non-struct types:
the user's overload takes precedence when it accepts the operand types, in expressions and in
augmented assignments (names, array elements and their components); other types keep the
builtin operator (and array updates stay atomic)."""

import numpy as np
import pytest

import warp as wp


@wp.func
def add(x: wp.float32, y: wp.float32) -> wp.float32:
    return wp.sub(x, y)


@wp.func
def sub(x: wp.float32, y: wp.float32) -> wp.float32:
    return wp.mul(x, y)


@wp.func
def mul(x: wp.float32, y: wp.float32) -> wp.float32:
    return wp.add(x * y, 1.0)  # inside the overload, `*` is the builtin multiplication


@wp.kernel(module="unique", enable_backward=False)
def overload_body_uses_builtin(out: wp.array(dtype=wp.float32)):
    out[0] = out[0] * 3.0


@wp.kernel(module="unique", enable_backward=False)
def float_operators(out: wp.array(dtype=wp.float32), rhs: wp.float32):
    a = out[0]
    out[1] = a + rhs  # add(a, rhs) = a - rhs
    b = out[0]
    b += rhs
    out[2] = b
    out[3] -= rhs  # sub(out[3], rhs) = out[3] * rhs


@wp.kernel(module="unique", enable_backward=False)
def component_slots(values: wp.array(dtype=wp.vec3), rhs: wp.float32):
    values[0].x += rhs
    values[0][1] += rhs
    values[0].z -= rhs


@wp.kernel(module="unique")
def other_types_keep_builtins(values: wp.array(dtype=wp.vec3d), rhs: wp.array(dtype=wp.float64),
                              counts: wp.array(dtype=wp.int32)):
    values[0].x += rhs[0]
    values[0][1] += rhs[0]
    values[0].z -= rhs[0]
    counts[0] += 1


@wp.kernel(module="unique")
def differentiable_add_slot(values: wp.array(dtype=wp.vec3), rhs: wp.array(dtype=wp.float32)):
    values[0].x += rhs[0]  # x - r


@wp.kernel(module="unique")
def differentiable_sub_slot(values: wp.array(dtype=wp.vec3), rhs: wp.array(dtype=wp.float32)):
    values[0][1] -= rhs[0]  # y * r


def test_user_operator_overloads_float_arithmetic():
    out = wp.array([3.0, 0.0, 0.0, 3.0], dtype=wp.float32)
    wp.launch(float_operators, dim=1, inputs=[out, 2.0])
    np.testing.assert_array_equal(out.numpy(), [3.0, 3.0 - 2.0, 3.0 - 2.0, 3.0 * 2.0])


def test_operator_inside_its_own_overload_is_the_builtin():
    out = wp.array([2.0], dtype=wp.float32)
    wp.launch(overload_body_uses_builtin, dim=1, inputs=[out])
    assert out.numpy()[0] == 2.0 * 3.0 + 1.0


def test_user_operator_applies_to_array_component_slots():
    values = wp.array([wp.vec3(3.0)], dtype=wp.vec3)
    wp.launch(component_slots, dim=1, inputs=[values, 2.0])
    np.testing.assert_array_equal(values.numpy(), [[3.0 - 2.0, 3.0 - 2.0, 3.0 * 2.0]])


@pytest.mark.needs_plugin("autodiff")
def test_operands_the_overload_does_not_accept_use_the_builtin_atomics():
    values = wp.full(1, wp.vec3d(3.0), dtype=wp.vec3d, requires_grad=True)
    rhs = wp.array([2.0], dtype=wp.float64, requires_grad=True)
    counts = wp.zeros(1, dtype=wp.int32)
    with wp.Tape() as tape:
        wp.launch(other_types_keep_builtins, dim=64, inputs=[values, rhs, counts])
    np.testing.assert_array_equal(values.numpy(), [[3.0 + 128.0, 3.0 + 128.0, 3.0 - 128.0]])
    assert counts.numpy()[0] == 64  # atomic across threads
    tape.backward(grads={values: wp.full_like(values, wp.vec3d(1.0))})
    np.testing.assert_array_equal(rhs.grad.numpy(), [64.0 * (1.0 + 1.0 - 1.0)])


def _slot_gradients(kernel, start, r):
    values = wp.array([wp.vec3(*start)], dtype=wp.vec3, requires_grad=True)
    rhs = wp.array([r], dtype=wp.float32, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(kernel, dim=1, inputs=[values, rhs])
    updated = values.numpy()[0].copy()
    tape.backward(grads={values: wp.full_like(values, wp.vec3(1.0))})  # loss = sum of the vector
    return updated, values.grad.numpy()[0], rhs.grad.numpy()[0]


@pytest.mark.needs_plugin("autodiff")
def test_gradient_through_an_overloaded_slot_update():
    """Unlike NVIDIA Warp, which rejects these kernels, the adjoint is taken through the
    overwrite: checked against central finite differences of the updated vector's sum."""
    start, r, h = (3.0, 5.0, 7.0), 2.0, 1e-2
    for kernel, update in ((differentiable_add_slot, lambda v, r: (v[0] - r, v[1], v[2])),
                           (differentiable_sub_slot, lambda v, r: (v[0], v[1] * r, v[2]))):
        updated, dvalues, drhs = _slot_gradients(kernel, start, r)
        np.testing.assert_array_equal(updated, update(start, r))
        def loss(v, r, update=update):
            return sum(update(v, r))

        fd_rhs = (loss(start, r + h) - loss(start, r - h)) / (2 * h)
        fd_values = [(loss(tuple(s + h * (j == i) for j, s in enumerate(start)), r)
                      - loss(tuple(s - h * (j == i) for j, s in enumerate(start)), r)) / (2 * h)
                     for i in range(3)]
        np.testing.assert_allclose(drhs, fd_rhs, rtol=1e-5)
        np.testing.assert_allclose(dvalues, fd_values, rtol=1e-5)
