"""warp: a Python kernel compiler and runtime with the programming model of NVIDIA Warp.

Core names are defined here; plugins (warp-builtins, warp-autodiff, ...) add more through the
``warp_exports`` hook, and kernel builtins are reachable as ``wp.<name>`` inside kernels.
"""

from __future__ import annotations

from typing import Any

# first: raises ImportError, saying what to do, when NVIDIA's warp-lang is installed beside this package
from warp import startup as _startup  # noqa: F401
from warp import _src, codegen, config, types, utils
from warp.config import LOG_DEBUG, LOG_ERROR, LOG_INFO, LOG_WARNING
from warp.arrays import (
    array,
    array1d,
    array2d,
    array3d,
    array4d,
    as_array,
    clone,
    copy,
    empty,
    empty_like,
    from_ipc_handle,
    from_numpy,
    full,
    full_like,
    indexedarray,
    indexedarray1d,
    indexedarray2d,
    indexedarray3d,
    indexedarray4d,
    ones,
    ones_like,
    zeros,
    zeros_like,
)
from warp.arrays.dlpack import from_dlpack, to_dlpack
from warp.decorators import (
    Function,
    Kernel,
    constant,
    func,
    func_grad,
    func_native,
    func_replay,
    kernel,
    overload,
)
from warp.compiler.frontend.custom_grad import adjoint
from warp.modules import Module, force_load, get_module, get_module_options, load_module, set_module_options
from warp.errors import (
    MissingPluginError,
    WarpCodegenAttributeError,
    WarpCodegenError,
    WarpCodegenNameError,
    WarpCodegenTypeError,
    WarpCodegenValueError,
)
from warp.plugins.manager import exports as _plugin_exports
from warp.plugins.manager import load_plugins as _load_plugins
from warp.plugins import missing as _missing
from warp.runtime.devices import Device, ScopedDevice, set_device, synchronize, synchronize_device
from warp.device_queries import (
    get_cuda_device,
    get_cuda_device_count,
    get_cuda_driver_version,
    get_cuda_supported_archs,
    get_cuda_devices,
    get_device,
    get_devices,
    get_preferred_device,
    is_cpu_available,
    is_cuda_available,
    is_device_available,
)
from warp.allocator_api import ScopedAllocator, get_device_allocator, set_device_allocator
from warp.runtime.memory_tracking import ScopedMemoryTracker, print_memory_report
from warp.runtime.launch import launch
from warp.runtime.recorded_launch import Launch
from warp.timing import ScopedTimer
from warp.runtime.capture import (
    Graph,
    ScopedCapture,
    capture_begin,
    capture_end,
    capture_launch,
    capture_pause,
    capture_resume,
)
from warp.runtime.streams import (
    Event,
    ScopedStream,
    Stream,
    get_event_elapsed_time,
    get_stream,
    record_event,
    set_stream,
    synchronize_event,
    synchronize_stream,
    wait_event,
    wait_stream,
)
from warp.runtime.peer_access import (
    is_mempool_access_enabled,
    is_mempool_access_supported,
    is_mempool_enabled,
    is_mempool_supported,
    is_peer_access_enabled,
    is_peer_access_supported,
    set_mempool_access_enabled,
    set_mempool_enabled,
    set_peer_access_enabled,
)
from warp.arrays.ipc import event_from_ipc_handle
from warp.runtime.mempools import (
    ScopedMempool,
    ScopedMempoolAccess,
    get_mempool_release_threshold,
    get_mempool_used_mem_current,
    get_mempool_used_mem_high,
    set_mempool_release_threshold,
)
from warp.runtime import cache as _cache, kernel_loader as _kernel_loader  # noqa: F401
from warp.targets.cpu import jit as _cpu_jit  # noqa: F401
from warp.runtime import log as _log
from warp.runtime.python_builtins import PythonBuiltin as _PythonBuiltin
from warp.compiler.frontend.kernel_callables import printf
from warp.compiler.frontend.gradients import grad
from warp.compiler.frontend.compile_time import static
from warp.compiler.frontend.kernel_forms import cast
from warp.compiler.frontend.kernel_forms import INPLACE_BUILTINS as _INPLACE_BUILTINS
from warp.compiler.frontend.kernel_callables import tuple_ as tuple  # noqa: A001 - wp.tuple mirrors NVIDIA Warp
from warp.compiler import hashing as _hashing
from warp.compiler.registry import builtin_registry as _builtin_registry
from warp.types.scalars import (
    Float,
    Int,
    Scalar,
    bool,
    dtype_from_numpy,
    dtype_to_numpy,
    bfloat16,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)

from warp.types.named import *  # noqa: F401,F403  (vec3, mat33, quat, transform, ...)
from warp.constants import *  # noqa: F401,F403  (wp.pi, wp.e, wp.tau, ...)
from warp.types.struct import struct
from warp.types.composite import matrix as _matrix_type, vector as _vector_type  # noqa: F401

# NVIDIA Warp defines the array classes in warp.types; ours live above the type system
types.array, types.array1d, types.array2d = array, array1d, array2d
types.array3d, types.array4d = array3d, array4d
types.indexedarray, types.indexedarray1d, types.indexedarray2d = indexedarray, indexedarray1d, indexedarray2d
types.indexedarray3d, types.indexedarray4d = indexedarray3d, indexedarray4d



def init() -> None:
    """Initialize the runtime and print the start-up line (version, devices, kernel cache) unless
    ``wp.config.quiet``; plugins load at import, kernels compile on first use. The first kernel
    load does this implicitly; the line is printed once per process."""
    _load_plugins()
    _log.announce()


def clear_kernel_cache() -> None:
    """Delete every compiled kernel in the kernel cache directory (``wp.config.kernel_cache_dir``).

    Only the cache's own entries, leftover temporary files and its index of what kernel sources
    read (``reads/``) are removed; the directory and any other file in it stay. Kernels loaded
    in this process keep working; the next process (or the next load after ``Kernel.unload()``)
    compiles again.
    """
    _cache.kernel_cache_for(None).clear()


def clear_lto_cache() -> None:
    """Accepted for NVIDIA Warp compatibility: there is no link-time-optimization cache here (the
    CPU and CUDA code of a kernel is one cache entry), so this clears nothing."""


_load_plugins()
_missing.install_finder()
_src.alias_plugin_modules()  # warp._src.autograd is warp.autograd where warp-autodiff is installed
# Do the once-per-process work now rather than at the first launch: LLVM's native target and
# JIT, and the fingerprint of the compiler's code that kernel cache keys include.
_cpu_jit.target_fingerprint()
_cpu_jit.warm_up()
_hashing.compiler_fingerprint()
globals().update(_INPLACE_BUILTINS)  # wp.add_inplace(v, i, x) is v[i] += x, ...
globals().update({k: v for k, v in _plugin_exports.items() if k not in globals()})


def __getattr__(name: str) -> Any:
    if name == "__version__":  # from the installed metadata, looked up on first use (a few ms)
        return config.version
    if name in _plugin_exports:
        return _plugin_exports[name]
    if name in _builtin_registry:
        builtin = globals()[name] = _PythonBuiltin(name)  # later lookups skip __getattr__
        return builtin
    raise _missing.missing_attribute(name)
