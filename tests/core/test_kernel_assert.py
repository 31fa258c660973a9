"""``assert`` in kernels: debug mode stops a launch whose data fails the condition with an
``AssertionError`` naming the kernel, the function, the source and the message; release mode
compiles it to nothing. The expected outcome of each launch is computed from the data in Python."""

import numpy as np
import pytest

import warp as wp


@wp.func
def _check_one(value: int):
    assert value == 1, "element must be 1"


@wp.kernel(module="unique")
def _assert_ones(a: wp.array(dtype=int)):
    i = wp.tid()
    assert a[i] == 1


@wp.kernel(module="unique")
def _assert_range(a: wp.array(dtype=int)):
    i = wp.tid()
    assert a[i] > 0 and a[i] < 2


@wp.kernel(module="unique")
def _assert_in_function(a: wp.array(dtype=int)):
    i = wp.tid()
    _check_one(a[i])


@wp.kernel(module="unique")
def _assert_then_write(a: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    assert a[i] >= 0, "negative input"
    out[i] = a[i] * 2


CASES = [
    (_assert_ones, lambda v: v == 1, "assert a[i] == 1", "_assert_ones", None),
    (_assert_range, lambda v: 0 < v < 2, "assert a[i] > 0 and a[i] < 2", "_assert_range", None),
    (_assert_in_function, lambda v: v == 1, "assert value == 1", "_check_one", "element must be 1"),
]


@pytest.mark.parametrize("kernel, holds, source, function, message", CASES)
@pytest.mark.parametrize("data", [[1, 1, 1], [1, 3, 1], [0, 0, 0]])
def test_debug_mode_raises_exactly_when_the_condition_fails(debug_mode, kernel, holds, source, function,
                                                             message, data):
    a = wp.array(data, dtype=int)
    if all(holds(v) for v in data):
        wp.launch(kernel, len(data), inputs=[a])
        return
    with pytest.raises(AssertionError) as info:
        wp.launch(kernel, len(data), inputs=[a])
    text = str(info.value)
    assert text.startswith("Assertion failed"), text
    assert source in text and f"function '{function}'" in text and kernel.key in text, text
    if message:
        assert text.endswith(f": {message}"), text


def test_release_mode_skips_assertions_and_keeps_the_rest():
    assert wp.config.mode == "release"
    a = wp.array([-1, 2, -3], dtype=int)
    out = wp.zeros(3, dtype=int)
    wp.launch(_assert_then_write, 3, inputs=[a, out])
    np.testing.assert_array_equal(out.numpy(), a.numpy() * 2)


def test_debug_mode_failure_is_raised_once_and_the_next_launch_is_clean(debug_mode):
    out = wp.zeros(3, dtype=int)
    with pytest.raises(AssertionError, match="negative input"):
        wp.launch(_assert_then_write, 3, inputs=[wp.array([1, -2, 3], dtype=int), out])
    good = wp.array([1, 2, 3], dtype=int)
    wp.launch(_assert_then_write, 3, inputs=[good, out])
    np.testing.assert_array_equal(out.numpy(), [2, 4, 6])


def test_assert_message_must_be_a_compile_time_string():
    @wp.kernel(module="unique")
    def bad_message(a: wp.array(dtype=int)):
        i = wp.tid()
        assert a[i] == 1, a[i]

    with pytest.raises(wp.WarpCodegenError, match="message of an assert"):
        wp.launch(bad_message, 1, inputs=[wp.ones(1, dtype=int)])


def test_compile_time_condition(debug_mode):
    flag = False

    @wp.kernel(module="unique")
    def static_false(a: wp.array(dtype=int)):
        assert flag, "flag is off"

    with pytest.raises(AssertionError, match="flag is off"):
        wp.launch(static_false, 1, inputs=[wp.ones(1, dtype=int)])


@pytest.mark.needs_plugin("autodiff")
def test_assert_in_a_recorded_kernel_keeps_gradients(debug_mode):
    @wp.kernel(module="unique")
    def square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        assert x[i] > 0.0, "x must be positive"
        y[i] = x[i] * x[i]

    x = wp.array([1.0, 2.0, 3.0], dtype=float, requires_grad=True)
    y = wp.zeros(3, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(square, 3, inputs=[x, y])
    tape.backward(grads={y: wp.ones(3, dtype=float)})
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * x.numpy())
