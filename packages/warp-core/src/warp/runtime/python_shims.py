"""Compiled shims of builtin overloads for Python-scope calls: built, cached on disk, loaded.

The shim's object code is stored in the kernel cache under a content hash of the overload, the
argument types, the target and the compiler's fingerprint, so a later process loads it in about a
millisecond instead of compiling it again.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

from warp import config
from warp.compiler.registry import Resolution
from warp.compiler.hashing import compiler_fingerprint
from warp.compiler.python_shim import SHIM_SYMBOL, build_shim_function, lower_shim, shim_key
from warp.runtime.cache import kernel_cache_for
from warp.targets import target_for_kind
from warp.targets.cpu import jit as cpu_jit


@dataclass
class LoadedShim:
    """A loaded shim: its ctypes function (the loaded module kept alive with it) and result types."""

    function: Any
    result_types: list[Any]
    module: Any


def load_shim(name: str, resolution: Resolution) -> LoadedShim:
    """The shim computing builtin ``name`` for ``resolution``, from the cache or freshly compiled."""
    key = shim_key(resolution, f"cpu:{cpu_jit.target_fingerprint()}", compiler_fingerprint())
    cache = kernel_cache_for(config.kernel_cache_dir)
    fn = build_shim_function(name, resolution)  # cheap; also gives the result types
    loaded = None
    hit = cache.get(key)
    if hit is not None:
        try:
            loaded = cpu_jit.load_object(hit[0], [SHIM_SYMBOL], name=fn.symbol)
        except Exception:  # an entry that passes its checksum but does not load: recompile
            loaded = None
    if loaded is None:
        obj = cpu_jit.compile_ir(lower_shim(fn, target_for_kind("cpu")), name=fn.symbol)
        cache.put(key, obj, {"entries": {"shim": SHIM_SYMBOL}, "builtin": name})
        loaded = cpu_jit.load_object(obj, [SHIM_SYMBOL], name=fn.symbol)
    function = ctypes.CFUNCTYPE(None)(loaded.address(SHIM_SYMBOL))
    return LoadedShim(function=function, result_types=list(fn.return_types), module=loaded)
