"""Native release functions for DLPack capsules that warp exports.

A DLPack consumer (PyTorch, JAX, Paddle, NumPy, ...) calls the managed tensor's ``deleter`` when
it no longer needs the memory, possibly from a thread that holds no Python thread state, and
possibly while the interpreter shuts down. A ctypes callback cannot run safely in either case,
so the deleters are a few lines of native code, JIT-compiled once per process with llvmlite:

* ``warp_dlpack_deleter`` / ``warp_dlpack_deleter_versioned`` release the Python owner stored
  in ``manager_ctx`` (taking the GIL with ``PyGILState_Ensure``; skipped once the interpreter is
  finalizing, when leaking is the safe choice) and free the malloc'd managed tensor;
* ``warp_dlpack_capsule_destructor`` is the capsule destructor: it calls the deleter of a
  capsule that was never consumed (one still named ``dltensor`` or ``dltensor_versioned``);
* the capsule names are static strings of the same module, valid for the life of the process.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from warp.targets.cpu import jit as cpu_jit

# Offsets in DLManagedTensor (dl_tensor: 48 bytes, manager_ctx, deleter) and
# DLManagedTensorVersioned (version: 8 bytes, manager_ctx, deleter, flags, dl_tensor).
_IR = r"""
@warp_dlpack_name = constant [9 x i8] c"dltensor\00"
@warp_dlpack_name_versioned = constant [19 x i8] c"dltensor_versioned\00"
@warp_dlpack_name_used = constant [14 x i8] c"used_dltensor\00"
@warp_dlpack_name_used_versioned = constant [24 x i8] c"used_dltensor_versioned\00"

declare i32 @Py_IsInitialized()
declare i32 @PyGILState_Ensure()
declare void @PyGILState_Release(i32)
declare void @Py_DecRef(ptr)
declare void @free(ptr)
declare i32 @PyCapsule_IsValid(ptr, ptr)
declare ptr @PyCapsule_GetPointer(ptr, ptr)

define private void @release_owner(ptr %owner) {
entry:
  %null = icmp eq ptr %owner, null
  br i1 %null, label %done, label %check
check:
  %alive = call i32 @Py_IsInitialized()
  %is_alive = icmp ne i32 %alive, 0
  br i1 %is_alive, label %release, label %done
release:
  %state = call i32 @PyGILState_Ensure()
  call void @Py_DecRef(ptr %owner)
  call void @PyGILState_Release(i32 %state)
  br label %done
done:
  ret void
}

define private void @free_managed(ptr %mt, i64 %owner_offset) {
entry:
  %slot = getelementptr i8, ptr %mt, i64 %owner_offset
  %owner = load ptr, ptr %slot
  call void @release_owner(ptr %owner)
  call void @free(ptr %mt)
  ret void
}

define void @warp_dlpack_deleter(ptr %mt) {
entry:
  call void @free_managed(ptr %mt, i64 48)
  ret void
}

define void @warp_dlpack_deleter_versioned(ptr %mt) {
entry:
  call void @free_managed(ptr %mt, i64 8)
  ret void
}

define private void @call_deleter(ptr %mt, i64 %offset) {
entry:
  %null = icmp eq ptr %mt, null
  br i1 %null, label %done, label %load
load:
  %slot = getelementptr i8, ptr %mt, i64 %offset
  %deleter = load ptr, ptr %slot
  %no_deleter = icmp eq ptr %deleter, null
  br i1 %no_deleter, label %done, label %call
call:
  call void %deleter(ptr %mt)
  br label %done
done:
  ret void
}

define private i1 @destroy_named(ptr %capsule, ptr %name, i64 %deleter_offset) {
entry:
  %valid = call i32 @PyCapsule_IsValid(ptr %capsule, ptr %name)
  %is_valid = icmp ne i32 %valid, 0
  br i1 %is_valid, label %destroy, label %done
destroy:
  %mt = call ptr @PyCapsule_GetPointer(ptr %capsule, ptr %name)
  call void @call_deleter(ptr %mt, i64 %deleter_offset)
  ret i1 1
done:
  ret i1 0
}

define void @warp_dlpack_capsule_destructor(ptr %capsule) {
entry:
  %legacy = call i1 @destroy_named(ptr %capsule, ptr @warp_dlpack_name, i64 56)
  br i1 %legacy, label %done, label %versioned
versioned:
  %unused = call i1 @destroy_named(ptr %capsule, ptr @warp_dlpack_name_versioned, i64 16)
  br label %done
done:
  ret void
}
"""

_SYMBOLS = [
    "warp_dlpack_deleter",
    "warp_dlpack_deleter_versioned",
    "warp_dlpack_capsule_destructor",
    "warp_dlpack_name",
    "warp_dlpack_name_versioned",
    "warp_dlpack_name_used",
    "warp_dlpack_name_used_versioned",
]


@dataclass(frozen=True)
class NativeFunctions:
    """Addresses of the native DLPack helpers (valid for the life of the process)."""

    deleter: int
    deleter_versioned: int
    capsule_destructor: int
    name: int
    name_versioned: int
    name_used: int
    name_used_versioned: int


_lock = threading.Lock()
_native: NativeFunctions | None = None
_module = None  # the loaded code; kept for the life of the process


def native() -> NativeFunctions:
    """Compile and load the helpers on first use; return their addresses."""
    global _native, _module
    if _native is not None:
        return _native
    with _lock:
        if _native is None:
            obj = cpu_jit.compile_ir(_IR, opt_level=2, name="warp_dlpack")
            _module = cpu_jit.load_object(obj, _SYMBOLS, name="warp_dlpack")
            _native = NativeFunctions(*(_module.address(s) for s in _SYMBOLS))
    return _native
