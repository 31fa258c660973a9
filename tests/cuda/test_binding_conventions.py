"""The argument forms the CUDA runtime passes to cuda-python, checked against the real bindings.

cuda-python converts arguments before it loads the driver library, so on a machine without a
driver a call in the right form fails with "library not found" while a wrong form fails with a
TypeError/ValueError first. Each call below is written exactly as the runtime makes it.
"""

from __future__ import annotations

import ctypes

import pytest

cu = pytest.importorskip("cuda.bindings.driver")


def _driver_missing() -> bool:
    from warp.targets.cuda import driver

    return not driver.is_available()


pytestmark = pytest.mark.skipif(not _driver_missing(), reason="a CUDA driver is present (calls would run)")


def _calls():
    extra = (ctypes.c_void_p * 5)(1, 0, 2, 0, 0)
    desc = cu.CUmemAccessDesc()
    desc.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    desc.location.id = 1
    desc.flags = cu.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE
    location = cu.CUmemLocation()
    location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    location.id = 1
    options = [cu.CUjit_option.CU_JIT_ERROR_LOG_BUFFER, cu.CUjit_option.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES]
    stream, ptr = cu.CUstream(0), cu.CUdeviceptr(4096)
    return {
        "cuLaunchKernel": lambda: cu.cuLaunchKernel(
            cu.CUfunction(0), 4, 1, 1, 256, 1, 1, 0, stream, None, ctypes.addressof(extra)
        ),
        "cuModuleLoadDataEx": lambda: cu.cuModuleLoadDataEx(
            b".version 8.0\0", 2, options, [bytearray(64), 64]
        ),
        "cuModuleGetFunction": lambda: cu.cuModuleGetFunction(cu.CUmodule(0), b"kernel_entry_c"),
        "cuModuleLoadData": lambda: cu.cuModuleLoadData(b"\x7fELF\2\1\1\0"),
        "cuLinkCreate": lambda: cu.cuLinkCreate(0, [], []),
        "cuLinkAddData": lambda: cu.cuLinkAddData(
            cu.CUlinkState(0), cu.CUjitInputType.CU_JIT_INPUT_PTX, b".version 8.0\0", 13, b"m", 0, [], []
        ),
        "cuLinkComplete": lambda: cu.cuLinkComplete(cu.CUlinkState(0)),
        "cuLinkDestroy": lambda: cu.cuLinkDestroy(cu.CUlinkState(0)),
        "cuMemcpyAsync": lambda: cu.cuMemcpyAsync(ptr, cu.CUdeviceptr(8192), 16, stream),
        "cuMemsetD8Async": lambda: cu.cuMemsetD8Async(ptr, 255, 16, stream),
        "cuMemsetD16Async": lambda: cu.cuMemsetD16Async(ptr, 65535, 8, stream),
        "cuMemsetD32Async": lambda: cu.cuMemsetD32Async(ptr, 2**32 - 1, 4, stream),
        "cuMemAllocAsync": lambda: cu.cuMemAllocAsync(256, stream),
        "cuMemFreeAsync": lambda: cu.cuMemFreeAsync(ptr, stream),
        "cuMemHostAlloc": lambda: cu.cuMemHostAlloc(16, 1),
        "cuMemPoolSetAttribute": lambda: cu.cuMemPoolSetAttribute(
            cu.CUmemoryPool(0),
            cu.CUmemPool_attribute.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
            cu.cuuint64_t(0xFFFFFFFFFFFFFFFF),
        ),
        "cuMemPoolSetAccess": lambda: cu.cuMemPoolSetAccess(cu.CUmemoryPool(0), [desc], 1),
        "cuMemPoolGetAccess": lambda: cu.cuMemPoolGetAccess(cu.CUmemoryPool(0), location),
        "cuStreamBeginCapture": lambda: cu.cuStreamBeginCapture(
            stream, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
        ),
        "cuGraphInstantiate": lambda: cu.cuGraphInstantiate(cu.CUgraph(0), 0),
        "cuGraphLaunch": lambda: cu.cuGraphLaunch(cu.CUgraphExec(0), stream),
        "cuEventCreate": lambda: cu.cuEventCreate(int(cu.CUevent_flags.CU_EVENT_DISABLE_TIMING)),
        "cuEventRecord": lambda: cu.cuEventRecord(cu.CUevent(0), stream),
        "cuStreamWaitEvent": lambda: cu.cuStreamWaitEvent(stream, cu.CUevent(0), 0),
        "cuDeviceGetAttribute": lambda: cu.cuDeviceGetAttribute(
            cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, cu.CUdevice(0)
        ),
        "cuDeviceGetName": lambda: cu.cuDeviceGetName(256, cu.CUdevice(0)),
        "cuDeviceGetPCIBusId": lambda: cu.cuDeviceGetPCIBusId(64, cu.CUdevice(0)),
        "cuCtxSetCurrent": lambda: cu.cuCtxSetCurrent(cu.CUcontext(0)),
        "cuDeviceCanAccessPeer": lambda: cu.cuDeviceCanAccessPeer(cu.CUdevice(0), cu.CUdevice(1)),
        "cuCtxEnablePeerAccess": lambda: cu.cuCtxEnablePeerAccess(cu.CUcontext(0), 0),
        "cuStreamCreate": lambda: cu.cuStreamCreate(0),
        "cuStreamCreateWithPriority": lambda: cu.cuStreamCreateWithPriority(0, -1),
    }


CALLS = _calls()


@pytest.mark.parametrize("name", sorted(CALLS))
def test_argument_forms_are_accepted(name: str) -> None:
    with pytest.raises(Exception) as info:
        CALLS[name]()
    assert not isinstance(info.value, (TypeError, ValueError, OverflowError, AttributeError)), info.value
    assert "cuda" in str(info.value).lower() or "driver" in str(info.value).lower()


def test_a_wrong_form_is_caught_before_the_driver() -> None:
    # the check above can fail: an int where cuda-python wants a bytes-like log buffer
    options = [cu.CUjit_option.CU_JIT_ERROR_LOG_BUFFER, cu.CUjit_option.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES]
    with pytest.raises(TypeError):
        cu.cuModuleLoadDataEx(b".version 8.0\0", 2, options, [12345, 64])
