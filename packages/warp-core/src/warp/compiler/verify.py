"""IR verifier: checks the invariants later stages rely on, before anything reaches LLVM.

- every operand is defined before use, in the same region or an enclosing one (SSA dominance
  for structured control flow);
- ``yield`` matches its parent op's results (count and types), ``condition`` starts with a
  bool, ``break``/``continue`` appear only inside loops and carry the loop's values;
- ``return`` matches the function's return types.
"""

from __future__ import annotations

from typing import Any

from warp.compiler import ir
from warp.errors import WarpCodegenError
from warp.types.scalars import bool as wp_bool, type_repr


class IRVerificationError(WarpCodegenError):
    """The compiler produced malformed IR (a compiler bug, reported with its location)."""


def verify_function(fn: ir.Function) -> None:
    """Raise :class:`IRVerificationError` if ``fn`` breaks an IR invariant."""
    _Verifier(fn).region(fn.body, set(id(p) for p in fn.params), parent=None, loops=[])


class _Verifier:
    def __init__(self, fn: ir.Function):
        self.fn = fn

    def fail(self, op: ir.Op | None, message: str) -> IRVerificationError:
        return IRVerificationError(
            f"internal compiler error: {message}", function=self.fn.name, loc=op.loc if op else None
        )

    def region(self, region: ir.Region, defined: set[int], parent: ir.Op | None, loops: list[ir.Op]) -> None:
        defined = defined | {id(p) for p in region.params}
        for i, op in enumerate(region.ops):
            for arg in op.args:
                if id(arg) not in defined:
                    raise self.fail(op, f"{op.kind} uses {arg!r} before its definition")
            if op.kind in ir.TERMINATORS and i != len(region.ops) - 1:
                raise self.fail(op, f"'{op.kind}' is not the last op of its region")
            self.terminator(op, parent, loops)
            inner_loops = loops + [op] if op.kind in ("for", "while") else loops
            for sub in op.regions:
                self.region(sub, defined, op, inner_loops)
            defined |= {id(r) for r in op.results}

    def terminator(self, op: ir.Op, parent: ir.Op | None, loops: list[ir.Op]) -> None:
        if op.kind == "yield":
            if parent is None:
                raise self.fail(op, "yield outside of a region op")
            self.match(op, op.args, [r.type for r in parent.results])
        elif op.kind == "condition":
            if not op.args or op.args[0].type is not wp_bool:
                raise self.fail(op, "loop condition must be a bool")
        elif op.kind in ("break", "continue"):
            if not loops:
                raise self.fail(op, f"{op.kind} outside a loop")
            self.match(op, op.args, [r.type for r in loops[-1].results])
        elif op.kind == "return":
            self.match(op, op.args, self.fn.return_types)

    def match(self, op: ir.Op, values: list[ir.Value], types: list[Any]) -> None:
        got = [v.type for v in values]
        if got != list(types):
            raise self.fail(
                op,
                f"{op.kind} passes ({', '.join(map(type_repr, got))}) where "
                f"({', '.join(map(type_repr, types))}) is expected",
            )
