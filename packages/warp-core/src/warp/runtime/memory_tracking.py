"""Tracking of array allocations: ``wp.config.track_memory``, ``wp.ScopedMemoryTracker`` and
``wp.print_memory_report``.

While tracking is on (``wp.config.track_memory = True``, or inside a ``ScopedMemoryTracker``
block) every array allocation is recorded with its size, device, kind (device, host or pinned
host memory), a label (``array[float32, 32]``) and the path of the tracker scopes open in the
allocating thread (``run/init``); freeing the array removes it from the live list. Reports list
totals, the peak, live memory per scope and the largest live allocations. When tracking is off
an allocation costs one test of a flag.
"""

from __future__ import annotations

import sys
import threading
import weakref
from dataclasses import dataclass
from typing import Any, TextIO

from warp import config

_lock = threading.Lock()
_local = threading.local()


@dataclass
class _Record:
    nbytes: int
    device: str
    kind: str
    label: str
    scope: str


class _Totals:
    def __init__(self) -> None:
        self.count = 0
        self.bytes = 0
        self.current = 0
        self.peak = 0
        self.live: dict[int, _Record] = {}
        self.next_key = 0
        self.open_scopes = 0


_totals = _Totals()


def is_tracking() -> bool:
    """True while allocations are recorded."""
    return bool(config.track_memory) or _totals.open_scopes > 0


def _scope_path() -> str:
    return "/".join(getattr(_local, "stack", ()))


def record_allocation(allocation: Any, label: str, kind: str) -> None:
    """Record ``allocation`` (a :class:`warp.targets.base.Allocation`) until it is freed."""
    record = _Record(int(allocation.nbytes), str(allocation.device), kind, label, _scope_path())
    with _lock:
        key = _totals.next_key
        _totals.next_key += 1
        _totals.live[key] = record
        _totals.count += 1
        _totals.bytes += record.nbytes
        _totals.current += record.nbytes
        _totals.peak = max(_totals.peak, _totals.current)
    weakref.finalize(allocation, _freed, key)


def _freed(key: int) -> None:
    with _lock:
        record = _totals.live.pop(key, None)
        if record is not None:
            _totals.current -= record.nbytes


def clear() -> None:
    """Forget every recorded allocation and reset the counters (live arrays stay allocated)."""
    with _lock:
        _totals.live.clear()
        _totals.count = _totals.bytes = _totals.current = _totals.peak = 0


def report_text(scope: str | None = None, max_items: int = 10) -> str:
    """The report of the allocations made under ``scope`` (a path such as ``"run"``; None: all)."""
    with _lock:
        live = [r for r in _totals.live.values() if _under(r.scope, scope)]
        count, total, current, peak = _totals.count, _totals.bytes, _totals.current, _totals.peak
    title = "Allocation Tracking Report" + (f" (scope '{scope}')" if scope else "")
    lines = [title, "=" * len(title)]
    lines.append(f"Total allocations: {count} ({_size(total)})")
    lines.append(f"Live allocations:  {len(live)} ({_size(sum(r.nbytes for r in live))})")
    lines.append(f"Current bytes:     {_size(current)}; peak: {_size(peak)}")
    by_kind: dict[tuple[str, str], list[int]] = {}
    for r in live:
        by_kind.setdefault((r.device, r.kind), []).append(r.nbytes)
    if by_kind:
        lines.append("Live memory by device:")
        for (device, kind), sizes in sorted(by_kind.items()):
            lines.append(f"  {device} ({kind}): {len(sizes)} allocations, {_size(sum(sizes))}")
    by_scope: dict[str, list[int]] = {}
    for r in live:
        by_scope.setdefault(r.scope or "(no scope)", []).append(r.nbytes)
    if by_scope:
        lines.append("Live memory by scope:")
        for name, sizes in sorted(by_scope.items()):
            lines.append(f"  {name}: {len(sizes)} allocations, {_size(sum(sizes))}")
    if live:
        lines.append(f"Largest live allocations (up to {max_items}):")
        for r in sorted(live, key=lambda r: -r.nbytes)[:max_items]:
            where = r.scope or "(no scope)"
            lines.append(f"  {_size(r.nbytes):>12}  {r.label}  {r.device} ({r.kind})  {where}")
    return "\n".join(lines) + "\n"


def _under(path: str, scope: str | None) -> bool:
    return scope is None or path == scope or path.startswith(scope + "/")


def _size(n: int) -> str:
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= factor:
            return f"{n / factor:.2f} {unit}"
    return f"{n} bytes"


def print_memory_report(file: TextIO | None = None, max_items: int = 10) -> None:
    """Print the report of every tracked allocation (tracking must be on)."""
    if not is_tracking():
        raise RuntimeError(
            "memory tracking is not active: set wp.config.track_memory = True (before the "
            "allocations to track) or allocate inside a wp.ScopedMemoryTracker block"
        )
    print(report_text(None, max_items), end="", file=file or sys.stdout)


class ScopedMemoryTracker:
    """``with wp.ScopedMemoryTracker("name"):`` records the allocations of the block under the
    scope path ``outer/name`` (scopes nest per thread); prints the scope's report on exit unless
    ``print=False``. ``report()`` and ``clear()`` work during and after the block."""

    def __init__(self, name: str, print: bool = True):  # noqa: A002 - NVIDIA Warp's parameter name
        self.name = str(name)
        self.print = print
        self.path = self.name

    def __enter__(self) -> ScopedMemoryTracker:
        stack = getattr(_local, "stack", None)
        if stack is None:
            stack = _local.stack = []
        stack.append(self.name)
        self.path = "/".join(stack)
        with _lock:
            _totals.open_scopes += 1
        return self

    def __exit__(self, *exc: Any) -> None:
        _local.stack.pop()
        with _lock:
            _totals.open_scopes -= 1
        if self.print:
            self.report()

    def report(self, file: TextIO | None = None, max_items: int = 10) -> None:
        """Print the report of the allocations made in this scope (and the scopes inside it)."""
        print(report_text(self.path, max_items), end="", file=file or sys.stdout)

    def clear(self) -> None:
        """Reset all counters and forget the recorded allocations."""
        clear()
