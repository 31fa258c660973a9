"""``wp.grad(f)`` in kernel code: the adjoint of a user function, seeded in the forward pass.

The gradient of ``f(*params) -> r`` is ``f``'s adjoint ``f_adj(*params, adj_r)`` returning the
adjoint of every parameter; the call site passes ``adj_r = 1``. It is formed only for functions
whose parameters all carry gradients (floats, vectors, matrices, ...) and whose loops need no
stored iterations (the per-thread memory of an adjoint launch does not exist in a forward one).
"""

from __future__ import annotations

from warp.extending import ir, type_repr

from warp_autodiff.loop_memory import TapeLayout
from warp_autodiff.transform.adjoint import FunctionAdjoints
from warp_autodiff.adjoint_types import is_differentiable


def function_gradient(fn: ir.Function, funcs: FunctionAdjoints) -> ir.Function:
    """The IR function ``(*params, adj_result) -> adjoint of each param`` of user function ``fn``.

    Raises ``ValueError`` naming the reason when the gradient cannot be formed.
    """
    fixed = [
        f"'{name}' ({type_repr(p.type)})"
        for name, p in zip(fn.param_names, fn.params)
        if not is_differentiable(p.type)
    ]
    if fixed:
        raise ValueError(
            "every parameter must be differentiable (floats, vectors, matrices, quaternions, "
            f"transforms); {', '.join(fixed)} is not"
        )
    if len(fn.return_types) != 1 or not is_differentiable(fn.return_types[0]):
        raise ValueError("the function must return one differentiable value")
    layout = TapeLayout()
    info = funcs.adjoint(fn, layout)
    if info is None:
        raise ValueError("the function has no differentiable parameters")
    if layout.sites:
        raise ValueError(
            "its adjoint stores loop iterations (a dynamic loop whose iterations depend on earlier "
            "ones), which only adjoint launches provide memory for; use wp.Tape instead"
        )
    return info.function
