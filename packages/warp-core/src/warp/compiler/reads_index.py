"""What the cache key reads from each function's source, remembered per text of its source file.

The cache key of a kernel (:mod:`warp.compiler.hashing`) parses every function it reaches and
walks its tree for the names, attribute chains and one-argument calls it reads. That walk is a
pure function of the text of the file the function is cut from (and of the compiler's code), so
its result is kept: in this process, and on disk beside the kernel cache
(``<cache>/reads/<digest>.json``, one file per file text and compiler version). A warm load in
a new process then computes the key without parsing any source. Only the parse is skipped: the
key still resolves every name against the live objects (a changed constant, struct or called
function in any module still changes it); a function whose one-argument calls resolve to
``wp.static`` otherwise than when it was walked is walked again, and ``wp.static`` arguments
are kept as text (with their place in the source) and evaluated as the walk does.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from dataclasses import dataclass

import warp.config

_VERSION = "warp-reads-v2"
#: the index's directory inside the kernel cache directory
SUBDIRECTORY = "reads"


@dataclass(frozen=True)
class FunctionReads:
    """What the cache key reads from one function's source (see :class:`warp.compiler.hashing._Reads`)."""

    #: last line of the function in its file (its first line is the code's ``co_firstlineno``)
    end: int
    #: free names it loads, first occurrence of each, in walk order
    names: tuple[str, ...]
    #: parameters and assigned names
    local_names: frozenset[str]
    #: dotted attribute chains ``a.b.c``, first of each, in walk order
    attributes: tuple[str, ...]
    #: dotted callees of its one-argument calls outside statics, and whether each was ``wp.static``
    calls: tuple[tuple[str, bool], ...]
    #: its outermost ``wp.static`` arguments that read no local: text, line, column, end line, end column
    statics: tuple[tuple[str, int, int, int, int], ...] = ()

    def to_json(self) -> list:
        """The entry as JSON data."""
        return [
            self.end, list(self.names), sorted(self.local_names), list(self.attributes),
            [list(c) for c in self.calls], [list(s) for s in self.statics],
        ]

    @classmethod
    def from_json(cls, data: object) -> FunctionReads | None:
        """The entry read back, or None if ``data`` is not one."""
        if not (isinstance(data, list) and len(data) == 6 and type(data[0]) is int):
            return None
        end, names, local_names, attributes, calls, statics = data
        if not all(_is_strings(x) for x in (names, local_names, attributes)):
            return None
        if not (isinstance(calls, list) and all(_is_call(c) for c in calls)):
            return None
        if not (isinstance(statics, list) and all(_is_static(s) for s in statics)):
            return None
        return cls(
            end, tuple(names), frozenset(local_names), tuple(attributes),
            tuple((c[0], c[1]) for c in calls), tuple(tuple(s) for s in statics),
        )


def _is_strings(x: object) -> bool:
    return isinstance(x, list) and all(isinstance(s, str) for s in x)


def _is_call(c: object) -> bool:
    return isinstance(c, list) and len(c) == 2 and isinstance(c[0], str) and type(c[1]) is bool


def _is_static(s: object) -> bool:
    return (
        isinstance(s, list) and len(s) == 5 and isinstance(s[0], str) and all(type(v) is int for v in s[1:])
    )


#: digest of a file text -> "name:first line" -> what the function there reads
_memory: dict[str, dict[str, FunctionReads]] = {}
_lock = threading.Lock()


def file_digest(text_digest: str, compiler_version: str) -> str:
    """The index's name for a file whose text has sha256 ``text_digest``, under a compiler version."""
    return hashlib.sha256(f"{_VERSION}\0{compiler_version}\0{text_digest}".encode()).hexdigest()


def _directory() -> str:
    base = warp.config.kernel_cache_dir or warp.config.default_cache_dir()
    return os.path.join(os.path.abspath(os.path.expanduser(base)), SUBDIRECTORY)


def _read_disk(digest: str) -> dict[str, FunctionReads]:
    if not warp.config.cache_kernels:
        return {}
    try:
        with open(os.path.join(_directory(), digest + ".json"), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    out = {}
    for key, value in data.items():
        entry = FunctionReads.from_json(value)
        if entry is not None:
            out[key] = entry
    return out


def lookup(digest: str, name: str, first: int) -> FunctionReads | None:
    """What function ``name`` starting at line ``first`` of the file ``digest`` reads, if known."""
    entries = _memory.get(digest)
    if entries is None:
        entries = _read_disk(digest)
        with _lock:
            entries = _memory.setdefault(digest, entries)
    return entries.get(f"{name}:{first}")


def remember(digest: str, name: str, first: int, reads: FunctionReads) -> None:
    """Keep what a function reads, in memory and on disk (merged with what is there already;
    written atomically, silently skipped where the cache directory is not writable)."""
    key = f"{name}:{first}"
    with _lock:
        entries = _memory.setdefault(digest, {})
        entries[key] = reads
        merged = {**_read_disk(digest), **entries}
    if not warp.config.cache_kernels:
        return
    directory = _directory()
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".part")
    except OSError:
        return
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({k: v.to_json() for k, v in merged.items()}, f, separators=(",", ":"))
        os.replace(tmp, os.path.join(directory, digest + ".json"))
    except OSError:
        try:
            os.remove(tmp)
        except OSError:
            pass


def forget() -> None:
    """Drop what this process remembers (the disk index stays)."""
    with _lock:
        _memory.clear()
