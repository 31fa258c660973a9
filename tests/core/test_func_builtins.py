"""Builtins implemented in the kernel language (registry.add(..., func=...))."""

from __future__ import annotations

import numpy as np

import warp as wp
from warp.compiler.registry import builtin_registry


@wp.func
def _sq_plus(x: float, y: float):
    return x * x + y


if "test_sq_plus" not in builtin_registry:
    builtin_registry.add("test_sq_plus", params={"x": wp.float32, "y": wp.float32}, result=wp.float32,
                         func=_sq_plus, doc="x*x + y, written as a @wp.func.", group="Test")


def test_func_backed_builtin_compiles_to_a_call_of_its_function():
    @wp.kernel
    def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = wp.test_sq_plus(a[i], 1.0)

    a = np.linspace(-1, 1, 5).astype(np.float32)
    out = wp.zeros(5, dtype=float)
    wp.launch(k, dim=5, inputs=[a, out])
    np.testing.assert_allclose(out.numpy(), a * a + 1.0, rtol=1e-6)


# -- output parameters (mutated_args) ------------------------------------------------------------
@wp.func
def _count_down(counter: int, value: int):
    """While counter > 0: decrement it, write counter * 10 to ``value``, return True."""
    if counter > 0:
        return True, counter - 1, (counter - 1) * 10
    return False, counter, value


if "test_count_down" not in builtin_registry:
    builtin_registry.add(
        "test_count_down",
        params={"counter": wp.int32, "value": wp.int32},
        result=(wp.bool, wp.int32, wp.int32),
        func=_count_down,
        mutated_args=(0, 1),
        export=False,
        doc="Decrement counter, write a value (output parameters).",
        group="Test",
    )


def test_output_parameters_are_rebound_also_in_while_conditions():
    @wp.kernel
    def k(n: int, out: wp.array(dtype=int)):
        counter = n
        value = int(-1)
        total = int(0)
        steps = int(0)
        while wp.test_count_down(counter, value):
            total += value
            steps += 1
        out[0] = total
        out[1] = steps
        out[2] = counter
        out[3] = value
        c2 = int(2)
        v2 = int(0)
        ok = wp.test_count_down(c2, v2)
        out[4] = c2 * 100 + v2 + int(ok) * 1000

    out = wp.zeros(5, dtype=int)
    wp.launch(k, dim=1, inputs=[4, out])
    # values written: 30, 20, 10, 0
    np.testing.assert_array_equal(out.numpy(), [60, 4, 0, 0, 1110])


def test_output_parameter_must_be_a_local_variable():
    import pytest

    @wp.kernel
    def k(out: wp.array(dtype=int)):
        value = int(0)
        wp.test_count_down(out[0], value)

    message = "argument 'counter' of wp.test_count_down is an output"
    with pytest.raises(wp.WarpCodegenTypeError, match=message):
        wp.launch(k, dim=1, inputs=[wp.zeros(1, dtype=int)])


def test_kernel_type_protocol_describes_builtin_types():
    from warp.types.protocol import KernelType, is_kernel_type

    @wp.struct
    class S:
        x: float

    assert is_kernel_type(S) and is_kernel_type(wp.vec3)
    assert isinstance(S, KernelType) and isinstance(wp.vec3, KernelType)  # structural check on the class
    assert not is_kernel_type(int)
