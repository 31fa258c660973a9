"""Getting a kernel's code on a device: from the disk cache, or by running the compiler pipeline.

A kernel has two parts, each its own cached object: the forward code, loaded on first launch,
and the adjoint, compiled only when first needed (an adjoint launch or ``tape.backward``), so
kernels that are never differentiated never pay for it. The device's target
(:mod:`warp.targets.registry`) compiles and loads; the cache key covers the kernel, its
:class:`~warp.compiler.options.CompileOptions` and the target's fingerprint of the device.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from warp import config
from warp.compiler.hashing import kernel_hash
from warp.compiler.options import CompileOptions, resolve_options
from warp.errors import WarpCodegenError
from warp.plugins.install_hints import install_hint
from warp.plugins.manager import get_plugin_manager
from warp.runtime import log
from warp.targets import Target, get_target
from warp.runtime.cache import kernel_cache_for
from warp.compiler import pipeline
from warp.plugins.manager import load_plugins


@dataclass
class KernelPart:
    """Loaded code of one part (forward or adjoint) of a kernel."""

    loaded: Any
    entry_contiguous: Any
    entry_strided: Any
    sites: list[dict[str, Any]]
    uses_print: bool
    status: str
    options: CompileOptions
    #: per-launch scratch memory the part needs (``{"min_bytes_per_thread": ...}``), or None
    scratch: dict[str, Any] | None = None
    #: the vector entry (``vector_width`` thread indices per thread; see
    #: :mod:`warp.compiler.lowering.vector_entry`), or None
    entry_vector: Any = None
    vector_width: int = 0


@dataclass
class CompiledKernel:
    """A kernel loaded for one device: the forward part, and the adjoint part on demand."""

    kernel: Any
    device: Any
    debug: bool
    forward: KernelPart
    target: Target | None = None
    mode: str = "release"
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
                            f"({install_hint('warp-autodiff')})"
                        )
                    self._adjoint = load_part(self.kernel, self.device, "adjoint", self.mode)
        return self._adjoint


def backward_enabled(kernel: Any) -> bool:
    """Whether adjoint code may be generated for ``kernel`` (kernel flag, module option, config)."""
    if kernel.enable_backward is not None:
        wanted = kernel.enable_backward
    else:
        wanted = kernel.module.options.copy().get("enable_backward", config.enable_backward)
    return bool(wanted) and bool(get_plugin_manager().hook.warp_adjoint_function.get_hookimpls())


def _kernel_location(kernel: Any) -> str:
    code = getattr(getattr(kernel, "func", None), "__code__", None)
    return f" ({code.co_filename}:{code.co_firstlineno})" if code is not None else ""


def _load(target: Target, kernel: Any, device: Any, code: bytes, meta: dict[str, Any], store: Any) -> Any:
    """Load ``code`` on ``device``; a failure names the kernel and where it is defined."""
    try:
        return target.load(code, list(meta["entries"].values()), name=kernel.name, device=device, store=store)
    except WarpCodegenError as exc:
        detail = str(exc)
        externals = meta.get("externals", {})
        uses = [f"\n    '{s}' is called at {where}" for s, where in externals.items() if s in detail]
        raise WarpCodegenError(
            f"kernel '{kernel.name}'{_kernel_location(kernel)} failed to load on device '{device}': "
            f"{detail}{''.join(uses)}"
        ) from None


def load_part(kernel: Any, device: Any, part: str, mode: str | None = None) -> KernelPart:
    """Load one part of ``kernel`` on ``device``, compiling it on a cache miss (reported by :mod:`.log`)."""
    start = time.perf_counter()
    target = get_target(device)
    options = resolve_options(kernel, target=target, part=part, mode=mode)
    key = kernel_hash(kernel, options, target.fingerprint(device))
    cache = kernel_cache_for(config.kernel_cache_dir)
    hit = cache.get(key)
    loaded = None
    status = "cached"
    if hit is not None:
        code, meta = hit
        try:
            symbols = list(meta["entries"].values())
            loaded = target.load(code, symbols, name=kernel.name, device=device, store=cache)
        except Exception:  # an entry that passes its checksum but does not load: recompile
            loaded = None
    reason = log.compile_reason(kernel, part, device, options, hit=loaded is not None)
    if loaded is None:
        status = "compiled"
        with log.compile_progress(kernel, part, device):
            compiled_object = pipeline.compile_kernel(kernel, options, target, device, store=cache)
        code, meta = compiled_object.obj, compiled_object.meta
        loaded = _load(target, kernel, device, code, meta, cache)
        cache.put(key, code, meta)
    result = _kernel_part(loaded, meta, status, options)
    log.part_loaded(kernel, device, part, key, status, (time.perf_counter() - start) * 1000.0, reason)
    return result


def _kernel_part(loaded: Any, meta: dict[str, Any], status: str, options: CompileOptions) -> KernelPart:
    entries = meta["entries"]
    return KernelPart(
        loaded=loaded,
        entry_contiguous=loaded.entry(entries["contiguous"]),
        entry_strided=loaded.entry(entries["strided"]),
        sites=meta["sites"],
        uses_print=meta["uses_print"],
        status=status,
        options=options,
        scratch=meta.get("scratch"),
        entry_vector=loaded.entry(entries["vector"]) if "vector" in entries else None,
        vector_width=meta.get("vector_width", 0) if "vector" in entries else 0,
    )


def preload_kernels(kernels: list[Any], device: Any) -> list[CompiledKernel | None]:
    """The forward parts of ``kernels`` that are in the kernel cache, loaded on ``device`` together
    (:meth:`~warp.targets.base.Target.load_many`: one JIT link for all on the CPU); None for a
    kernel that is not in the cache or whose code did not load (:func:`load_kernel` then compiles
    it or reports why)."""
    start = time.perf_counter()
    target = get_target(device)
    load_plugins()
    log.announce()
    cache = kernel_cache_for(config.kernel_cache_dir)
    fingerprint = target.fingerprint(device)
    found = []
    for i, kernel in enumerate(kernels):
        try:
            options = resolve_options(kernel, target=target, part="forward")
            key = kernel_hash(kernel, options, fingerprint)
        except Exception:  # noqa: BLE001, S112 - reported in order when the kernel loads alone
            continue
        hit = cache.get(key)
        if hit is not None:
            found.append((i, kernel, options, key, hit[0], hit[1]))
    results: list[CompiledKernel | None] = [None] * len(kernels)
    if not found:
        return results
    items = [(code, list(meta["entries"].values()), kernel.name) for _, kernel, _, _, code, meta in found]
    try:
        loaded = target.load_many(items, device=device, store=cache)
        parts = [_kernel_part(code, f[5], "cached", f[2]) for code, f in zip(loaded, found)]
    except Exception:  # noqa: BLE001 - one entry does not load: each kernel loads (or compiles) alone
        return results
    elapsed = (time.perf_counter() - start) * 1000.0 / len(found)
    for (i, kernel, options, key, _, _), part in zip(found, parts):
        reason = log.compile_reason(kernel, "forward", device, options, hit=True)
        log.part_loaded(kernel, device, "forward", key, "cached", elapsed, reason)
        results[i] = CompiledKernel(
            kernel=kernel, device=device, debug=options.debug, forward=part, target=target, mode=options.mode
        )
    return results


def load_kernel(kernel: Any, device: Any) -> CompiledKernel:
    """Load the forward code of ``kernel`` for ``device`` (through the device's target)."""
    target = get_target(device)
    load_plugins()
    log.announce()
    forward = load_part(kernel, device, "forward")
    options = forward.options
    return CompiledKernel(
        kernel=kernel, device=device, debug=options.debug, forward=forward, target=target, mode=options.mode
    )
