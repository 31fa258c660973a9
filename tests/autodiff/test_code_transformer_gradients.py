"""The adjoint of a kernel built with ``code_transformers`` is the adjoint of the rewritten code."""

import ast

import numpy as np

import warp as wp


def add_inputs(a: wp.array[float], b: wp.array[float], out: wp.array[float]):
    i = wp.tid()
    out[i] = a[i] + b[i]


class AddToMul(ast.NodeTransformer):
    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Add):
            node.op = ast.Mult()
        return node


def test_adjoint_of_a_transformed_kernel_differentiates_the_rewritten_code():
    k = wp.Kernel(add_inputs, module="code_transformer_gradients", code_transformers=[AddToMul()])
    a = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    b = wp.array([3.0, 5.0], dtype=float, requires_grad=True)
    out = wp.zeros(2, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(k, dim=2, inputs=[a, b, out])
    tape.backward(grads={out: wp.ones(2, dtype=float)})
    np.testing.assert_allclose(out.numpy(), a.numpy() * b.numpy())
    np.testing.assert_allclose(a.grad.numpy(), b.numpy())  # d(a*b)/da, not d(a+b)/da = 1
    np.testing.assert_allclose(b.grad.numpy(), a.numpy())
