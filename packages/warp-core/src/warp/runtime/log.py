"""What the runtime prints while it works (all of it silenced by ``wp.config.quiet``).

- once per process, before the first kernel loads (or at ``wp.init()``): a start-up line with
  the version, the devices and the kernel cache directory;
- one line per module and device: the first load of a kernel of a module on a device prints
  ``Module <name> <hash> load on device 'cpu' took 12.34 ms  (compiled)``; loading the other
  kernels and adjoints of that module later is silent. ``wp.load_module`` / ``force_load`` print
  one line per module for all its kernels;
- a progress line when a compile has been running for :data:`PROGRESS_AFTER_S` seconds;
- with ``wp.config.verbose``: a line for every kernel part, saying whether it came from the
  cache, or why it was compiled (not in the cache; options changed since the last compile of the
  kernel in this process, and which).
"""

from __future__ import annotations

import contextlib
import dataclasses
import platform
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Iterator

from warp import config
from warp.runtime.cache import cache_directory, kernel_cache_for
from warp.startup import banner
from warp.runtime.devices import get_devices

#: seconds a compile runs before a progress line (on stderr, as a status message: the program's
#: own output on stdout stays as it would be without it) says what is being compiled
PROGRESS_AFTER_S = 1.0

_lock = threading.Lock()
_announced = False
_logged_modules: set[tuple[str, str]] = set()
#: (module, kernel key, part, device) -> options of the last compile in this process
_last_options: dict[tuple[str, str, str, str], Any] = {}
_local = threading.local()


def _device_rows() -> list[tuple[str, str]]:
    rows = []
    for device in get_devices():
        name = (platform.machine() or "cpu") if device.is_cpu else device.name
        rows.append((device.alias, name))
    return rows


def _silent() -> bool:
    """Whether informational lines are off (``wp.config.quiet``, or ``log_level`` above LOG_INFO)."""
    return bool(config.quiet) or config.log_level > config.LOG_INFO


def startup_text() -> str:
    """The start-up line (several lines: version, devices, kernel cache directory)."""
    cache = kernel_cache_for(None)
    enabled = cache.enabled and config.cache_kernels
    return banner(config.version, _device_rows(), cache_directory(), enabled)


def announce(force: bool = False) -> None:
    """Print :func:`startup_text` once per process (``force``: again), unless ``config.quiet``."""
    global _announced
    if _announced and not force:  # the common case, without the lock
        return
    with _lock:
        if _announced and not force:
            return
        _announced = True
    if not _silent():
        print(startup_text())


@dataclass
class _ModuleBatch:
    """Part loads collected while ``wp.load_module`` loads one module on one device."""

    module: str
    device: str
    statuses: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)


@contextlib.contextmanager
def module_load(module: str, device: Any) -> Iterator[None]:
    """Collect the loads of a module's kernels into one line printed at the end."""
    batch = _ModuleBatch(module, str(device))
    outer = getattr(_local, "batch", None)
    _local.batch = batch
    start = time.perf_counter()
    try:
        yield
    finally:
        _local.batch = outer
    if batch.statuses:
        with _lock:
            _logged_modules.add((module, str(device)))
        _print_module_line(module, batch.keys[0], "", str(device), (time.perf_counter() - start) * 1e3,
                           _summary(batch.statuses))


def _summary(statuses: list[str]) -> str:
    kinds = sorted(set(statuses))
    if len(kinds) == 1:
        return kinds[0]
    return ", ".join(f"{statuses.count(k)} {k}" for k in kinds)


def _print_module_line(module: str, key: str, what: str, device: str, elapsed_ms: float, status: str) -> None:
    if not _silent():
        took = f"took {elapsed_ms:.2f} ms  ({status})"
        print(f"Module {module} {key[:7]}{what} load on device '{device}' {took}")


def _options_change(previous: Any, options: Any) -> str:
    if previous is None or not dataclasses.is_dataclass(options):
        return ""
    changed = [
        f"{f.name} {getattr(previous, f.name)!r} -> {getattr(options, f.name)!r}"
        for f in dataclasses.fields(options)
        if getattr(previous, f.name) != getattr(options, f.name)
    ]
    return f"; options changed since the last compile: {', '.join(changed)}" if changed else ""


def compile_reason(kernel: Any, part: str, device: Any, options: Any, hit: bool) -> str:
    """Why ``kernel``'s ``part`` is compiled (or that it came from the cache), for verbose output."""
    slot = (str(kernel.module), str(getattr(kernel, "key", kernel.name)), part, str(device))
    with _lock:
        previous = _last_options.get(slot)
        if not hit:
            _last_options[slot] = options
    if hit:
        return "cache hit"
    if not config.cache_kernels:
        return "compiling (wp.config.cache_kernels is False)" + _options_change(previous, options)
    return "cache miss, compiling" + _options_change(previous, options)


def part_loaded(kernel: Any, device: Any, part: str, key: str, status: str, elapsed_ms: float,
                reason: str) -> None:
    """Report one loaded kernel part (see the module docstring for what is printed when)."""
    if _silent():
        return
    what = "" if part == "forward" else f" ({part})"
    if config.verbose:
        print(f"Warp: kernel '{kernel.name}'{what} of module {kernel.module} on '{device}' "
              f"[{key[:7]}]: {reason}; {elapsed_ms:.2f} ms")
    batch = getattr(_local, "batch", None)
    if batch is not None and batch.module == str(kernel.module) and batch.device == str(device):
        batch.statuses.append(status)
        batch.keys.append(key)
        return
    slot = (str(kernel.module), str(device))
    with _lock:
        first = slot not in _logged_modules
        _logged_modules.add(slot)
    if first:
        _print_module_line(str(kernel.module), key, what, str(device), elapsed_ms, status)


@contextlib.contextmanager
def compile_progress(kernel: Any, part: str, device: Any) -> Iterator[None]:
    """Print a line if compiling ``kernel`` takes longer than :data:`PROGRESS_AFTER_S`."""
    what = "" if part == "forward" else f" ({part})"

    def still_compiling() -> None:
        if not _silent():
            print(f"Warp: compiling kernel '{kernel.name}'{what} of module {kernel.module} for device "
                  f"'{device}' (more than {PROGRESS_AFTER_S:g} s so far)...", file=sys.stderr, flush=True)

    timer = threading.Timer(PROGRESS_AFTER_S, still_compiling)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def forget() -> None:
    """Forget which modules were reported (the next load of each prints its line again)."""
    with _lock:
        _logged_modules.clear()
        _last_options.clear()
