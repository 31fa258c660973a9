"""``Tape.visualize``: the recorded launches as a GraphViz (DOT) graph.

Kernel launches are nodes, the arrays they read and write are nodes, edges go from each input
array to the launch and from the launch to each output array. With ``simplify_graph``,
consecutive launches of one kernel with the same arguments become one node labelled
``repeated Nx``. Named scopes (``Tape.record_scope_begin``/``record_scope_end``) are clusters.
Render the text with GraphViz (``dot -Tsvg tape.dot -o tape.svg``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from warp.extending import array as _array, type_repr
from warp_autodiff.tape_launch import TapeLaunch


@dataclass
class _Step:
    """One node of launches: a kernel launch (repeated ``count`` times) or a recorded function."""

    index: int
    label: str
    inputs: list[Any] = field(default_factory=list)
    outputs: list[Any] = field(default_factory=list)
    count: int = 1
    key: tuple[Any, ...] = ()


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _steps(launches: list[Any], simplify: bool) -> list[_Step]:
    steps: list[_Step] = []
    for index, entry in enumerate(launches):
        if callable(entry) or not isinstance(entry, TapeLaunch):
            name = getattr(entry, "__name__", type(entry).__name__)
            steps.append(_Step(index, f"{name} (recorded function)", key=("func", id(entry))))
            continue
        kernel, dim, inputs, outputs = entry.kernel, entry.dim, entry.inputs, entry.outputs
        name = getattr(kernel, "key", None) or getattr(kernel, "name", None) or str(kernel)
        arrays_in = [a for a in inputs if isinstance(a, _array)]
        arrays_out = [a for a in outputs if isinstance(a, _array)]
        key = (id(kernel), str(dim), tuple(id(a) for a in arrays_in), tuple(id(a) for a in arrays_out))
        if simplify and steps and steps[-1].key == key:
            steps[-1].count += 1
            continue
        steps.append(_Step(index, str(name), arrays_in, arrays_out, key=key))
    return steps


def _scope_paths(scopes: list[tuple[int, Any, Any]], n_launches: int) -> list[tuple[int, ...]]:
    """For each launch index, the ids (positions in ``scopes``) of the scopes open around it."""
    paths: list[tuple[int, ...]] = []
    stack: list[int] = []
    events = sorted(range(len(scopes)), key=lambda k: (scopes[k][0], k))
    pos = 0
    for i in range(n_launches):
        while pos < len(events) and scopes[events[pos]][0] <= i:
            k = events[pos]
            if scopes[k][1] is None:
                if stack:
                    stack.pop()
            else:
                stack.append(k)
            pos += 1
        paths.append(tuple(stack))
    return paths


def tape_to_dot(
    tape: Any,
    simplify_graph: bool = True,
    hide_readonly_arrays: bool = False,
    array_labels: dict[Any, str] | None = None,
    ignore_graph_scopes: bool = False,
    graph_direction: str = "LR",
) -> str:
    """The DOT text of ``tape``'s recorded launches (see the module docstring)."""
    steps = _steps(list(tape.launches), simplify_graph)
    labels = dict(array_labels or {})
    written = {id(a) for s in steps for a in s.outputs}
    arrays: dict[int, Any] = {}
    for s in steps:
        for a in (*s.inputs, *s.outputs):
            if hide_readonly_arrays and id(a) not in written:
                continue
            arrays.setdefault(id(a), a)
    lines = ["digraph Tape {", f"  rankdir={graph_direction};", "  node [fontname=Helvetica];"]
    for n, (key, a) in enumerate(arrays.items()):
        label = labels.get(a) if _hashable(a) and a in labels else None
        if label is None:
            label = f"a{n}: {type_repr(a.dtype)}{list(a.shape)}"
        tip = f"array: dtype={type_repr(a.dtype)}, shape={tuple(a.shape)}"
        lines.append(f"  arr_{key} [shape=box, style=rounded, label={_quote(label)}, tooltip={_quote(tip)}];")
    paths = _scope_paths([] if ignore_graph_scopes else list(tape.scopes), len(tape.launches))
    body: dict[tuple[int, ...], list[str]] = {}
    for n, s in enumerate(steps):
        label = s.label if s.count == 1 else f"{s.label} (repeated {s.count}x)"
        node = f"launch_{n}"
        body.setdefault(paths[s.index] if paths else (), []).append(
            f"{node} [shape=ellipse, style=filled, fillcolor=lightgray, label={_quote(label)}];"
        )
        for a in s.inputs:
            if id(a) in arrays:
                lines.append(f"  arr_{id(a)} -> {node};")
        for a in s.outputs:
            if id(a) in arrays:
                lines.append(f"  {node} -> arr_{id(a)};")
    lines += _clusters(body, list(tape.scopes))
    lines.append("}")
    return "\n".join(lines) + "\n"


def _clusters(body: dict[tuple[int, ...], list[str]], scopes: list[tuple[int, Any, Any]]) -> list[str]:
    """Launch nodes, nested in ``subgraph cluster_*`` blocks by the scopes open around them."""
    out: list[str] = []

    def emit(prefix: tuple[int, ...], depth: int) -> None:
        pad = "  " * (depth + 1)
        out.extend(pad + line for line in body.get(prefix, []))
        n = len(prefix)
        children = sorted({p[n] for p in body if len(p) > n and p[:n] == prefix})
        for k in children:
            out.append(f"{pad}subgraph cluster_{k} {{")
            out.append(f"{pad}  label={_quote(str(scopes[k][1]))};")
            emit((*prefix, k), depth + 1)
            out.append(f"{pad}}}")

    emit((), 0)
    return out


def _hashable(a: Any) -> bool:
    try:
        hash(a)
    except TypeError:
        return False
    return True
