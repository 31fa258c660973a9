"""Static scans of statement lists (which names a loop body assigns)."""

from __future__ import annotations

import ast
from warp.compiler.registry import builtin_registry


def assigned_names(stmts: list[ast.stmt]) -> list[str]:
    """Names stored to anywhere in ``stmts`` (nested blocks included), in first-seen order."""
    seen: dict[str, None] = {}
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                seen.setdefault(node.id, None)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                seen.setdefault(node.target.id, None)
            elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, ast.Store):
                # v[0] = ... and s.x = ... rebind the variable v / s to an updated value
                root = node.value
                while isinstance(root, (ast.Subscript, ast.Attribute)):
                    root = root.value
                if isinstance(root, ast.Name):
                    seen.setdefault(root.id, None)
            elif isinstance(node, ast.Call):
                for updated in _updated_arguments(node):
                    seen.setdefault(updated, None)
    return list(seen)


def rebound_names(stmts: list[ast.stmt]) -> set[str]:
    """Names bound by the name itself (``x = ...``, ``x += ...``, ``for x in ...``), as opposed to
    an element or field update (``x[i] = ...``), anywhere in ``stmts``."""
    names: set[str] = set()
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
    return names


#: wp.add_inplace(v, i, x) and its siblings update their first argument (see kernel_forms)
_INPLACE = frozenset(
    {"add_inplace", "sub_inplace", "bit_and_inplace", "bit_or_inplace", "bit_xor_inplace", "assign_inplace"}
)


def _updated_arguments(call: ast.Call) -> list[str]:
    """Variables a builtin call updates: ``state`` of ``wp.randf(state)``, the outputs of
    ``wp.mesh_query_point(id, p, d, inside, face, u, v)``, the query of ``wp.*_query_next``."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if name in _INPLACE and call.args:
        target = call.args[0]
        while isinstance(target, (ast.Subscript, ast.Attribute)):
            target = target.value
        return [target.id] if isinstance(target, ast.Name) else []
    builtin = builtin_registry.get(name) if name else None
    if builtin is None:
        return []
    positions = {k for o in builtin.overloads for k in o.updated_args()}
    picked = [call.args[k] for k in sorted(positions) if k < len(call.args)]
    return [a.id for a in picked if isinstance(a, ast.Name)]
