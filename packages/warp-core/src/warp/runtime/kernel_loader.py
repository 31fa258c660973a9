"""Getting a kernel's machine code: from the disk cache, or by running the compiler pipeline.

A kernel has two parts, each its own cached object: the forward code, loaded on first launch,
and the adjoint, compiled only when first needed (an adjoint launch or ``tape.backward``), so
kernels that are never differentiated never pay for it.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from warp import config
from warp.compiler.hashing import kernel_hash


@dataclass
class KernelPart:
    """Loaded machine code of one part (forward or adjoint) of a kernel."""

    loaded: Any
    entry_contiguous: Any
    entry_strided: Any
    sites: list[dict[str, Any]]
    uses_print: bool
    status: str


@dataclass
class CompiledKernel:
    """A kernel loaded for one device: the forward part, and the adjoint part on demand."""

    kernel: Any
    device: Any
    debug: bool
    forward: KernelPart
    _adjoint: KernelPart | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def adjoint(self) -> KernelPart:
        """The adjoint part, compiled or loaded from the cache on first use."""
        if self._adjoint is None:
            with self._lock:
                if self._adjoint is None:
                    if not backward_enabled(self.kernel):
                        raise RuntimeError(
                            f"kernel '{self.kernel.name}' has no adjoint: backward code generation is "
                            "disabled for it (enable_backward=False) or no autodiff plugin is installed "
                            "(pip install warp-autodiff)"
                        )
                    self._adjoint = load_part(self.kernel, self.device, "adjoint", self.debug)
        return self._adjoint


def backward_enabled(kernel: Any) -> bool:
    """Whether adjoint code may be generated for ``kernel`` (kernel flag, module option, config)."""
    from warp.decorators import get_module_options
    from warp.plugins.manager import get_plugin_manager

    if kernel.enable_backward is not None:
        wanted = kernel.enable_backward
    else:
        wanted = get_module_options(kernel.module).get("enable_backward", config.enable_backward)
    return bool(wanted) and bool(get_plugin_manager().hook.warp_adjoint_function.get_hookimpls())


def load_part(kernel: Any, device: Any, part: str, debug: bool) -> KernelPart:
    """Load one part of ``kernel``, compiling it on a cache miss; logs one line."""
    from warp.runtime.cache import kernel_cache_for
    from warp.runtime.cpu_jit import entry_function, load_object, target_fingerprint

    start = time.perf_counter()
    key = kernel_hash(kernel, target=f"cpu:{target_fingerprint()}", options={"debug": debug, "part": part})
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
        from warp.compiler.pipeline import compile_kernel

        status = "compiled"
        compiled_object = compile_kernel(kernel, target="cpu", debug=debug, part=part)
        obj, meta = compiled_object.obj, compiled_object.meta
        cache.put(key, obj, meta)
        loaded = load_object(obj, list(meta["entries"].values()))
    entries = meta["entries"]
    result = KernelPart(
        loaded=loaded,
        entry_contiguous=entry_function(loaded.address(entries["contiguous"])),
        entry_strided=entry_function(loaded.address(entries["strided"])),
        sites=meta["sites"],
        uses_print=meta["uses_print"],
        status=status,
    )
    if not config.quiet:
        elapsed = (time.perf_counter() - start) * 1000.0
        what = "" if part == "forward" else f" ({part})"
        print(f"Module {kernel.module} {key[:7]}{what} load on device '{device}' took {elapsed:.2f} ms  ({status})")
    return result


def load_kernel(kernel: Any, device: Any) -> CompiledKernel:
    """Load the forward code of ``kernel`` for ``device`` (CPU only for now)."""
    from warp.plugins.manager import load_plugins

    if not getattr(device, "is_cpu", False):
        raise RuntimeError(f"kernel '{kernel.name}': launching on device '{device}' is not supported yet (CPU only)")
    load_plugins()
    debug = config.mode == "debug"
    return CompiledKernel(kernel=kernel, device=device, debug=debug, forward=load_part(kernel, device, "forward", debug))
