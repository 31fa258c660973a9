"""On-disk cache of compiled kernel modules: object code plus JSON metadata, keyed by a hex hash.

One file per entry, named ``<key>.wpk`` with the full key::

    magic     8 bytes   b"WARPKC01"
    meta_len  uint64 LE
    obj_len   uint64 LE
    checksum  32 bytes  sha256(key + meta + obj)
    meta      meta_len bytes of UTF-8 JSON
    obj       obj_len bytes of object code

Entries are written to a temporary file in the cache directory and renamed into place
(``os.replace``), so readers never see a partial entry and concurrent writers of the same key
simply replace each other's identical result. A damaged entry (bad magic, wrong length or
checksum) is deleted and reported as a miss. If the directory cannot be created, read or written
the cache disables itself with a warning; compilation still works without it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import struct
import tempfile
import threading
import warnings

import warp.config
from warp.compiler import reads_index

_MAGIC = b"WARPKC01"
_HEADER = struct.Struct("<8sQQ32s")
_SUFFIX = ".wpk"
_TEMP_PREFIX = ".tmp-"
_KEY_RE = re.compile(r"^[0-9a-f]{32,128}$")


def _read_regular_file(path: str) -> bytes | None:
    """The contents of ``path``, or None if it is not a regular file (a FIFO, a socket, a
    device: such an entry is damaged; a directory raises ``IsADirectoryError``). Opened without
    blocking, so that a FIFO cannot hang the process waiting for a writer."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(21, "Is a directory", path)
        if not stat.S_ISREG(mode):
            return None
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        with os.fdopen(fd, "rb") as f:
            fd = -1  # owned by f now
            return f.read()
    finally:
        if fd >= 0:
            os.close(fd)


class KernelCacheWarning(RuntimeWarning):
    """The kernel cache could not be used (it is disabled; kernels are compiled every time)."""


def _checksum(key: str, meta: bytes, obj: bytes) -> bytes:
    h = hashlib.sha256()
    h.update(key.encode("ascii"))
    h.update(meta)
    h.update(obj)
    return h.digest()


class KernelCache:
    """A directory of compiled modules keyed by hex content hashes (see the module docstring)."""

    def __init__(self, directory: str):
        self.directory = os.path.abspath(os.path.expanduser(directory))
        self._disabled_reason: str | None = None
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        """False once the directory turned out to be unusable."""
        return self._disabled_reason is None

    def _disable(self, reason: str) -> None:
        with self._lock:
            if self._disabled_reason is not None:
                return
            self._disabled_reason = reason
        warnings.warn(
            f"kernel cache disabled ({reason}); kernels will be compiled without caching. "
            "Set warp.config.kernel_cache_dir or WARP_CACHE_PATH to a writable directory.",
            KernelCacheWarning,
            stacklevel=3,
        )

    def path_for(self, key: str) -> str:
        """The file holding the entry for ``key``."""
        return os.path.join(self.directory, _normalize_key(key) + _SUFFIX)

    def get(self, key: str) -> tuple[bytes, dict] | None:
        """The ``(object bytes, metadata)`` stored under ``key``, or None on a miss.

        Never raises for I/O problems or damaged entries: a damaged entry is deleted and missed.
        """
        path = self.path_for(key)
        if not self.enabled or not warp.config.cache_kernels:
            return None
        try:
            data = _read_regular_file(path)
        except FileNotFoundError:
            return None
        except OSError as e:
            self._disable(f"cannot read {path}: {e.strerror or e}")
            return None
        entry = None if data is None else _decode(_normalize_key(key), data)
        if entry is None:
            _remove_quietly(path)
            if warp.config.verbose or warp.config.log_level <= warp.config.LOG_WARNING:
                print(f"Warp: removed damaged kernel cache entry {path}")
        return entry

    def put(self, key: str, obj: bytes, meta: dict) -> None:
        """Store ``obj`` and ``meta`` (JSON-serializable) under ``key``, atomically."""
        key = _normalize_key(key)
        meta_bytes = json.dumps(meta, sort_keys=True, separators=(",", ":")).encode("utf-8")
        obj = bytes(obj)
        if not self.enabled or not warp.config.cache_kernels:
            return
        header = _HEADER.pack(_MAGIC, len(meta_bytes), len(obj), _checksum(key, meta_bytes, obj))
        try:
            os.makedirs(self.directory, exist_ok=True)
            prefix = _TEMP_PREFIX + key[:16] + "-"
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=prefix, suffix=".part")
        except OSError as e:
            self._disable(f"cannot write to {self.directory}: {e.strerror or e}")
            return
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(header)
                f.write(meta_bytes)
                f.write(obj)
            os.replace(tmp, os.path.join(self.directory, key + _SUFFIX))
        except OSError as e:
            _remove_quietly(tmp)
            self._disable(f"cannot write to {self.directory}: {e.strerror or e}")

    def remove(self, key: str) -> None:
        """Delete the entry for ``key`` if present."""
        _remove_quietly(self.path_for(key))

    def keys(self) -> list[str]:
        """Keys of the entries currently in the directory."""
        try:
            names = os.listdir(self.directory)
        except OSError:
            return []
        stems = (n[: -len(_SUFFIX)] for n in names if n.endswith(_SUFFIX))
        return sorted(k for k in stems if _KEY_RE.match(k))

    def clear(self) -> None:
        """Delete every entry, leftover temporary file and file of the sources' index
        (:mod:`warp.compiler.reads_index`); the directories themselves are kept."""
        try:
            names = os.listdir(self.directory)
        except OSError:
            return
        for n in names:
            if (n.endswith(_SUFFIX) and _KEY_RE.match(n[: -len(_SUFFIX)])) or n.startswith(_TEMP_PREFIX):
                _remove_quietly(os.path.join(self.directory, n))
        index = os.path.join(self.directory, reads_index.SUBDIRECTORY)  # what sources read
        try:
            names = os.listdir(index)
        except OSError:
            return
        for n in names:
            if n.endswith(".json") or n.startswith(_TEMP_PREFIX):
                _remove_quietly(os.path.join(index, n))
        reads_index.forget()

    def __repr__(self) -> str:
        state = "enabled" if self.enabled else f"disabled: {self._disabled_reason}"
        return f"KernelCache({self.directory!r}, {state})"


def _normalize_key(key: str) -> str:
    k = str(key).lower()
    if not _KEY_RE.match(k):
        raise ValueError(f"kernel cache key must be a hex digest (32-128 hex digits), got {key!r}")
    return k


def _decode(key: str, data: bytes) -> tuple[bytes, dict] | None:
    """Parse and check one entry file; None if it is damaged in any way."""
    if len(data) < _HEADER.size:
        return None
    magic, meta_len, obj_len, checksum = _HEADER.unpack_from(data, 0)
    if magic != _MAGIC or _HEADER.size + meta_len + obj_len != len(data):
        return None
    meta_bytes = data[_HEADER.size : _HEADER.size + meta_len]
    obj = data[_HEADER.size + meta_len :]
    if _checksum(key, meta_bytes, obj) != checksum:
        return None
    try:
        meta = json.loads(meta_bytes.decode("utf-8"))
    except ValueError:
        return None
    if not isinstance(meta, dict):
        return None
    return obj, meta


def _remove_quietly(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass


_caches: dict[str, KernelCache] = {}
_caches_lock = threading.Lock()


def cache_directory(config_dir: str | None = None) -> str:
    """The cache directory in effect: ``config_dir``, else ``warp.config.kernel_cache_dir``, else
    :func:`warp.config.default_cache_dir` (read at call time)."""
    return config_dir or warp.config.kernel_cache_dir or warp.config.default_cache_dir()


def kernel_cache_for(config_dir: str | None = None) -> KernelCache:
    """The :class:`KernelCache` of :func:`cache_directory` (one shared instance per directory)."""
    directory = os.path.abspath(os.path.expanduser(cache_directory(config_dir)))
    with _caches_lock:
        cache = _caches.get(directory)
        if cache is None:
            cache = _caches[directory] = KernelCache(directory)
        return cache
