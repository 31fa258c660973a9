"""Devices: the ``"cpu"`` device, CUDA device discovery and the current default device.

CUDA support is optional. :func:`get_cuda_device_count` asks the CUDA driver (through
``cuda-python``, imported lazily) how many GPUs there are and answers 0 when the package or a
driver is missing. Asking for a CUDA device when none is available raises a clear
``RuntimeError``.

As in NVIDIA Warp, the default device is ``"cuda:0"`` when a CUDA device is present and
``"cpu"`` otherwise. CUDA devices expose the driver's properties (``name``, ``arch``,
``sm_count``, ``total_memory``, ``is_uva``, ...) read on first use through :mod:`warp.targets.cuda.context`.
"""

from __future__ import annotations

import os
import platform
import threading
from typing import Any, Union

from warp.runtime import allocators
from warp.targets.registry import parse_device, target_for_kind, target_names
from warp.targets.cuda.driver import CudaError, CudaUnavailableError, device_count, driver_version
from warp.targets.cuda.context import device_attribute, device_info
from warp.targets.cuda.driver import unavailable_reason
from warp.targets.cuda.context import initialized_ordinals
from warp.targets.cuda.ptx import supported_archs
from warp.targets.cuda.memory import memory_info
from warp.targets.cuda import ipc as cuda_ipc
from warp.targets.cuda import peer as cuda_peer
from warp.targets.cuda.streams import current_stream, null_stream, set_current_stream
from warp.targets import get_target
from warp.targets.registry import set_device_resolver



def _host_available_memory() -> int:
    """Bytes of host memory available without swapping (``MemAvailable`` of ``/proc/meminfo``,
    else the free physical pages), 0 if unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 0

class Device:
    """A compute device: ``"cpu"`` or ``"cuda:N"``.

    Compare devices with ``==``, which also accepts aliases (``device == "cpu"``).
    """

    __slots__ = ("alias", "ordinal", "is_cpu", "is_cuda", "kind", "name", "__weakref__")

    def __init__(self, alias: str, ordinal: int = -1, name: str | None = None) -> None:
        self.alias: str = alias
        self.ordinal: int = ordinal
        self.is_cpu: bool = alias == "cpu"
        self.is_cuda: bool = alias.startswith("cuda")
        #: the device kind, which selects its target (:func:`warp.targets.registry.get_target`)
        self.kind: str = "cpu" if self.is_cpu else "cuda" if self.is_cuda else alias.split(":")[0]
        self.name: str = name or alias

    # -- memory -------------------------------------------------------------------------------
    @property
    def default_allocator(self) -> allocators.TargetAllocator:
        """The device's built-in allocator (``allocate(size) -> ptr``, ``deallocate(ptr, size)``)."""
        return allocators.default_allocator(self)

    def get_allocator(self) -> allocators.Allocator:
        """The allocator new arrays on this device use (``wp.set_device_allocator`` changes it)."""
        return allocators.current_allocator(self)

    # -- properties (CUDA devices ask the driver on first use) --------------------------------
    def _info(self) -> Any:
        return device_info(self.ordinal)

    @property
    def arch(self) -> int:
        """Compute capability as ``major * 10 + minor`` (e.g. 90); 0 for the CPU."""
        return self._info().arch if self.is_cuda else 0

    @property
    def sm_count(self) -> int:
        """Number of streaming multiprocessors; 0 for the CPU."""
        return self._info().sm_count if self.is_cuda else 0

    @property
    def max_shared_memory_per_block(self) -> int:
        """Bytes of shared memory one block may use at most (with opt-in); 0 for the CPU."""
        if not self.is_cuda:
            return 0
        return device_attribute(self.ordinal, "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN")

    @property
    def total_memory(self) -> int:
        """Device memory in bytes (for the CPU: physical memory, or 0 if unknown)."""
        if self.is_cuda:
            return self._info().total_memory
        try:
            return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):
            return 0

    @property
    def free_memory(self) -> int:
        """Free device memory in bytes (for the CPU: the memory available to new allocations
        without swapping, as NVIDIA Warp reports it; 0 if unknown)."""
        if not self.is_cuda:
            return _host_available_memory()
        return memory_info(self)[0]

    @property
    def is_uva(self) -> bool:
        """Whether the device shares one virtual address space with the host (CUDA)."""
        return self._info().is_uva if self.is_cuda else False

    @property
    def is_mempool_supported(self) -> bool:
        """Whether the device supports stream-ordered memory pools (CUDA)."""
        return self._info().is_mempool_supported if self.is_cuda else False

    @property
    def is_mempool_enabled(self) -> bool:
        """Whether allocations on the device come from its stream-ordered memory pool (CUDA;
        ``wp.set_mempool_enabled`` switches it)."""
        return self.is_cuda and cuda_peer.mempool_enabled(self.ordinal)

    @property
    def is_ipc_supported(self) -> bool:
        """Whether CUDA arrays and events of the device can be shared with other processes
        (``array.ipc_handle``, ``wp.from_ipc_handle``): Linux and driver support; False for the CPU."""
        return self.is_cuda and cuda_ipc.ipc_supported(self.ordinal)

    @property
    def is_primary_context(self) -> bool:
        """CUDA devices run in their primary context (shared with other libraries)."""
        return self.is_cuda

    @property
    def pci_bus_id(self) -> str:
        """PCI bus id of a CUDA device (``"0000:01:00.0"``); empty for the CPU."""
        return self._info().pci_bus_id if self.is_cuda else ""

    @property
    def context(self) -> int:
        """The CUDA context handle as an integer (0 for the CPU)."""
        return int(self._info().context) if self.is_cuda else 0

    @property
    def stream(self) -> Any:
        """The device's current stream (CUDA devices only)."""
        return current_stream(self)

    @stream.setter
    def stream(self, stream: Any) -> None:
        set_current_stream(stream, self)

    @property
    def null_stream(self) -> Any:
        """The legacy default stream of a CUDA device, ordered with all its blocking streams
        (those warp creates); None for other devices."""
        return null_stream(self) if self.is_cuda else None

    @property
    def has_stream(self) -> bool:
        """True for CUDA devices, which have a current stream."""
        return self.is_cuda

    @property
    def is_capturing(self) -> bool:
        """Whether the calling thread's work on this device is being recorded into a graph."""
        return self.target.is_capturing(self)

    @property
    def target(self) -> Any:
        """The :class:`~warp.targets.base.Target` that runs kernels and allocates memory here."""
        return get_target(self)

    def __str__(self) -> str:
        return self.alias

    def __repr__(self) -> str:
        return f"'{self.alias}'"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Device):
            return self.alias == other.alias
        if isinstance(other, str):
            if other == self.alias:
                return True
            return other == "cuda" and self.alias == "cuda:0"
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self) -> int:
        return hash(self.alias)


#: Anything :func:`get_device` accepts.
Devicelike = Union[Device, str, None]

_cpu_device = Device("cpu", -1, platform.machine() or "cpu")

_lock = threading.Lock()
_cuda_count: int | None = None
_cuda_devices: list[Device] | None = None
_cuda_runtime_ready = True
_default_device: Device | None = None


def _query_cuda_device_count() -> int:
    """Ask the CUDA driver for the number of devices; 0 when cuda-python or a driver is missing."""
    return device_count()


def get_cuda_device_count() -> int:
    """Number of CUDA devices (0 when cuda-python or a CUDA driver is missing). Cached."""
    global _cuda_count
    if _cuda_count is None:
        with _lock:
            if _cuda_count is None:
                _cuda_count = _query_cuda_device_count()
    return _cuda_count


def is_cpu_available() -> bool:
    """True: the CPU device always exists (kernels run on it through the LLVM JIT)."""
    return True


def is_cuda_available() -> bool:
    """True when at least one CUDA device is present."""
    return get_cuda_device_count() > 0


def get_cuda_devices() -> list[Device]:
    """The CUDA devices, ``cuda:0`` first (empty when CUDA is unavailable)."""
    global _cuda_devices
    if _cuda_devices is None:
        _cuda_devices = [Device(f"cuda:{i}", i, _cuda_name(i)) for i in range(get_cuda_device_count())]
    return list(_cuda_devices)


_cuda_archs: list[int] | None = None


def get_cuda_supported_archs() -> list[int]:
    """The SM architectures CUDA code can be generated for (75 for ``sm_75``, ...), sorted: those
    LLVM's NVPTX backend knows. They do not depend on a GPU or driver being present. Cached."""
    global _cuda_archs
    if _cuda_archs is None:
        _cuda_archs = sorted(supported_archs())
    return list(_cuda_archs)


def get_cuda_driver_version() -> tuple[int, int] | None:
    """The CUDA driver's version as ``(major, minor)`` (e.g. ``(12, 4)``); None without a driver."""
    try:
        version = driver_version()
    except (CudaError, CudaUnavailableError):
        return None
    return version // 1000, (version % 1000) // 10


def _cuda_name(ordinal: int) -> str | None:
    try:
        return device_info(ordinal).name
    except Exception:  # the name is informative only
        return None


#: devices of the targets other than the CPU and CUDA (registered by plugins), by target name
_other_devices: dict[str, list[Device]] = {}


def _devices_of(kind: str) -> list[Device]:
    """The devices of target ``kind`` (not the CPU or CUDA), as its :class:`~warp.targets.Target`
    counts them (asked once per process)."""
    devices = _other_devices.get(kind)
    if devices is None:
        target = target_for_kind(kind)
        count = target.device_count()
        if parse_device(kind)[1] < 0:  # a target with one device, named like the target
            devices = [Device(kind, -1, target.device_name(-1))] if count else []
        else:
            devices = [Device(f"{kind}:{i}", i, target.device_name(i)) for i in range(count)]
        _other_devices[kind] = devices
    return list(devices)


def get_devices() -> list[Device]:
    """All devices: ``cpu``, the CUDA devices, then those of other registered targets."""
    others = [d for kind in target_names() if kind not in ("cpu", "cuda") for d in _devices_of(kind)]
    return [_cpu_device, *get_cuda_devices(), *others]


def set_cuda_runtime_ready(ready: bool = True) -> None:
    """Called by the CUDA runtime once it can run kernels; lets ``cuda:0`` become the default."""
    global _cuda_runtime_ready
    _cuda_runtime_ready = ready


def get_preferred_device() -> Device:
    """``cuda:0`` when CUDA is available and supported by the runtime, else ``cpu``."""
    # (is_cuda_available() and get_cuda_devices() inlined, no copy of the device list:
    # wp.launch without a device asks this at every launch)
    if _cuda_runtime_ready and (_cuda_count if _cuda_count is not None else get_cuda_device_count()) > 0:
        return (_cuda_devices or get_cuda_devices())[0]
    return _cpu_device


def _cuda_unavailable(alias: str) -> RuntimeError:
    return RuntimeError(f"CUDA device '{alias}' requested but CUDA is not available ({unavailable_reason()})")


def _resolve(ident: Any) -> Device:
    if isinstance(ident, Device):
        return ident
    if not isinstance(ident, str):
        raise TypeError(f"invalid device identifier {ident!r}: expected a Device, 'cpu' or 'cuda:N'")
    kind, ordinal = parse_device(ident)
    if kind == _cpu_device.kind:
        return _cpu_device
    if kind != "cuda":
        others = _devices_of(kind)
        index = max(ordinal, 0)
        if index >= len(others):
            raise RuntimeError(
                f"device '{ident}' requested but {len(others)} device(s) of target '{kind}' are available"
            )
        return others[index]
    alias = f"cuda:{ordinal}"
    if not is_cuda_available():
        raise _cuda_unavailable(alias)
    devices = get_cuda_devices()
    if ordinal >= len(devices):
        raise RuntimeError(
            f"CUDA device '{alias}' requested but only {len(devices)} CUDA device(s) are available"
        )
    return devices[ordinal]


def get_device(ident: Devicelike = None) -> Device:
    """The device named by ``ident``; ``None`` gives the current default device."""
    if ident is None:
        return _default_device if _default_device is not None else get_preferred_device()
    if ident.__class__ is Device:
        return ident  # type: ignore[return-value]
    return _resolve(ident)


def set_device(ident: Devicelike) -> None:
    """Make ``ident`` the default device for allocations and launches that name none."""
    global _default_device
    _default_device = None if ident is None else get_device(ident)


def synchronize() -> None:
    """Wait for all outstanding work on every CUDA device in use; a no-op on CPU-only machines."""
    if _cuda_devices:
        for ordinal in initialized_ordinals():
            _cuda_devices[ordinal].target.synchronize(_cuda_devices[ordinal])


def synchronize_device(device: Devicelike = None) -> None:
    """Wait for outstanding work on one device (CUDA); a no-op for the CPU."""
    dev = get_device(device)
    if dev.is_cuda:
        dev.target.synchronize(dev)


set_device_resolver(get_device)  # device arguments given to target code (wp.Stream("cuda:1"))


class ScopedDevice:
    """Context manager making a device the default inside a ``with`` block."""

    def __init__(self, device: Devicelike) -> None:
        self.device = get_device(device)
        self._saved: Device | None = None

    def __enter__(self) -> Device:
        global _default_device
        self._saved = _default_device
        _default_device = self.device
        return self.device

    def __exit__(self, *exc: object) -> None:
        global _default_device
        _default_device = self._saved
