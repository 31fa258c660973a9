"""The dtype maps between a tensor framework (PyTorch, Paddle) and warp's scalar types.

A :class:`DtypeMap` is built on first use from the framework's module (importing the framework
only when a conversion needs it), and gives the framework -> ``(warp type, itemsize)`` and warp ->
framework lookups with the errors the interop functions raise for types without a match.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from warp.extending import resolve_dtype, type_repr

from warp_interop.frameworks import require

#: ``(framework dtype, warp type, itemsize)`` pairs and the framework dtypes that unsigned warp
#: types export as where the framework has no such unsigned type
DtypePairs = tuple[Sequence[tuple[Any, Any, int]], dict[Any, Any]]


class DtypeMap:
    """Both dtype maps of the framework named ``framework`` (the name ``require`` takes, used in
    messages), filled on first use by ``build(framework module)``."""

    def __init__(self, framework: str, build: Callable[[Any], DtypePairs]) -> None:
        self.framework = framework
        self._build = build
        self._from: dict[Any, tuple[Any, int]] = {}
        self._to: dict[Any, Any] = {}

    def _ready(self, what: str) -> None:
        """Build the maps on first use (``require`` names ``what`` if the framework is missing)."""
        if not self._from:
            pairs, signed_of = self._build(require(self.framework, what))
            for t, wp_type, size in pairs:
                self._from[t] = (wp_type, size)
                self._to[wp_type] = t
            self._to.update(signed_of)

    def element(self, framework_dtype: Any, what: str) -> tuple[Any, int]:
        """``(warp scalar type, itemsize)`` of a tensor's dtype; ``TypeError`` naming ``what``
        for a dtype warp does not have."""
        self._ready(what)
        try:
            return self._from[framework_dtype]
        except (KeyError, TypeError):
            raise TypeError(
                f"{what}: {self.framework} dtype {framework_dtype} has no matching warp type"
            ) from None

    def to_warp(self, framework_dtype: Any, what: str) -> Any:
        """The warp scalar type of a framework dtype; ``TypeError`` for one warp does not have."""
        self._ready(what)
        try:
            return self._from[framework_dtype][0]
        except (KeyError, TypeError):
            raise TypeError(
                f"cannot convert {self.framework} dtype {framework_dtype} to a warp type"
            ) from None

    def from_warp(self, warp_dtype: Any, what: str) -> Any:
        """The framework dtype of a warp scalar type (vectors and matrices: of their components);
        ``TypeError`` for one the framework does not have."""
        self._ready(what)
        t = resolve_dtype(warp_dtype)
        t = getattr(t, "_wp_scalar_type_", None) or t
        try:
            return self._to[t]
        except (KeyError, TypeError):
            raise TypeError(
                f"cannot convert warp dtype {type_repr(warp_dtype)} to a {self.framework} dtype"
            ) from None
