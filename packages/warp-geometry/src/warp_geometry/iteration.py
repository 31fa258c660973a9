"""``for index in query:`` over a geometry query (the ``_wp_iterate_`` hook of its type).

The loop is translated as NVIDIA Warp documents it::

    index = int(0)
    while wp.<name>_next(query, index):
        <body>
"""

from __future__ import annotations

import ast
import itertools
from typing import Any

from warp.extending import builtin_call, int32

_counter = itertools.count()


def make_iterable(query_type: Any, next_builtin: str) -> None:
    """Let kernel code loop over values of ``query_type`` with builtin ``next_builtin``."""

    def iterate(builder: Any, value: Any, node: ast.For) -> None:
        if not isinstance(node.target, ast.Name):  # the frontend refuses other targets before
            raise builder.error("the loop variable must be a single name", node=node)
        target = node.target.id
        n = next(_counter)
        query_var = f"__query{n}"
        builder.assign_var(query_var, value)
        builder.bind_name(target, builder.const(0, int32), node)
        args = [ast.Name(query_var, ast.Load()), ast.Name(target, ast.Load())]
        call = builtin_call(builder, next_builtin, args, node)
        loop = ast.While(test=call, body=node.body, orelse=[])
        ast.copy_location(loop, node)
        builder.stmt_While(loop)

    query_type._wp_iterate_ = staticmethod(iterate)
