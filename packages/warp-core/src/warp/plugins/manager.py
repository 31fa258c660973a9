"""Discovers plugins (entry-point group ``warp``), registers them and runs their hooks once."""

from __future__ import annotations

import importlib
import os
import threading
import warnings
from importlib import metadata
from types import ModuleType
from typing import Any

import pluggy

from warp.plugins import hookspecs
from warp.compiler.registry import builtin_registry
from warp.plugins import submodules

_lock = threading.RLock()
_manager: pluggy.PluginManager | None = None
_loaded = False
#: whether some registered plugin implements ``warp_record_launch`` (see :func:`records_launches`)
_records_launches = False
#: plugin name -> distribution name that provides it
plugin_distributions: dict[str, str] = {}
#: Python-scope names exported by plugins
exports: dict[str, Any] = {}
#: names plugins publish on warp-core's submodules: module name -> {name: object}
_module_exports: dict[str, dict[str, Any]] = {}

#: Core's own standard pieces, registered like any plugin but without an entry point: the
#: builtins of core kernels, and the parts written in the kernel language against ``wp`` (as
#: user code is), which ``import warp`` therefore does not import itself: ``warp.gemm``
#: (``wp.matmul``, and ``a @ b`` of arrays), ``warp.indexed_kernels`` (indexed-array gathers and
#: scatters on devices) and ``warp.geometry`` (``wp.MarchingCubes``, through
#: ``warp.geometry.plugin``).
CORE_PLUGINS = ("warp.core_plugin", "warp.gemm", "warp.indexed_kernels", "warp.geometry.plugin")


class WarpPluginManager(pluggy.PluginManager):
    """pluggy's manager, keeping :func:`records_launches` current as plugins come and go."""

    def register(self, plugin: object, name: str | None = None) -> str | None:
        try:
            return super().register(plugin, name)
        finally:
            self._refresh()

    def unregister(self, plugin: object | None = None, name: str | None = None) -> Any:
        try:
            return super().unregister(plugin, name)
        finally:
            self._refresh()

    def _refresh(self) -> None:
        global _records_launches
        caller = getattr(self.hook, "warp_record_launch", None)
        _records_launches = caller is not None and bool(caller.get_hookimpls())


def records_launches() -> bool:
    """Whether a registered plugin records launches (``warp_record_launch``): the launcher's
    cheap test before calling that hook on its hot path."""
    return _records_launches


def get_plugin_manager() -> pluggy.PluginManager:
    """The process-wide plugin manager (plugins are loaded on first use)."""
    load_plugins()
    assert _manager is not None
    return _manager


#: ``WARP_DISABLE_PLUGINS=all`` skips every entry-point plugin (core-only embedding).
ALL_PLUGINS = "all"


def disabled_plugins() -> set[str]:
    """Entry-point names listed in ``$WARP_DISABLE_PLUGINS`` (comma separated; ``all`` for every one)."""
    raw = os.environ.get("WARP_DISABLE_PLUGINS", "")
    return {name.strip() for name in raw.split(",") if name.strip()}


def _warn(plugin: str, what: str, exc: BaseException) -> None:
    warnings.warn(
        f"warp: plugin '{plugin}' {what}: {type(exc).__name__}: {exc}; it is skipped",
        RuntimeWarning,
        stacklevel=3,
    )


def _discover(pm: pluggy.PluginManager) -> None:
    for modname in CORE_PLUGINS:
        pm.register(importlib.import_module(modname), name=modname)
        plugin_distributions[modname] = "warp-core"
    skip = disabled_plugins()
    for ep in metadata.entry_points(group=hookspecs.PROJECT_NAME):
        if ep.name in skip or ALL_PLUGINS in skip or pm.has_plugin(ep.name):
            continue
        dist = ep.dist.name if ep.dist is not None else ep.name
        try:
            plugin = ep.load()
        except Exception as exc:  # a broken plugin must never break `import warp`
            _warn(ep.name, f"({ep.value} from {dist}) failed to import", exc)
            continue
        pm.register(plugin, name=ep.name)
        plugin_distributions[ep.name] = dist


def call_each(hook_name: str, **kwargs: Any) -> list[tuple[str, Any]]:
    """Call every implementation of a hook, isolating failures; returns (plugin, result) pairs."""
    assert _manager is not None
    caller = getattr(_manager.hook, hook_name)
    results = []
    for impl in reversed(caller.get_hookimpls()):
        try:
            result = impl.function(**{name: kwargs[name] for name in impl.argnames})
        except Exception as exc:
            _warn(impl.plugin_name, f"raised in {hook_name}", exc)
            continue
        results.append((impl.plugin_name, result))
    return results


def _run_registration(pm: pluggy.PluginManager) -> None:
    for impl in reversed(pm.hook.warp_register_builtins.get_hookimpls()):
        builtin_registry.current_package = plugin_distributions.get(impl.plugin_name, impl.plugin_name)
        try:
            impl.function(registry=builtin_registry)
        except Exception as exc:
            _warn(impl.plugin_name, "raised in warp_register_builtins", exc)
        finally:
            builtin_registry.current_package = None
    for plugin_name, names in call_each("warp_exports"):
        for name, obj in (names or {}).items():
            if name in exports and exports[name] is not obj:
                warnings.warn(
                    f"warp: plugin '{plugin_name}' exports '{name}', already exported",
                    RuntimeWarning,
                    stacklevel=2,
                )
                continue
            exports[name] = obj
    for plugin_name, modules in call_each("warp_module_exports"):
        for module, names in (modules or {}).items():
            table = _module_exports.setdefault(module, {})
            for name, obj in (names or {}).items():
                if name in table and table[name] is not obj:
                    warnings.warn(
                        f"warp: plugin '{plugin_name}' exports '{module}.{name}', already exported",
                        RuntimeWarning,
                        stacklevel=2,
                    )
                    continue
                table[name] = obj
    for plugin_name, names in call_each("warp_submodules"):
        submodules.register(dict(names or {}), plugin_name)
    submodules.install()


def load_plugins() -> None:
    """Discover and register all plugins and run their registration hooks (idempotent)."""
    global _manager, _loaded
    if _loaded:
        return
    with _lock:
        if _loaded:
            return
        pm = WarpPluginManager(hookspecs.PROJECT_NAME)
        pm.add_hookspecs(hookspecs)
        _manager = pm
        _discover(pm)
        _run_registration(pm)
        _loaded = True


def module_exports(module: str) -> dict[str, Any]:
    """The names plugins publish on the warp-core module ``module`` (``warp_module_exports``)."""
    load_plugins()
    return _module_exports.get(module, {})


def plugin_module(name: str) -> ModuleType | None:
    """The registered plugin object of that name, if any."""
    return get_plugin_manager().get_plugin(name)
