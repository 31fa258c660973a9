"""Print the share of bare ``Any`` annotations per package (parameters, returns, annotated names).

Usage: ``python scripts/count_any.py [package-dir ...]`` (default: every ``packages/*/src``).
Only annotations that are exactly ``Any`` (or ``typing.Any``) count as bare; ``list[Any]`` or
``Callable[..., Any]`` say something and do not. The lowering context (``ctx: LowerContext``) is
listed apart: ``ctx: Any`` is what it replaces.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _annotations(tree: ast.AST) -> list[tuple[str, ast.expr]]:
    """(name, annotation) of every parameter, return and annotated assignment in ``tree``."""
    found: list[tuple[str, ast.expr]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                if arg is not None and arg.annotation is not None:
                    found.append((arg.arg, arg.annotation))
            if node.returns is not None:
                found.append(("return", node.returns))
        elif isinstance(node, ast.AnnAssign):
            found.append((ast.unparse(node.target), node.annotation))
    return found


def _is_bare_any(annotation: ast.expr) -> bool:
    text = ast.unparse(annotation).strip("'\"")
    return text in ("Any", "typing.Any")


def count(src: Path) -> tuple[int, int, int]:
    """(annotations, bare Any, ``ctx: Any``) over the Python files under ``src``."""
    total = bare = ctx_any = 0
    for path in sorted(src.rglob("*.py")):
        for name, annotation in _annotations(ast.parse(path.read_text(encoding="utf-8"))):
            total += 1
            if _is_bare_any(annotation):
                bare += 1
                ctx_any += name == "ctx"
    return total, bare, ctx_any


def main(argv: list[str]) -> int:
    dirs = [Path(a) for a in argv] or sorted((ROOT / "packages").glob("*/src"))
    print(f"{'package':<40} {'annotations':>11} {'bare Any':>9} {'share':>6} {'ctx: Any':>8}")
    for src in dirs:
        total, bare, ctx_any = count(src)
        name = src.parent.name if src.name == "src" else str(src)
        share = f"{100 * bare / total:.0f}%" if total else "-"
        print(f"{name:<40} {total:>11} {bare:>9} {share:>6} {ctx_any:>8}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
