"""The target registry: ``get_target(device)`` gives the :class:`Target` that runs on a device.

A target registers under its name, which is also the kind of the devices it runs (``"cpu"``,
``"cuda"``), with :func:`register_target`, as an instance, a zero-argument factory, or a
``"module:attribute"`` string naming one (imported on first use, so a target's dependencies load
only when a device of its kind is used). The CPU target is built in; the CUDA target registers as
``"warp.targets.cuda.target:CudaTarget"``.

Device strings are parsed here (:func:`parse_device`): a target with numbered devices accepts
``"<name>:N"`` and ``"<name>"`` (device 0), one without accepts its name only. The device
objects themselves (and the current default device) belong to the runtime's device table,
which installs itself with :func:`set_device_resolver` so that target code given a device
argument by a user (``wp.Stream("cuda:1")``) can turn it into a device: :func:`resolve_device`.
"""

from __future__ import annotations

import importlib
import threading
from typing import Any, Callable, Union

from warp.targets.base import Target

TargetSpec = Union[Target, Callable[[], Target], str]
#: Turns a device argument (a device, ``"cuda:1"``, None for the current default) into a device.
DeviceResolver = Callable[[Any], Any]

_lock = threading.Lock()
_specs: dict[str, TargetSpec] = {
    "cpu": "warp.targets.cpu.target:CpuTarget",
    "cuda": "warp.targets.cuda.target:CudaTarget",
}
_instances: dict[str, Target] = {}
#: names of the targets whose devices are numbered (``"cuda:0"``)
_numbered: set[str] = {"cuda"}


def register_target(kind: str, target: TargetSpec, *, numbered_devices: bool = False) -> None:
    """Make ``target`` run the devices of ``kind`` (replacing an earlier registration).

    ``numbered_devices``: the devices are named ``"<kind>:N"`` (else the one device is ``kind``).
    """
    with _lock:
        _specs[kind] = target
        _instances.pop(kind, None)
        if numbered_devices:
            _numbered.add(kind)
        else:
            _numbered.discard(kind)


_device_resolver: DeviceResolver | None = None


def set_device_resolver(resolver: DeviceResolver) -> None:
    """Install the device table that :func:`resolve_device` asks (``warp.runtime.devices``
    installs ``get_device`` when it loads)."""
    global _device_resolver
    _device_resolver = resolver


def resolve_device(device: Any) -> Any:
    """The device named by a user's device argument (``"cuda:1"``, a device, None for the
    current default), from the runtime's device table."""
    if _device_resolver is None:
        raise RuntimeError("no device table is installed: import warp before using devices")
    return _device_resolver(device)


def target_names() -> list[str]:
    """Names of the registered targets, in registration order (``"cpu"``, ``"cuda"``, ...)."""
    return list(_specs)


def _device_forms() -> str:
    forms = [f"'{k}'" + (f", '{k}:N'" if k in _numbered else "") for k in _specs]
    text = ", ".join(forms)
    head, _, last = text.rpartition(", ")
    return f"{head} or {last}" if head else last


def parse_device(ident: str) -> tuple[str, int]:
    """``(kind, ordinal)`` of a device string: ``"cuda:1"`` -> ``("cuda", 1)``, ``"cuda"`` ->
    ``("cuda", 0)``, ``"cpu"`` -> ``("cpu", -1)``. Raises ``ValueError`` naming the accepted forms."""
    kind, sep, suffix = ident.partition(":")
    if kind in _specs:
        if kind not in _numbered:
            if not sep:
                return kind, -1
        elif not sep:
            return kind, 0
        elif suffix.isdigit():
            return kind, int(suffix)
        else:
            raise ValueError(f"invalid device identifier '{ident}': expected '{kind}' or '{kind}:N'")
    raise ValueError(f"invalid device identifier '{ident}': expected {_device_forms()}")


def device_kind(device: Any) -> str:
    """The kind of ``device``: ``"cpu"`` or ``"cuda"``."""
    kind = getattr(device, "kind", None)
    if kind:
        return kind
    return "cpu" if getattr(device, "is_cpu", False) else "cuda"


def target_for_kind(kind: str) -> Target:
    """The target registered for ``kind`` (created on first use)."""
    target = _instances.get(kind)
    if target is not None:
        return target
    with _lock:
        target = _instances.get(kind)
        if target is not None:
            return target
        spec = _specs.get(kind)
        if spec is None:
            raise RuntimeError(f"no target is registered for devices of kind '{kind}'")
        target = _instantiate(kind, spec)
        _instances[kind] = target
        return target


def get_target(device: Any) -> Target:
    """The target that compiles, launches and allocates for ``device``."""
    return target_for_kind(device_kind(device))


def _instantiate(kind: str, spec: TargetSpec) -> Target:
    if isinstance(spec, Target):
        return spec
    factory: Callable[[], Target]
    if isinstance(spec, str):
        module_name, _, attr = spec.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            raise RuntimeError(
                f"devices of kind '{kind}' are not supported yet (no target module {module_name})"
            ) from None
        factory = getattr(module, attr)
    else:
        factory = spec
    target = factory()
    if not isinstance(target, Target):
        raise TypeError(
            f"target for '{kind}' must be a warp.targets.Target, got {type(target).__name__}"
        )
    return target


__all__ = [
    "DeviceResolver",
    "TargetSpec",
    "device_kind",
    "get_target",
    "parse_device",
    "register_target",
    "resolve_device",
    "set_device_resolver",
    "target_for_kind",
    "target_names",
]
