"""How a kernel reads and writes its array arguments, as far as its adjoint is concerned.

The adjoint of a launch replays the kernel reading its arrays again, so it needs each array's
contents as the forward launch saw them wherever the reverse reads those values (see
:mod:`warp_autodiff.transform.needs`). For every array argument (and array field of a struct
argument) the summary says whether the kernel writes it (stores or atomics) and which contents
its needed reads see:

- ``"before"``: the values from before the launch (reads precede every write on each path);
- ``"after"``: the values the launch leaves (reads follow a write, or ``atomic_min/max``, whose
  rule compares contributions with the final value);
- ``"mixed"``: both, e.g. a loop reading an element that an earlier iteration overwrote; no
  single copy of the array serves the adjoint, so :class:`~warp_autodiff.tape.Tape` refuses to
  differentiate such a launch.

Reads whose values the reverse never uses (``a[i] = a[i] * 2``) are not counted: the gradient
through them is exact whatever the array holds later (the store's adjoint consumes the slot).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any

from warp.extending import ir, kernel_ir

from warp_autodiff.transform.needs import needed_values

Root = tuple[int, tuple[str, ...]]  # (parameter index, struct field path)

_WRITES = {"array_store", "atomic_add", "atomic_sub", "atomic_min", "atomic_max", "atomic_exch", "atomic_cas",
           "atomic_and", "atomic_or", "atomic_xor"}
_READS_FINAL = {"atomic_min", "atomic_max"}


def _where(op: ir.Op | None) -> str:
    loc = op.loc if op is not None else None
    if loc is None:
        return "?"
    text = f"{loc.file}:{loc.line}"
    return text + (f" ({loc.text.strip()})" if loc.text else "")


def _field_name(op: ir.Op) -> str:
    """Name of the struct field a ``struct_get`` reads (its attribute holds the index)."""
    field_ = op.attrs.get("field")
    if isinstance(field_, int):
        return op.args[0].type._fields_[field_][0]
    return str(field_)


@dataclass
class ArrayUse:
    """What one kernel does with one array argument (see the module docstring)."""

    writes: bool = False
    first_write: str = ""
    before: str = ""  # location of a needed read that sees the pre-launch values
    after: str = ""  # location of a needed read that sees values written by the launch

    @property
    def need(self) -> str | None:
        if self.before and self.after:
            return "mixed"
        return "before" if self.before else "after" if self.after else None


@dataclass
class KernelAccess:
    """Array uses of one kernel, by (parameter index, struct field path)."""

    name: str
    uses: dict[Root, ArrayUse] = field(default_factory=dict)

    def use(self, root: Root) -> ArrayUse:
        return self.uses.setdefault(root, ArrayUse())


class _Walker:
    """Walks one function in program order, tracking which roots were written on the way."""

    def __init__(self, fn: ir.Function, roots: dict[int, Root], access: KernelAccess, needed: set[int]):
        self.fn = fn
        self.roots = roots
        #: structs built in the function (``S(a, b)``, ``s.a = a``): field name -> root of its array
        self.built: dict[int, dict[str, Root]] = {}
        self.access = access
        self.needed = needed

    def root(self, value: ir.Value) -> Root | None:
        return self.roots.get(id(value))

    def read(self, root: Root, op: ir.Op, written: set[Root], final: bool = False) -> None:
        use = self.access.use(root)
        if final or root in written:
            use.after = use.after or _where(op)
        else:
            use.before = use.before or _where(op)

    def write(self, root: Root, op: ir.Op, written: set[Root]) -> None:
        use = self.access.use(root)
        use.writes = True
        use.first_write = use.first_write or _where(op)
        written.add(root)

    def region(self, region: ir.Region, written: set[Root]) -> set[Root]:
        for op in region.ops:
            written = self.op(op, written)
        return written

    def op(self, op: ir.Op, written: set[Root]) -> set[Root]:
        if op.kind == "call":
            self.call(op, written)
        elif op.kind == "call_func":
            self.call_func(op, written)
        elif op.kind == "if":
            return self.region(op.regions[0], set(written)) | self.region(op.regions[1], set(written))
        elif op.kind in ("for", "while"):
            # twice: the second pass sees what earlier iterations wrote
            for _ in range(2):
                for sub in op.regions:
                    written = self.region(sub, written)
        return written

    def call(self, op: ir.Op, written: set[Root]) -> None:
        name = op.attrs["overload"].name
        root = self.root(op.args[0]) if op.args else None
        if name == "struct_set" and root is None:
            fields = dict(self.built.get(id(op.args[0]), {}))
            value_root = self.root(op.args[1])
            if value_root is not None:
                fields[_field_name(op)] = value_root
            else:
                fields.pop(_field_name(op), None)
            self.built[id(op.results[0])] = fields
            return
        if name == "struct_get" and root is None and id(op.args[0]) in self.built:
            field_root = self.built[id(op.args[0])].get(_field_name(op))
            if field_root is not None:
                self.roots[id(op.results[0])] = field_root
            return
        if name in ("array_view", "array_slice", "array_select", "view", "struct_get") and root is not None:
            extra = (_field_name(op),) if name == "struct_get" else ()
            for r in op.results:
                self.roots[id(r)] = (root[0], root[1] + extra)
            return
        if root is None:
            return
        if name == "array_load" and any(id(r) in self.needed for r in op.results):
            self.read(root, op, written)
        elif name in _WRITES:
            self.write(root, op, written)
            if name in _READS_FINAL:
                self.read(root, op, written, final=True)

    def call_func(self, op: ir.Op, written: set[Root]) -> None:
        callee = function_access(op.attrs["func"])
        after_writes: list[tuple[Root, ArrayUse]] = []
        for (k, path), use in callee.uses.items():
            base = self.root(op.args[k]) if k < len(op.args) else None
            if base is None:
                continue
            root = (base[0], base[1] + path)
            target = self.access.use(root)
            if use.before:
                if root in written:
                    target.after = target.after or use.before
                else:
                    target.before = target.before or use.before
            if use.after:
                target.after = target.after or use.after
            if use.writes:
                after_writes.append((root, use))
        for root, use in after_writes:
            target = self.access.use(root)
            target.writes = True
            target.first_write = target.first_write or use.first_write
            written.add(root)


def _summarize(fn: ir.Function, extra_needed: list[ir.Value]) -> KernelAccess:
    access = KernelAccess(fn.name)
    roots: dict[int, Root] = {}
    for k, p in enumerate(fn.params):
        roots[id(p)] = (k, ())
    walker = _Walker(fn, roots, access, needed_values(fn, extra_needed))
    walker.region(fn.body, set())
    return access


_functions: dict[int, tuple[ir.Function, KernelAccess]] = {}


def function_access(fn: ir.Function) -> KernelAccess:
    """Array uses of a user function (its returned values count as needed by the caller)."""
    hit = _functions.get(id(fn))
    if hit is None or hit[0] is not fn:
        returns = [a for op in ir.walk(fn.body) if op.kind == "return" for a in op.args]
        hit = (fn, _summarize(fn, returns))
        _functions[id(fn)] = hit
    return hit[1]


_kernels: weakref.WeakKeyDictionary[Any, KernelAccess] = weakref.WeakKeyDictionary()


def kernel_access(kernel: Any) -> KernelAccess:
    """Array uses of ``@wp.kernel`` ``kernel`` (built from its IR once, then cached)."""
    hit = _kernels.get(kernel)
    if hit is None:
        hit = _summarize(kernel_ir(kernel), [])
        _kernels[kernel] = hit
    return hit


__all__ = ["ArrayUse", "KernelAccess", "function_access", "kernel_access"]
