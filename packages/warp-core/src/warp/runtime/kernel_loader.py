"""Getting a kernel's machine code: from the disk cache, or by running the compiler pipeline."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from warp import config
from warp.compiler.abi import buffer_format
from warp.compiler.hashing import kernel_hash


@dataclass
class CompiledKernel:
    """A kernel loaded for one device: entry points plus launch metadata."""

    kernel: Any
    device: Any
    loaded: Any
    entry_contiguous: Any
    entry_strided: Any
    arg_format: str
    adjoint_contiguous: Any
    adjoint_strided: Any
    sites: list[dict[str, Any]]
    uses_print: bool
    debug: bool
    status: str


def backward_enabled(kernel: Any) -> bool:
    """Whether adjoint code is generated for ``kernel`` (kernel flag, module option, global config)."""
    from warp.decorators import get_module_options
    from warp.plugins.manager import get_plugin_manager

    if kernel.enable_backward is not None:
        wanted = kernel.enable_backward
    else:
        wanted = get_module_options(kernel.module).get("enable_backward", config.enable_backward)
    return bool(wanted) and bool(get_plugin_manager().hook.warp_adjoint_function.get_hookimpls())


def load_kernel(kernel: Any, device: Any) -> CompiledKernel:
    """Load ``kernel`` for ``device`` (CPU), compiling it on a cache miss; logs one line."""
    from warp.plugins.manager import load_plugins
    from warp.runtime.cache import kernel_cache_for
    from warp.runtime.cpu_jit import entry_function, load_object, target_fingerprint

    if not getattr(device, "is_cpu", False):
        raise RuntimeError(f"kernel '{kernel.name}': launching on device '{device}' is not supported yet (CPU only)")
    load_plugins()
    start = time.perf_counter()
    debug = config.mode == "debug"
    backward = backward_enabled(kernel)
    key = kernel_hash(kernel, target=f"cpu:{target_fingerprint()}", options={"debug": debug, "backward": backward})
    cache = kernel_cache_for(config.kernel_cache_dir)
    hit = cache.get(key)
    loaded = None
    status = "cached"
    if hit is not None:
        obj, meta = hit
        try:
            loaded = load_object(obj, list(meta["entries"].values()))
        except Exception:  # an entry that passes its checksum but does not load: recompile
            loaded = None
    if loaded is None:
        status = "compiled"
        from warp.compiler.pipeline import compile_kernel

        compiled_object = compile_kernel(kernel, target="cpu", debug=debug, backward=backward)
        obj, meta = compiled_object.obj, compiled_object.meta
        cache.put(key, obj, meta)
        loaded = load_object(obj, list(meta["entries"].values()))
    entries = meta["entries"]
    compiled = CompiledKernel(
        kernel=kernel,
        device=device,
        loaded=loaded,
        entry_contiguous=entry_function(loaded.address(entries["contiguous"])),
        entry_strided=entry_function(loaded.address(entries["strided"])),
        arg_format=buffer_format(kernel.arg_types),
        adjoint_contiguous=_optional_entry(loaded, entries.get("adjoint_contiguous")),
        adjoint_strided=_optional_entry(loaded, entries.get("adjoint_strided")),
        sites=meta["sites"],
        uses_print=meta["uses_print"],
        debug=debug,
        status=status,
    )
    if not config.quiet:
        elapsed = (time.perf_counter() - start) * 1000.0
        print(f"Module {kernel.module} {key[:7]} load on device '{device}' took {elapsed:.2f} ms  ({status})")
    return compiled


def _optional_entry(loaded: Any, symbol: str | None) -> Any:
    from warp.runtime.cpu_jit import entry_function

    return entry_function(loaded.address(symbol)) if symbol else None
