"""A local bound to a @wp.func names that function for the whole kernel: calling through it
works, rebinding it to another function or to a value is a located compile error."""

from __future__ import annotations

import pytest

import warp as wp


@wp.func
def double(x: float):
    return 2.0 * x


@wp.func
def halve(x: float):
    return 0.5 * x


@wp.kernel
def call_through_local(out: wp.array(dtype=float)):
    f = double
    f = double  # the same function again is fine
    out[0] = f(3.0)


def test_call_through_a_function_local():
    out = wp.zeros(1)
    wp.launch(call_through_local, 1, inputs=[out])
    assert out.numpy()[0] == 6.0


def test_rebinding_to_another_function_is_refused():
    @wp.kernel
    def rebind(out: wp.array(dtype=float)):
        f = double
        f = halve
        out[0] = f(3.0)

    expected = r"rebinding function-valued local 'f' \(bound to 'double'\) to a different function"
    with pytest.raises(wp.errors.WarpCodegenError, match=expected) as info:
        wp.launch(rebind, 1, inputs=[wp.zeros(1)])
    assert "f = halve" in str(info.value)


def test_rebinding_to_a_value_is_refused():
    @wp.kernel
    def rebind_value(out: wp.array(dtype=float)):
        f = double
        f = 1.0
        out[0] = f

    with pytest.raises(wp.errors.WarpCodegenError, match="to a non-function value"):
        wp.launch(rebind_value, 1, inputs=[wp.zeros(1)])
