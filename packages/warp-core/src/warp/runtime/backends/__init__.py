"""Backends by device kind: ``get_backend(device)`` gives the :class:`Backend` that runs on it.

A backend registers under a device kind (``"cpu"``, ``"cuda"``) with :func:`register_backend`,
as an instance, a zero-argument factory, or a ``"module:attribute"`` string naming one (imported
on first use, so a backend's dependencies load only when a device of its kind is used). The CPU
backend is built in; the CUDA backend registers as ``"warp.runtime.backends.cuda:CudaBackend"``.
"""

from __future__ import annotations

import importlib
import threading
from typing import Any, Callable, Union

from warp.runtime.backends.base import (
    Allocation,
    Backend,
    Command,
    CommandList,
    ErrorRecordBuffer,
    LoadedCode,
)

BackendSpec = Union[Backend, Callable[[], Backend], str]

_lock = threading.Lock()
_specs: dict[str, BackendSpec] = {
    "cpu": "warp.runtime.backends.cpu:CpuBackend",
    "cuda": "warp.runtime.backends.cuda:CudaBackend",
}
_instances: dict[str, Backend] = {}


def register_backend(kind: str, backend: BackendSpec) -> None:
    """Make ``backend`` run the devices of ``kind`` (replacing an earlier registration)."""
    with _lock:
        _specs[kind] = backend
        _instances.pop(kind, None)


def device_kind(device: Any) -> str:
    """The kind of ``device``: ``"cpu"`` or ``"cuda"``."""
    kind = getattr(device, "kind", None)
    if kind:
        return kind
    return "cpu" if getattr(device, "is_cpu", False) else "cuda"


def backend_for_kind(kind: str) -> Backend:
    """The backend registered for ``kind`` (created on first use)."""
    backend = _instances.get(kind)
    if backend is not None:
        return backend
    with _lock:
        backend = _instances.get(kind)
        if backend is not None:
            return backend
        spec = _specs.get(kind)
        if spec is None:
            raise RuntimeError(f"no backend is registered for devices of kind '{kind}'")
        backend = _instantiate(kind, spec)
        _instances[kind] = backend
        return backend


def get_backend(device: Any) -> Backend:
    """The backend that compiles, launches and allocates for ``device``."""
    return backend_for_kind(device_kind(device))


def _instantiate(kind: str, spec: BackendSpec) -> Backend:
    if isinstance(spec, Backend):
        return spec
    factory: Callable[[], Backend]
    if isinstance(spec, str):
        module_name, _, attr = spec.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            raise RuntimeError(
                f"devices of kind '{kind}' are not supported yet (no backend module {module_name})"
            ) from None
        factory = getattr(module, attr)
    else:
        factory = spec
    backend = factory()
    if not isinstance(backend, Backend):
        raise TypeError(
            f"backend for '{kind}' must be a warp.runtime.backends.Backend, got {type(backend).__name__}"
        )
    return backend


__all__ = [
    "Allocation",
    "Backend",
    "Command",
    "CommandList",
    "ErrorRecordBuffer",
    "LoadedCode",
    "backend_for_kind",
    "device_kind",
    "get_backend",
    "register_backend",
]
