"""Modules: the kernels and functions of one Python module, with shared compile options.

As in NVIDIA Warp, every ``@wp.kernel`` and ``@wp.func`` belongs to a module named after the
Python module defining it (or the ``module=`` given to ``@wp.kernel``). Options set with
:func:`set_module_options` apply to all kernels of the module; :func:`load_module` and
:func:`force_load` compile (or load from the cache) ahead of the first launch. Kernels are
compiled one by one here (each has its own cache entry), so "loading a module" means loading
each of its kernels.
"""

from __future__ import annotations

import hashlib
import itertools
import sys
import threading
import types
from typing import Any, Callable, Iterable, Iterator

from warp import config
from warp.compiler.hashing import kernel_content_hash
from warp.runtime import log
from warp.runtime.kernel_loader import preload_kernels
from warp.runtime.devices import get_device, get_devices


def default_module_options() -> dict[str, Any]:
    """The options every module has before any is set: Warp's keys, valued from ``wp.config``."""
    return {
        "max_unroll": config.max_unroll,
        "enable_backward": config.enable_backward,
        "fast_math": False,
        "fuse_fp": True,
        "lineinfo": config.lineinfo,
        "cuda_output": config.cuda_output,
        "mode": config.mode,
        "optimization_level": config.optimization_level,
        "block_dim": 256,
        "compile_time_trace": config.compile_time_trace,
    }


class ModuleOptions(dict):  # type: ignore[type-arg]
    """A module's compile options as Warp exposes them (``module.options["enable_backward"]``).

    The dict holds only the options set on the module (``wp.set_module_options``, assignment);
    reading a key that was not set gives the default of :func:`default_module_options`, which
    follows ``wp.config`` at the time of reading. Setting or deleting a key makes the module's
    kernels rebuild at their next launch.
    """

    def __init__(self, module: Module):
        super().__init__()
        self._module = module

    def explicit(self) -> dict[str, Any]:
        """Only the options set on the module."""
        return dict(super().items())

    def _merged(self) -> dict[str, Any]:
        return {**default_module_options(), **self.explicit()}

    def __missing__(self, key: str) -> Any:
        defaults = default_module_options()
        if key in defaults:
            return defaults[key]
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        return self._merged().get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._merged()

    def __iter__(self) -> Iterator[str]:
        return iter(self._merged())

    def __len__(self) -> int:
        return len(self._merged())

    def keys(self) -> Any:  # type: ignore[override]
        return self._merged().keys()

    def items(self) -> Any:  # type: ignore[override]
        return self._merged().items()

    def values(self) -> Any:  # type: ignore[override]
        return self._merged().values()

    def copy(self) -> dict[str, Any]:  # type: ignore[override]
        return self._merged()

    def __repr__(self) -> str:
        return repr(self._merged())

    def __setitem__(self, key: str, value: Any) -> None:
        super().__setitem__(key, value)
        self._module.mark_modified()

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        self._module.mark_modified()

    def clear(self) -> None:
        super().clear()
        self._module.mark_modified()

    def pop(self, key: str, *default: Any) -> Any:  # type: ignore[override]
        value = super().pop(key, *default)
        self._module.mark_modified()
        return value

    def update(self, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        super().update(*args, **kwargs)
        self._module.mark_modified()


class Module:
    """The kernels and functions of one module and its compile options."""

    def __init__(self, name: str):
        self.name = name
        #: kernel key -> Kernel (generic kernels hold their instances in ``kernel.overloads``)
        self.kernels: dict[str, Any] = {}
        #: module options (``enable_backward``, ``max_unroll``, ...); unset ones follow ``wp.config``
        self.options = ModuleOptions(self)
        #: function key -> Function
        self.functions: dict[str, Any] = {}

    def all_kernels(self) -> list[Any]:
        """Concrete kernels: plain kernels and the instances of generic ones."""
        out = []
        for k in list(self.kernels.values()):
            out.extend(list(k.overloads.values()) if k.is_generic else [k])
        return out

    def load(self, device: Any = None) -> bool:
        """Compile or load from the cache every concrete kernel of the module for ``device``.

        The kernels found in the cache load together first (one JIT link on the CPU); the others
        compile one by one."""
        dev = get_device(device)
        with log.module_load(self.name, dev):
            kernels = self.all_kernels()
            pending = [k for k in kernels if not k.is_loaded(dev)]
            if len(pending) > 1:
                for k, compiled in zip(pending, preload_kernels(pending, dev)):
                    if compiled is not None:
                        k.adopt_compiled(dev, compiled)
            for k in kernels:
                k.compiled(dev)
        return True

    def hash_module(self) -> str:
        """A sha256 hex digest of the module's content (Warp's ``Module.hash_module``): its kernels
        and generic kernels' instances, the code, types and constants they reach, and the module's
        options (and each kernel's own, launch bounds included). It changes when any of these does
        and is the same in every process otherwise."""
        kernels = [*self.kernels.values(), *[k for k in self.all_kernels() if k.template is not None]]
        digests = sorted(kernel_content_hash(k, k.content_options()) for k in kernels)
        return hashlib.sha256("\n".join(digests).encode()).hexdigest()

    def mark_modified(self) -> None:
        """Forget loaded code so the next launch rebuilds it (options changed)."""
        for k in self.all_kernels():
            k.unload()

    unload = mark_modified

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"<warp module {self.name!r}: {len(self.kernels)} kernels, {len(self.functions)} functions>"


_modules: dict[str, Module] = {}
_lock = threading.Lock()
_unique = itertools.count()


def get_module(name: str | types.ModuleType | Module) -> Module:
    """The :class:`Module` of this name (created on first use); accepts a Python module too."""
    if isinstance(name, Module):
        return name
    if isinstance(name, types.ModuleType):
        name = name.__name__
    if not isinstance(name, str):
        raise TypeError(
            f"a module is named by a string, a Python module or a warp Module, got {type(name).__name__}"
        )
    with _lock:
        module = _modules.get(name)
        if module is None:
            module = _modules[name] = Module(name)
        return module


def mark_all_modified() -> None:
    """Forget the loaded code and the functions' IR of every module: a module-level ``@wp.func``
    was defined again (``importlib.reload`` of its module), and kernels anywhere may call it,
    directly or through other functions. Each kernel's next launch loads it again, from the
    kernel cache when its content did not change."""
    with _lock:
        modules = list(_modules.values())
    for module in modules:
        for function in list(module.functions.values()):
            function.forget_specializations()
        module.mark_modified()


def module_of(pyfunc: Callable[..., Any], module: Any = None) -> Module:
    """The Module of a kernel/function: ``module`` if given ("unique": a fresh one), else its own."""
    if module is None:
        return get_module(pyfunc.__module__)
    if module == "unique":
        return get_module(f"{pyfunc.__module__}.{pyfunc.__qualname__}.unique{next(_unique)}")
    return get_module(module)


def _caller_module(depth: int = 2) -> str:
    return sys._getframe(depth).f_globals.get("__name__", "__main__")


def set_module_options(options: dict[str, Any], module: Any = None) -> None:
    """Set compile options (e.g. ``{"enable_backward": False, "max_unroll": 4}``) of a module.

    ``module`` is a Python module, a module name or a :class:`Module`; by default the caller's.
    Kernels already loaded are rebuilt at their next launch.
    """
    target = get_module(module if module is not None else _caller_module())
    target.options.update(options)


def get_module_options(module: Any = None) -> dict[str, Any]:
    """The compile options of a module (by default the caller's): those set with
    :func:`set_module_options` over the defaults (:func:`default_module_options`)."""
    target = get_module(module if module is not None else _caller_module())
    return target.options.copy()


def _devices(device: Any) -> list[Any]:
    if device is None:
        return list(get_devices())
    if isinstance(device, (list, tuple)):
        return [get_device(d) for d in device]
    return [get_device(device)]


def load_module(module: Any = None, device: Any = None, recursive: bool = False) -> None:
    """Compile (or load from the cache) the kernels of ``module`` for ``device`` before any launch.

    ``module`` is a Python module, a name or a :class:`Module` (default: the caller's module);
    with ``recursive=True`` the modules whose names start with ``module.`` load too.
    """
    root = get_module(module if module is not None else _caller_module())
    targets = [root]
    if recursive:
        prefix = root.name + "."
        with _lock:
            targets += [m for n, m in _modules.items() if n.startswith(prefix)]
    for dev in _devices(device):
        for m in targets:
            m.load(dev)


def force_load(device: Any = None, modules: Iterable[Any] | None = None) -> None:
    """Compile (or load from the cache) the kernels of ``modules`` (default: all) on ``device``."""
    if modules is None:
        with _lock:
            targets = list(_modules.values())
    else:
        targets = [get_module(m) for m in modules]
    for dev in _devices(device):
        for m in targets:
            m.load(dev)
