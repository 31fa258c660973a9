"""``wp.Kernel(func, code_transformers=[...])``: kernels compiled from a syntax tree rewritten by
``ast.NodeTransformer`` objects, and the ``wp.static`` expressions of such trees."""

import ast
from typing import Any

import numpy as np
import pytest

import warp as wp
from warp.compiler.hashing import kernel_hash
from warp.compiler.options import resolve_options
from warp.targets import target_for_kind


def cache_key(k):
    """The kernel's cache key for the CPU (as the loader computes it, minus the device fingerprint)."""
    return kernel_hash(k, resolve_options(k, target=target_for_kind("cpu")), "test-device")


def add_inputs(a: wp.array[float], b: wp.array[float], out: wp.array[float]):
    i = wp.tid()
    out[i] = a[i] + b[i]


class AddToMul(ast.NodeTransformer):
    """Rewrites every ``x + y`` as ``x * y``; counts the modules it is applied to."""

    def __init__(self):
        self.modules = 0

    def visit_Module(self, node):
        self.modules += 1
        return self.generic_visit(node)

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Add):
            node.op = ast.Mult()
        return node


def launch_binary(kernel):
    a = wp.array([1.0, 2.0, 3.0], dtype=float)
    b = wp.array([4.0, 5.0, 6.0], dtype=float)
    out = wp.zeros(3, dtype=float)
    wp.launch(kernel, dim=3, inputs=[a, b, out])
    return a.numpy(), b.numpy(), out.numpy()


def test_transformer_rewrites_the_compiled_code_once_at_declaration():
    transformer = AddToMul()
    rewritten = wp.Kernel(add_inputs, key="add_as_mul", module="code_transformers_mul",
                          code_transformers=[transformer])
    plain = wp.Kernel(add_inputs, key="add_plain", module="code_transformers_mul")
    assert transformer.modules == 1  # Warp's order: the transformer visits the parsed module
    a, b, out = launch_binary(rewritten)
    np.testing.assert_allclose(out, a * b)
    a, b, out = launch_binary(plain)
    np.testing.assert_allclose(out, a + b)
    launch_binary(rewritten)
    assert transformer.modules == 1  # not again per launch
    assert cache_key(rewritten) != cache_key(plain)


def test_transformers_apply_in_order():
    class MulToSub(ast.NodeTransformer):
        def visit_BinOp(self, node):
            self.generic_visit(node)
            if isinstance(node.op, ast.Mult):
                node.op = ast.Sub()
            return node

    k = wp.Kernel(add_inputs, key="add_mul_sub", module="code_transformers_order",
                  code_transformers=[AddToMul(), MulToSub()])
    a, b, out = launch_binary(k)
    np.testing.assert_allclose(out, a - b)


def test_static_reused_by_a_transformer_is_evaluated_per_occurrence():
    calls = []

    def bump():
        calls.append(1)
        return float(len(calls))

    def raw(out: wp.array[float]):
        x = wp.static(bump())
        y = 0.0
        out[0] = 10.0 * x + y

    class ReuseStatic(ast.NodeTransformer):
        def visit_FunctionDef(self, node):
            node.body[1].value = node.body[0].value  # y = <the same wp.static(bump()) node>
            return node

    k = wp.Kernel(raw, module="code_transformers_reuse", code_transformers=[ReuseStatic()])
    assert len(calls) == 2  # evaluated at declaration, once per place in the tree
    out = wp.zeros(1, dtype=float)
    wp.launch(k, dim=1, inputs=[out])
    assert out.numpy()[0] == 12.0
    assert len(calls) == 2  # compiling and hashing use the values kept in the tree


def test_static_reading_a_loop_variable_in_a_transformed_tree_is_evaluated_per_iteration():
    def raw(out: wp.array[int]):
        for i in range(3):
            out[i] = wp.static(i * 10) + 1

    k = wp.Kernel(raw, module="code_transformers_loop", code_transformers=[AddToMul()])
    out = wp.zeros(3, dtype=int)
    wp.launch(k, dim=1, inputs=[out])
    np.testing.assert_array_equal(out.numpy(), [0 * 1, 10 * 1, 20 * 1])  # `+ 1` became `* 1`


def test_transformer_may_rebind_a_static_callee():
    @wp.func
    def double(value: float):
        return 2.0 * value

    @wp.func
    def triple(value: float):
        return 3.0 * value

    table = [double, triple]

    def raw(out: wp.array[float]):
        out[0] = table[wp.static(0)](5.0)

    class PickSecond(ast.NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            if isinstance(node.func, ast.Subscript):  # table[wp.static(0)] -> table[wp.static(1)]
                node.func.slice.args[0] = ast.copy_location(ast.Constant(value=1), node.func.slice.args[0])
            return node

    k = wp.Kernel(raw, module="code_transformers_callee", code_transformers=[PickSecond()])
    out = wp.zeros(1, dtype=float)
    wp.launch(k, dim=1, inputs=[out])
    assert out.numpy()[0] == 15.0


def test_failing_static_in_a_transformed_tree_is_reported_when_compiled():
    lookup = {}

    def raw(out: wp.array[float]):
        out[0] = wp.static(lookup["missing"])

    k = wp.Kernel(raw, module="code_transformers_failing", code_transformers=[AddToMul()])
    with pytest.raises(wp.WarpCodegenError, match="Error evaluating static expression: 'missing'"):
        wp.launch(k, dim=1, inputs=[wp.zeros(1, dtype=float)])


def test_bad_transformers_are_rejected_at_declaration():
    with pytest.raises(TypeError, match=r"code_transformers\[1\] of kernel 'add_inputs' is a int"):
        wp.Kernel(add_inputs, module="code_transformers_bad", code_transformers=[AddToMul(), 3])

    class DropsEverything(ast.NodeTransformer):
        def visit_Module(self, node):
            return None

    with pytest.raises(TypeError, match=r"code_transformers\[0\] \(DropsEverything\) of kernel 'add_inputs' "
                       r"returned NoneType"):
        wp.Kernel(add_inputs, module="code_transformers_bad", code_transformers=[DropsEverything()])


def scale_any(a: wp.array[Any], s: Any, out: wp.array[Any]):
    i = wp.tid()
    out[i] = a[i] + s


def test_generic_kernel_instances_compile_the_transformed_tree():
    k = wp.Kernel(scale_any, module="code_transformers_generic", code_transformers=[AddToMul()])
    for dtype in (wp.float32, wp.float64):
        a = wp.array([1.0, 2.0, 3.0], dtype=dtype)
        out = wp.zeros(3, dtype=dtype)
        wp.launch(k, dim=3, inputs=[a, dtype(2.0), out])
        np.testing.assert_allclose(out.numpy(), a.numpy() * 2.0)


def test_each_declaration_keeps_its_own_static_values():
    settings = {"v": 1.0}

    def raw(out: wp.array[float]):
        out[0] = wp.static(settings["v"])

    identity = [ast.NodeTransformer()]
    first = wp.Kernel(raw, key="kept", module="code_transformers_kept_1", code_transformers=identity)
    settings["v"] = 2.0
    second = wp.Kernel(raw, key="kept", module="code_transformers_kept_2", code_transformers=identity)
    assert cache_key(first) != cache_key(second)  # same key and tree: only the kept values differ
    for kernel, expected in ((first, 1.0), (second, 2.0), (first, 1.0)):
        out = wp.zeros(1, dtype=float)
        wp.launch(kernel, dim=1, inputs=[out])
        assert out.numpy()[0] == expected


offset = 100.0  # a global that a local introduced by a transformer shadows


def test_static_reading_a_local_introduced_by_a_transformer_sees_the_local():
    def raw(out: wp.array[float]):
        for i in range(2):
            out[i] = wp.static(offset + 1.0)

    class RenameLoopVariable(ast.NodeTransformer):
        def visit_Name(self, node):  # i -> offset: the loop variable now shadows the global
            if node.id == "i":
                node.id = "offset"
            return node

    k = wp.Kernel(raw, module="code_transformers_new_local", code_transformers=[RenameLoopVariable()])
    out = wp.zeros(2, dtype=float)
    wp.launch(k, dim=1, inputs=[out])
    np.testing.assert_array_equal(out.numpy(), [1.0, 2.0])  # per iteration, not the global's 101
