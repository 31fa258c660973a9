"""The device queries of the public API (``wp.get_device``, ``wp.is_cuda_available``, ...).

Each initializes the runtime first, as NVIDIA Warp's lazy ``wp.init()`` does: the start-up line
(version, devices, kernel cache) is printed at the first device query or kernel load of the
process, unless ``wp.config.quiet``, so that programs (and test harnesses) that list devices
before capturing output see it then rather than in the middle of their first launch. The
runtime's own code calls :mod:`warp.runtime.devices` directly.
"""

from __future__ import annotations

from warp.runtime import devices as _devices
from warp.runtime import log as _log
from warp.runtime.devices import Device, Devicelike


def get_device(ident: Devicelike = None) -> Device:
    """The device named by ``ident``; ``None`` gives the current default device."""
    _log.announce()
    return _devices.get_device(ident)


def get_devices() -> list[Device]:
    """All devices: ``cpu``, the CUDA devices, then those of other registered targets."""
    _log.announce()
    return _devices.get_devices()


def get_cuda_devices() -> list[Device]:
    """The CUDA devices, ``cuda:0`` first (empty when CUDA is unavailable)."""
    _log.announce()
    return _devices.get_cuda_devices()


def get_cuda_device(ordinal: int | None = None) -> Device:
    """The CUDA device ``cuda:<ordinal>`` (a process-local ordinal); ``None`` gives the current
    default device when it is a CUDA device, else ``cuda:0``. RuntimeError when there is no such
    device (or no CUDA)."""
    _log.announce()
    if ordinal is None:
        current = _devices.get_device(None)
        if current.is_cuda:
            return current
        ordinal = 0
    if isinstance(ordinal, bool) or not isinstance(ordinal, int):
        raise TypeError(f"get_cuda_device: ordinal must be an int or None, got {type(ordinal).__name__}")
    count = _devices.get_cuda_device_count()
    if not 0 <= ordinal < count:
        raise RuntimeError(
            f"get_cuda_device: there is no CUDA device {ordinal} ({count} CUDA device(s) present)"
        )
    return _devices.get_device(f"cuda:{ordinal}")


def get_cuda_device_count() -> int:
    """Number of CUDA devices (0 when cuda-python or a CUDA driver is missing)."""
    _log.announce()
    return _devices.get_cuda_device_count()


def is_cuda_available() -> bool:
    """True when at least one CUDA device is present."""
    _log.announce()
    return _devices.is_cuda_available()


def is_cpu_available() -> bool:
    """True: the CPU device is always present."""
    _log.announce()
    return _devices.is_cpu_available()


def get_preferred_device() -> Device:
    """``cuda:0`` when CUDA is available, else ``cpu``."""
    _log.announce()
    return _devices.get_preferred_device()


def is_device_available(device: Devicelike) -> bool:
    """True when ``device`` (a Device or a name such as ``"cuda:1"``) is one of this process's
    devices; False for a well-formed name of a device that is not present."""
    _log.announce()
    try:
        resolved = _devices.get_device(device)
    except (ValueError, RuntimeError):
        return False
    return resolved in _devices.get_devices()
