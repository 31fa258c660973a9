"""Plugin system: pluggy hook specifications and the plugin manager (entry-point group ``warp``)."""

from warp.plugins.hookspecs import hookimpl, hookspec
from warp.plugins.manager import get_plugin_manager, load_plugins

__all__ = ["get_plugin_manager", "hookimpl", "hookspec", "load_plugins"]
