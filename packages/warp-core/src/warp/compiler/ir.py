"""The typed intermediate representation.

A :class:`Function` holds a :class:`Region` (a list of :class:`Op`). Every value is an SSA
:class:`Value` defined exactly once, either by an op or as a region parameter. Control flow is
structured (MLIR ``scf`` style), which is what lets a reverse-mode transform walk a function
backwards region by region:

``if``     args ``[cond]``; regions ``[then, else]``; each region ends with ``yield`` of the
           values merged into the op's results (variables assigned in either branch).
``for``    args ``[start, stop, step, *init]``; region ``[body]`` with params ``[i, *carried]``;
           body ends with ``yield`` of the next carried values; results are the final values.
``while``  args ``[*init]``; regions ``[cond, body]``, both with params ``[*carried]``; ``cond``
           ends with ``condition(flag, *carried)``, ``body`` with ``yield``.
``break``/``continue`` carry the loop's carried values at that point; ``return`` its results.

Other ops: ``const`` (attr ``value``), ``call`` (attr ``overload``: a registry Overload, one op
per builtin call), ``call_func`` (attr ``func``: a specialized user function). Ops carry the
source location they came from, used in error messages and debug checks.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Iterator

from warp.errors import SourceLoc
from warp.types.scalars import type_repr

_ids = itertools.count()


class Value:
    """An SSA value: its type and, for literals, the compile-time constant it holds."""

    __slots__ = ("type", "name", "id", "const", "weak", "literal")

    def __init__(self, type: Any, name: str = "", const: Any = None, weak: bool = False):
        self.type = type
        self.name = name
        self.id = next(_ids)
        #: Python value when the value is a compile-time constant, else None
        self.const = const
        #: True for an untyped literal that may adopt a partner operand's type
        self.weak = weak
        #: True for a constant written as a Python literal, also once bound to a name (``x = 0.1``)
        self.literal = weak

    @property
    def is_const(self) -> bool:
        return self.const is not None

    def __repr__(self) -> str:
        label = self.name or "v"
        return f"%{label}{self.id}:{type_repr(self.type)}"


@dataclass
class Region:
    """A list of ops with block parameters (loop variables, carried values)."""

    params: list[Value] = field(default_factory=list)
    ops: list[Op] = field(default_factory=list)

    @property
    def terminator(self) -> Op | None:
        if self.ops and self.ops[-1].kind in TERMINATORS:
            return self.ops[-1]
        return None


@dataclass
class Op:
    """One operation: kind, operands, results, attributes and nested regions."""

    kind: str
    args: list[Value] = field(default_factory=list)
    results: list[Value] = field(default_factory=list)
    attrs: dict[str, Any] = field(default_factory=dict)
    regions: list[Region] = field(default_factory=list)
    loc: SourceLoc | None = None

    @property
    def result(self) -> Value:
        return self.results[0]

    def __repr__(self) -> str:
        return format_op(self)


TERMINATORS = frozenset({"yield", "break", "continue", "return", "condition"})


@dataclass(frozen=True)
class KernelVariants:
    """A faster version of a kernel and the per-launch test of whether it may run.

    ``guard`` is a kernel-shaped function returning ``bool`` (evaluated once per launch, at thread
    0); where it holds, targets with :attr:`~warp.targets.base.Target.entry_variants` run ``fast``
    instead of the kernel's body. Made by passes (the autodiff transform, for adjoints whose loops
    fit their stored iterations); lowered by :func:`warp.compiler.lowering.kernel.lower_kernel`.
    """

    guard: Function
    fast: Function


@dataclass
class Function:
    """A kernel or a specialized user function in IR form."""

    name: str
    params: list[Value]
    param_names: list[str]
    body: Region
    return_types: list[Any]
    is_kernel: bool
    loc: SourceLoc | None = None
    #: unique symbol used in the LLVM module
    symbol: str = ""
    #: the ``@wp.func`` (warp.functions.Function) this was translated from, if any: autodiff looks
    #: up its custom gradient / replay definitions (``@wp.func_grad``, ``@wp.func_replay``)
    origin: Any = None
    #: per-launch scratch memory the launcher must provide (its address goes in the launch
    #: header, :data:`warp.compiler.abi.HEADER_SCRATCH_OFFSET`), as ``{"min_bytes_per_thread": n,
    #: ...}``; set by passes (reverse-mode adjoints storing loop iterations), None: none needed
    scratch: dict[str, Any] | None = None
    #: a faster version of the kernel with its guard (see :class:`KernelVariants`), or None
    variants: KernelVariants | None = None


def walk(region: Region) -> Iterator[Op]:
    """All ops of a region and its nested regions, in program order."""
    for op in region.ops:
        yield op
        for sub in op.regions:
            yield from walk(sub)


def format_op(op: Op, indent: str = "") -> str:
    """Readable text of one op (and its regions), for debugging and tests."""
    res = ", ".join(map(repr, op.results))
    head = f"{res} = " if res else ""
    name = op.kind
    if op.kind == "call":
        name = f"call {op.attrs['overload'].name}"
    elif op.kind == "call_func":
        name = f"call_func {op.attrs['func'].symbol}"
    elif op.kind == "const":
        name = f"const {op.attrs['value']!r}"
    text = f"{indent}{head}{name}({', '.join(map(repr, op.args))})"
    for region in op.regions:
        params = ", ".join(map(repr, region.params))
        text += f"\n{indent}  region({params}):"
        for sub in region.ops:
            text += "\n" + format_op(sub, indent + "    ")
    return text


def format_function(fn: Function) -> str:
    """Readable text of a whole function."""
    params = ", ".join(map(repr, fn.params))
    lines = [f"{'kernel' if fn.is_kernel else 'func'} {fn.symbol or fn.name}({params}):"]
    lines += [format_op(op, "  ") for op in fn.body.ops]
    return "\n".join(lines)
