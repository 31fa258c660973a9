"""What plugin code may ask of the kernel translator (``warp.extending``'s ``compile_time_object``,
``builtin_call``, ``composite_value``, ``kernel_ir``, ``function_ir``): special forms written
against it, checked on computed values."""

from __future__ import annotations

import numpy as np
import pytest
import warp as wp
from warp.extending import (
    WarpCodegenTypeError,
    builtin_call,
    canonical_type,
    compile_time_object,
    composite_value,
    function_ir,
    int32,
    ir,
    kernel_ir,
    type_size_in_bytes,
)


class _SizeOf:
    """``size_of(T)`` in kernels: the byte size of a type named at compile time."""

    def _wp_call_(self, builder, node):
        t = compile_time_object(builder, node.args[0])
        if t is None:
            raise builder.error("size_of() takes a type", WarpCodegenTypeError, node)
        return builder.const(type_size_in_bytes(canonical_type(t)), int32)


class _Twice:
    """``twice(x)`` in kernels: ``wp.add(x, x)``, called from synthesized code."""

    def _wp_call_(self, builder, node):
        return builder.expr(builtin_call(builder, "add", [node.args[0], node.args[0]], node))


class _Splat3:
    """``splat3(x)``: a 3-vector of x's type with every component x."""

    def _wp_call_(self, builder, node):
        value = builder.value(node.args[0])
        return composite_value(builder, wp.types.vector(3, value.type), [value], node)


size_of = _SizeOf()
twice = _Twice()
splat3 = _Splat3()


@wp.kernel
def special_forms(out: wp.array(dtype=int), doubled: wp.array(dtype=float), x: float):
    out[0] = size_of(wp.float64)  # a builtin name met in kernel code is resolved to its type
    out[1] = size_of(wp.vec3)
    out[2] = size_of(float)
    doubled[0] = twice(x)


def test_special_forms_read_compile_time_arguments_and_call_builtins():
    out = wp.zeros(3, dtype=int, device="cpu")
    doubled = wp.zeros(1, dtype=float, device="cpu")
    wp.launch(special_forms, dim=1, inputs=[out, doubled, 2.5], device="cpu")
    assert out.numpy().tolist() == [8, 12, 4]
    assert doubled.numpy().tolist() == [5.0]


@wp.kernel
def splat_kernel(out: wp.array(dtype=float), x: float):
    v = splat3(x)
    out[0] = v[0] + v[1] + v[2]


@pytest.mark.needs_plugin("builtins")  # a vector's components are read with warp-builtins' extract
def test_composite_value_fills_a_vector():
    out = wp.zeros(1, dtype=float, device="cpu")
    wp.launch(splat_kernel, dim=1, inputs=[out, 1.5], device="cpu")
    np.testing.assert_allclose(out.numpy(), [4.5])


@wp.kernel
def bad_size_of(out: wp.array(dtype=int), x: int):
    out[0] = size_of(x)


def test_a_run_time_value_is_not_a_compile_time_object():
    out = wp.zeros(1, dtype=int, device="cpu")
    with pytest.raises(WarpCodegenTypeError, match="size_of\\(\\) takes a type"):
        wp.launch(bad_size_of, dim=1, inputs=[out, 3], device="cpu")


@wp.func
def scaled(a: float, s: float):
    return a * s


@wp.func
def scaled(a: int, s: int):  # noqa: F811 - a second overload
    return a * s


def test_kernel_and_function_ir():
    fn = kernel_ir(special_forms)
    assert isinstance(fn, ir.Function) and [p.type for p in fn.params][2] is wp.float32
    spec = function_ir(scaled, [wp.int32, wp.int32])
    assert [p.type for p in spec.params] == [wp.int32, wp.int32] and spec.return_types == [wp.int32]
    with pytest.raises(TypeError, match="no definition of 'scaled' accepts these argument types"):
        function_ir(scaled, [wp.float64, wp.float64])
