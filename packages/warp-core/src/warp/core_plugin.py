"""warp-core's own builtins, registered through the same hooks a third-party plugin uses."""

from __future__ import annotations


from warp.core_builtins import array_slices, arrays, assertions, casts, composite, operators, thread
from warp.compiler.registry import BuiltinRegistry
from warp.plugins import hookimpl


@hookimpl
def warp_register_builtins(registry: BuiltinRegistry) -> None:
    """Operators, conversions, thread index and array access."""
    operators.register(registry)
    casts.register(registry)
    thread.register(registry)
    arrays.register(registry)
    array_slices.register(registry)
    composite.register(registry)
    assertions.register(registry)
