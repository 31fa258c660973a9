"""Devices: the ``"cpu"`` device, CUDA device discovery and the current default device.

CUDA support is optional. :func:`get_cuda_device_count` asks the CUDA driver (through
``cuda-python``, imported lazily) how many GPUs there are and answers 0 when the package or a
driver is missing. Asking for a CUDA device when none is available raises a clear
``RuntimeError``.

Until a CUDA runtime registers itself with :func:`set_cuda_runtime_ready`, the default device is
always ``"cpu"`` even on machines with a GPU, so that code that does not name a device keeps
working.
"""

from __future__ import annotations

import platform
import threading
from typing import Any, Union


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
        #: the device kind, which selects its backend (:func:`warp.runtime.backends.get_backend`)
        self.kind: str = "cpu" if self.is_cpu else "cuda" if self.is_cuda else alias.split(":")[0]
        self.name: str = name or alias

    @property
    def backend(self) -> Any:
        """The :class:`~warp.runtime.backends.Backend` that runs kernels and allocates memory here."""
        from warp.runtime.backends import get_backend

        return get_backend(self)

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
_cuda_runtime_ready = False
_default_device: Device | None = None


def _query_cuda_device_count() -> int:
    """Ask the CUDA driver for the number of devices; 0 on any failure."""
    try:
        try:
            from cuda.bindings import driver as cu  # type: ignore[import-not-found]
        except ImportError:
            from cuda import cuda as cu  # type: ignore[import-not-found,no-redef]
    except Exception:
        return 0
    try:
        (err,) = cu.cuInit(0)
        if int(err) != 0:
            return 0
        err, count = cu.cuDeviceGetCount()
        if int(err) != 0:
            return 0
        return max(int(count), 0)
    except Exception:
        return 0


def get_cuda_device_count() -> int:
    """Number of CUDA devices (0 when cuda-python or a CUDA driver is missing). Cached."""
    global _cuda_count
    if _cuda_count is None:
        with _lock:
            if _cuda_count is None:
                _cuda_count = _query_cuda_device_count()
    return _cuda_count


def is_cuda_available() -> bool:
    """True when at least one CUDA device is present."""
    return get_cuda_device_count() > 0


def get_cuda_devices() -> list[Device]:
    """The CUDA devices, ``cuda:0`` first (empty when CUDA is unavailable)."""
    global _cuda_devices
    if _cuda_devices is None:
        _cuda_devices = [Device(f"cuda:{i}", i) for i in range(get_cuda_device_count())]
    return list(_cuda_devices)


def get_devices() -> list[Device]:
    """All devices: ``cpu`` followed by the CUDA devices."""
    return [_cpu_device, *get_cuda_devices()]


def set_cuda_runtime_ready(ready: bool = True) -> None:
    """Called by the CUDA runtime once it can run kernels; lets ``cuda:0`` become the default."""
    global _cuda_runtime_ready
    _cuda_runtime_ready = ready


def get_preferred_device() -> Device:
    """``cuda:0`` when CUDA is available and supported by the runtime, else ``cpu``."""
    if _cuda_runtime_ready and is_cuda_available():
        return get_cuda_devices()[0]
    return _cpu_device


def _cuda_unavailable(alias: str) -> RuntimeError:
    return RuntimeError(
        f"CUDA device '{alias}' requested but CUDA is not available (no CUDA driver found)"
    )


def _resolve(ident: Any) -> Device:
    if isinstance(ident, Device):
        return ident
    if not isinstance(ident, str):
        raise TypeError(f"invalid device identifier {ident!r}: expected a Device, 'cpu' or 'cuda:N'")
    if ident == "cpu":
        return _cpu_device
    if ident == "cuda" or ident.startswith("cuda:"):
        alias = "cuda:0" if ident == "cuda" else ident
        suffix = alias[5:]
        if not suffix.isdigit():
            raise ValueError(f"invalid device identifier '{ident}': expected 'cuda' or 'cuda:N'")
        if not is_cuda_available():
            raise _cuda_unavailable(alias)
        devices = get_cuda_devices()
        ordinal = int(suffix)
        if ordinal >= len(devices):
            raise RuntimeError(
                f"CUDA device '{alias}' requested but only {len(devices)} CUDA device(s) are available"
            )
        return devices[ordinal]
    raise ValueError(f"invalid device identifier '{ident}': expected 'cpu', 'cuda' or 'cuda:N'")


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
    """Wait for all outstanding device work; a no-op on CPU-only machines."""
    return None


def synchronize_device(device: Devicelike = None) -> None:
    """Wait for outstanding work on one device; a no-op for the CPU."""
    get_device(device)


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
