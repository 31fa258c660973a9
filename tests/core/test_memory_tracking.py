"""Allocation tracking: wp.ScopedMemoryTracker, wp.print_memory_report, wp.config.track_memory."""

from __future__ import annotations

import gc
import io
import re
import threading

import pytest

import warp as wp
from warp.runtime import memory_tracking


def _live_bytes(text: str) -> int:
    return int(re.search(r"Live allocations:\s+(\d+) \((\d+) bytes\)", text).group(2))


def test_scoped_tracker_counts_allocations_frees_and_nested_scopes():
    with wp.ScopedMemoryTracker("outer", print=False) as outer:
        outer.clear()
        a = wp.zeros(32, dtype=wp.float32)
        with wp.ScopedMemoryTracker("inner", print=False) as inner:
            b = wp.zeros((4, 5), dtype=wp.float64)
        buf = io.StringIO()
        outer.report(file=buf)
        text = buf.getvalue()
        assert "Allocation Tracking Report (scope 'outer')" in text
        assert "Total allocations: 2 (288 bytes)" in text
        assert _live_bytes(text) == 32 * 4 + 20 * 8
        assert "array[float32, 32]" in text and "array[float64, 4, 5]" in text
        assert "outer/inner: 1 allocations, 160 bytes" in text
        inner_buf = io.StringIO()
        inner.report(file=inner_buf)
        assert "array[float32, 32]" not in inner_buf.getvalue()
        del a
        gc.collect()
        buf = io.StringIO()
        outer.report(file=buf)
        assert _live_bytes(buf.getvalue()) == 160
        assert "peak: 288 bytes" in buf.getvalue()
    after = io.StringIO()
    outer.report(file=after)  # still readable after the block
    assert _live_bytes(after.getvalue()) == 160
    del b


def test_clear_resets_counters():
    with wp.ScopedMemoryTracker("c", print=False) as tracker:
        keep = wp.zeros(10)
        tracker.clear()
        buf = io.StringIO()
        tracker.report(file=buf)
    assert "Total allocations: 0 (0 bytes)" in buf.getvalue()
    del keep


def test_scopes_are_per_thread():
    arrays = []

    def worker(name):
        with wp.ScopedMemoryTracker(name, print=False):
            with wp.ScopedMemoryTracker("inner", print=False):
                arrays.append(wp.zeros(8))

    with wp.ScopedMemoryTracker("root", print=False) as root:
        threads = [threading.Thread(target=worker, args=(f"t{i}",)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        text = memory_tracking.report_text()
    assert "t0/inner" in text and "t1/inner" in text and "root/t0" not in text
    assert root.path == "root"


def test_print_memory_report_needs_tracking(monkeypatch):
    monkeypatch.setattr(wp.config, "track_memory", False)
    with pytest.raises(RuntimeError, match="memory tracking is not active"):
        wp.print_memory_report()
    monkeypatch.setattr(wp.config, "track_memory", True)
    x = wp.zeros(3)
    buf = io.StringIO()
    wp.print_memory_report(file=buf)
    assert "array[float32, 3]" in buf.getvalue()
    del x


def test_exit_prints_the_scope_report(capsys):
    with wp.ScopedMemoryTracker("printed"):
        x = wp.zeros(2)
    assert "Allocation Tracking Report (scope 'printed')" in capsys.readouterr().out
    del x
