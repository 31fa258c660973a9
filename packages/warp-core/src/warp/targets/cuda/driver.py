"""The CUDA driver API through cuda-python (``cuda.bindings.driver``), initialized on first use.

cuda-python returns ``(CUresult, *values)`` from every call; :func:`check` turns a failure into
:class:`CudaError` naming the call and the driver's error name, and returns the values. Without
the package or without a driver, :func:`driver` raises :class:`CudaUnavailableError` ("CUDA
driver not available: ..."); nothing else in warp needs CUDA, so the CPU keeps working.
"""

from __future__ import annotations

import threading
from typing import Any

from warp.plugins.install_hints import install_hint


class CudaError(RuntimeError):
    """A CUDA driver call failed."""

    def __init__(self, call: str, code: int, name: str, detail: str = ""):
        self.call, self.code, self.name = call, code, name
        super().__init__(f"CUDA error in {call}: {name} ({code}){': ' + detail if detail else ''}")


class CudaUnavailableError(RuntimeError):
    """cuda-python or the CUDA driver is missing."""


_lock = threading.Lock()
_cu: Any = None
_failure: str | None = None


def _import_bindings() -> Any:
    try:
        from cuda.bindings import driver as cu  # type: ignore[import-not-found]
    except ImportError:
        try:
            from cuda import cuda as cu  # type: ignore[import-not-found,no-redef]
        except ImportError:
            raise CudaUnavailableError(
                f"CUDA driver not available: cuda-python is not installed ({install_hint('cuda-python')})"
            ) from None
    return cu


def driver() -> Any:
    """The initialized ``cuda.bindings.driver`` module; raises :class:`CudaUnavailableError`."""
    global _cu, _failure
    if _cu is not None:
        return _cu
    with _lock:
        if _cu is not None:
            return _cu
        if _failure is not None:
            raise CudaUnavailableError(_failure)
        try:
            cu = _import_bindings()
            (err,) = cu.cuInit(0)
        except CudaUnavailableError as exc:
            _failure = str(exc)
            raise
        except Exception as exc:  # cuda-python raises when libcuda cannot be loaded
            _failure = f"CUDA driver not available: {exc}"
            raise CudaUnavailableError(_failure) from None
        if int(err) != 0:
            _failure = f"CUDA driver not available: cuInit failed with {error_name(cu, err)}"
            raise CudaUnavailableError(_failure)
        _cu = cu
        return cu


def is_available() -> bool:
    """True when cuda-python is installed and the driver initializes."""
    try:
        driver()
    except CudaUnavailableError:
        return False
    return True


def unavailable_reason() -> str:
    """Why CUDA cannot be used ("CUDA driver not available: ..."), or "" when it can."""
    try:
        driver()
    except CudaUnavailableError as exc:
        return str(exc)
    return ""


def error_name(cu: Any, err: Any) -> str:
    try:
        res, name = cu.cuGetErrorName(err)
        if int(res) == 0 and name:
            return name.decode() if isinstance(name, bytes) else str(name)
    except Exception:
        pass
    return str(err)


def check(result: Any, call: str = "CUDA call") -> Any:
    """Values of a cuda-python result tuple; raises :class:`CudaError` on failure.

    ``check(cu.cuMemAlloc(n), "cuMemAlloc")`` returns the pointer; calls returning one value
    give it unwrapped, several values a tuple, none ``None``.
    """
    err, *values = result if isinstance(result, tuple) else (result,)
    code = int(err)
    if code != 0:
        raise CudaError(call, code, error_name(_cu, err) if _cu is not None else str(err))
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


def call(name: str, *args: Any) -> Any:
    """``check(driver().<name>(*args), name)``."""
    return check(getattr(driver(), name)(*args), name)


def driver_version() -> int:
    """The driver's CUDA version as ``major * 1000 + minor * 10`` (e.g. 12040)."""
    return int(call("cuDriverGetVersion"))


def device_count() -> int:
    """Number of CUDA devices (0 when the driver is missing)."""
    try:
        return int(call("cuDeviceGetCount"))
    except (CudaUnavailableError, CudaError):
        return 0
