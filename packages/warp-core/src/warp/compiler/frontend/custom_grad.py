"""Translating ``@wp.func_grad`` definitions into the adjoint functions autodiff calls.

A custom gradient of ``f(x, y) -> r`` is written ``g(x, y, adj_r)`` and accumulates into the
adjoints of the inputs with ``wp.adjoint[x] += ...``. Autodiff calls the adjoint of a user
function as ``f_adj(*params, *adj_arrays, *adj_results) -> adjoints of the differentiable
params`` (see warp_autodiff.transform.adjoint); this module builds that function from ``g``:

- ``wp.adjoint[p]`` becomes a local variable (zero at entry) for a differentiable parameter
  ``p``, and the gradient array for an array parameter (``wp.adjoint[a][i] += v`` is then an
  atomic add into it);
- every ``return`` (and the end of the body) returns the adjoint variables.
"""

from __future__ import annotations

import ast
import copy
import math
from typing import Any

from warp.compiler import ir
from warp.compiler.source import SourceInfo, read_source
from warp.errors import WarpCodegenError, WarpCodegenTypeError
from warp.types.scalars import is_scalar_type, type_repr
from warp.compiler.frontend.translator import Translator
from warp.compiler.verify import verify_function


class Adjoint:
    """``wp.adjoint[x]``: inside a ``@wp.func_grad`` definition, the adjoint of input ``x``."""

    def __getitem__(self, item: Any) -> Any:
        raise TypeError("wp.adjoint[...] is only meaningful inside a @wp.func_grad function compiled by warp")

    def __repr__(self) -> str:
        return "wp.adjoint"


adjoint = Adjoint()


def _adjoint_name(param: str) -> str:
    return f"__adj_{param}"


class _Rewrite(ast.NodeTransformer):
    """``wp.adjoint[p]`` -> ``__adj_p``; ``return`` -> ``return <adjoint variables>``."""

    def __init__(self, source: SourceInfo, known: set[str], results: list[str]):
        self.source = source
        self.known = known
        self.results = results
        self.bad: ast.Subscript | None = None

    def _is_adjoint(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            found, obj = self.source.lookup(node.id)
            return found and obj is adjoint
        if isinstance(node, ast.Attribute) and node.attr == "adjoint" and isinstance(node.value, ast.Name):
            found, obj = self.source.lookup(node.value.id)
            return found and getattr(obj, "adjoint", None) is adjoint
        return False

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        if self._is_adjoint(node.value):
            adjoint_of = self._adjoint_of(node.slice, node.ctx)
            if adjoint_of is None:
                self.bad = self.bad or node
                return node
            return ast.copy_location(adjoint_of, node)
        return self.generic_visit(node)

    def _adjoint_of(self, target: ast.expr, ctx: ast.expr_context) -> ast.expr | None:
        """The adjoint variable of ``p`` (``__adj_p``) or of a field of a struct parameter
        (``p.a.b`` -> ``__adj_p.a.b``: the adjoint of a struct is a struct of field adjoints)."""
        if isinstance(target, ast.Name):
            return ast.Name(id=_adjoint_name(target.id), ctx=ctx) if target.id in self.known else None
        if isinstance(target, ast.Attribute):
            base = self._adjoint_of(target.value, ast.Load())
            return None if base is None else ast.Attribute(value=base, attr=target.attr, ctx=ctx)
        return None

    def visit_Return(self, node: ast.Return) -> ast.AST:
        return ast.copy_location(_return_of(self.results), node)


def _return_of(names: list[str]) -> ast.Return:
    if not names:
        return ast.Return(value=None)
    if len(names) == 1:
        return ast.Return(value=ast.Name(id=names[0], ctx=ast.Load()))
    return ast.Return(value=ast.Tuple(elts=[ast.Name(id=n, ctx=ast.Load()) for n in names], ctx=ast.Load()))


def build_custom_adjoint(
    func: Any,
    grad: Any,
    forward: ir.Function,
    diff_params: list[int],
    array_params: list[int],
    diff_results: list[int],
) -> ir.Function:
    """The adjoint function of ``forward`` (a specialization of ``func``) from ``grad``.

    ``grad`` is the FunctionOverload of the ``@wp.func_grad`` definition. The result takes
    ``(*params, *adj arrays of array_params, *adj of diff_results)`` and returns the adjoints of
    ``diff_params`` (autodiff's calling convention for user-function adjoints).
    """
    names = list(forward.param_names)
    n, results = len(names), forward.return_types
    extra = grad.param_names[n:]
    if len(extra) != len(results):
        raise WarpCodegenTypeError(
            f"@wp.func_grad '{grad.pyfunc.__name__}' of '{func.name}' takes {len(extra)} adjoint argument(s) "
            f"after the inputs, but '{func.name}' returns {len(results)} value(s)",
            function=grad.pyfunc.__name__,
        )
    source = read_source(grad.pyfunc)
    tree = copy.deepcopy(source.tree)
    grad_names = grad.param_names[:n]
    known = {grad_names[k] for k in diff_params} | {grad_names[k] for k in array_params}
    rewrite = _Rewrite(source, known, [_adjoint_name(grad_names[k]) for k in diff_params])
    tree.body = [rewrite.visit(stmt) for stmt in tree.body]
    if rewrite.bad is not None:
        raise WarpCodegenError(
            f"wp.adjoint[...] takes an input of '{func.name}' that can carry a gradient (a float scalar, "
            f"vector, matrix, ... or an array), got '{ast.unparse(rewrite.bad.slice)}'",
            function=grad.pyfunc.__name__,
            loc=source.loc(rewrite.bad),
        )
    tree.body.append(ast.copy_location(_return_of(rewrite.results), tree.body[-1]))
    ast.fix_missing_locations(tree)
    info = SourceInfo(
        func=source.func,
        source=source.source,
        tree=tree,
        file=source.file,
        first_line=source.first_line,
        lines=source.lines,
        globals=source.globals,
        closure=source.closure,
    )

    params = [ir.Value(p.type, name) for p, name in zip(forward.params, grad_names)]
    adj_arrays = [ir.Value(forward.params[k].type, f"adj_{grad_names[k]}") for k in array_params]
    adj_results = [ir.Value(results[j], extra[j]) for j in diff_results]
    t = Translator(info, grad.pyfunc.__name__, is_kernel=False)
    t.return_types = [forward.params[k].type for k in diff_params]
    body = ir.Region()
    t.node = tree
    bindings: dict[str, Any] = dict(zip(grad_names, params))
    bindings.update({_adjoint_name(grad_names[k]): a for k, a in zip(array_params, adj_arrays)})
    bindings.update({extra[j]: a for j, a in zip(diff_results, adj_results)})
    with t.enter(body, bindings) as scope:
        for j, name in enumerate(extra):
            if j not in diff_results:  # the adjoint of a result that carries no gradient: zero
                scope.vars[name] = _zero(t, results[j], tree)
        for k in diff_params:
            scope.vars[_adjoint_name(grad_names[k])] = _zero(t, forward.params[k].type, tree)
        t.block(tree.body)
    result = ir.Function(
        name=func.name,
        params=params + adj_arrays + adj_results,
        param_names=grad_names + [a.name for a in adj_arrays] + [a.name for a in adj_results],
        body=body,
        return_types=list(t.return_types),
        is_kernel=False,
        loc=source.loc(source.tree),
        symbol=forward.symbol + "_adj",
    )
    verify_function(result)
    return result


def _zero(t: Any, type_: Any, node: ast.AST) -> ir.Value:
    if is_scalar_type(type_):
        return t.const(type_(0).value, type_)
    if getattr(type_, "_wp_kind_", "") == "struct":
        return t.const(None, type_)  # every field zero
    shape = getattr(type_, "_shape_", None)
    if shape is not None and getattr(type_, "_wp_scalar_type_", None) is not None:
        return t.const((0,) * math.prod(shape), type_)
    raise t.error(
        f"custom gradients of {type_repr(type_)} values are not supported", WarpCodegenTypeError, node
    )
