"""Machine code (cubin) for a kernel's PTX, made once by the driver's linker and cached.

Loading PTX makes the driver compile it to the GPU's machine code (SASS): tens of milliseconds
per module, unless the driver's own JIT cache (``~/.nv/ComputeCache``) already holds the result,
which makes a PTX load about as fast as a cubin load (measured on an H200: 0.36 ms for six
modules from PTX, 0.15 ms from cubins, but 255 ms to link the six cubins). So by default
(``wp.config.cuda_output = None``) PTX is loaded and the driver's cache is relied on, and cubins
are cached here only where that cache is off (``CUDA_CACHE_DISABLE=1`` or
``CUDA_CACHE_MAXSIZE=0``, as in some containers): there every load would otherwise JIT-compile.
``wp.config.cuda_output = "cubin"`` caches cubins always, ``"ptx"`` never.

With cubins, the first load of a PTX module on a device links it with the driver's JIT linker
(``cuLinkCreate``, ``cuLinkAddData`` of the PTX, ``cuLinkComplete``), loads the resulting cubin
and stores it in the kernel cache beside the PTX; later loads (any process) take the cubin
straight to ``cuModuleLoadData``. The cubin's key covers the PTX's bytes, the device's compute
capability and the driver's version (the compiler that made it), so a driver update or another
GPU makes a new cubin. A cubin that does not load (damaged, or refused by the driver) is
replaced from the PTX; when linking fails, the PTX is loaded as before and reports its errors.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
from typing import Any

from warp import config
from warp.targets.base import CodeStore
from warp.targets.cuda import driver as drv

#: Bumped when what goes into a cached cubin changes (part of :func:`cubin_key`).
CUBIN_FORMAT = "1"


def driver_jit_cache_disabled() -> bool:
    """Whether the driver keeps no JIT cache (``CUDA_CACHE_DISABLE=1``, ``CUDA_CACHE_MAXSIZE=0``)."""
    return os.environ.get("CUDA_CACHE_DISABLE", "0").strip() == "1" or (
        os.environ.get("CUDA_CACHE_MAXSIZE", "").strip() == "0"
    )


def cubins_enabled() -> bool:
    """Whether loads go through cached cubins: ``wp.config.cuda_output`` ``"cubin"``, or None
    (the default) where the driver's JIT cache is off; never with ``"ptx"``."""
    output = config.cuda_output
    if output is None:
        return driver_jit_cache_disabled()
    return output == "cubin"


def cubin_key(ptx: bytes, arch: int, driver_version: int) -> str:
    """The kernel-cache key of the cubin made from ``ptx`` for compute capability ``arch``
    (``major * 10 + minor``) by the driver of version ``driver_version``."""
    h = hashlib.sha256(f"warp-cubin-v{CUBIN_FORMAT}|sm_{arch}|driver={driver_version}|".encode())
    h.update(ptx)
    return h.hexdigest()


def link_ptx(cu: Any, image: bytes, name: str) -> bytes | None:
    """The cubin the driver's linker makes from ``image`` (NUL-terminated PTX) for the current
    context's device, or None if the linker refuses it (the PTX load then reports why)."""
    err, state = cu.cuLinkCreate(0, [], [])
    if int(err) != 0:
        return None
    try:
        input_ptx = cu.CUjitInputType.CU_JIT_INPUT_PTX
        (err,) = cu.cuLinkAddData(state, input_ptx, image, len(image), name.encode(), 0, [], [])
        if int(err) != 0:
            return None
        err, address, size = cu.cuLinkComplete(state)
        if int(err) != 0 or not size:
            return None
        # the image belongs to the link state: copy it out before cuLinkDestroy frees it
        return ctypes.string_at(int(address), int(size))
    finally:
        cu.cuLinkDestroy(state)


def load_image(cu: Any, image: bytes) -> Any:
    """The ``CUmodule`` of ``image`` (a cubin) loaded in the current context, or None if refused."""
    err, module = cu.cuModuleLoadData(image)
    return module if int(err) == 0 else None


def functions_of(cu: Any, module: Any, symbols: list[str]) -> dict[str, Any] | None:
    """``symbol -> CUfunction`` of ``module``; None (the module unloaded) if one is missing."""
    functions = {}
    for s in symbols:
        err, function = cu.cuModuleGetFunction(module, s.encode())
        if int(err) != 0:
            cu.cuModuleUnload(module)
            return None
        functions[s] = function
    return functions


def load_cubin(
    ptx: bytes, symbols: list[str], *, name: str, arch: int, driver_version: int, store: CodeStore
) -> tuple[Any, dict[str, Any]] | None:
    """``(CUmodule, functions)`` of ``ptx`` loaded as a cubin in the current context: the cached
    cubin, or one linked now (and cached). None when neither works: the caller loads the PTX."""
    cu = drv.driver()
    key = cubin_key(ptx, arch, driver_version)
    hit = store.get(key)
    if hit is not None and hit[1].get("arch") == arch and hit[1].get("driver") == driver_version:
        module = load_image(cu, hit[0])
        if module is not None:
            functions = functions_of(cu, module, symbols)
            if functions is not None:
                return module, functions
    cubin = link_ptx(cu, ptx, name)
    if cubin is None:
        return None
    module = load_image(cu, cubin)
    if module is None:
        return None
    functions = functions_of(cu, module, symbols)
    if functions is None:
        return None
    store.put(key, cubin, {"kind": "cubin", "arch": arch, "driver": driver_version, "name": name})
    return module, functions
