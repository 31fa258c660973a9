"""What the compiler knows of the user's ``@wp.func`` and ``@wp.kernel`` objects.

:class:`warp.functions.Function` and :class:`warp.kernels.Kernel` live on the public-API floor,
above the compiler; they derive from these bases so that the frontend and the cache key can
recognize them (a call of a user function in kernel code, a kernel met where a function was
expected) without importing upward. The members listed here are those the compiler reads.
"""

from __future__ import annotations

from typing import Any


class UserFunction:
    """Base of ``@wp.func`` objects (:class:`warp.functions.Function`).

    The compiler reads ``key`` and ``name``, ``overloads`` (each with its ``pyfunc``),
    ``custom_grads`` / ``custom_replays`` (``@wp.func_grad`` / ``@wp.func_replay`` definitions),
    ``native_snippet``, ``inline`` (the inlining hint), and calls :meth:`specialization`.
    """

    key: str
    name: str
    overloads: list[Any]
    custom_grads: list[Any]
    custom_replays: list[Any]
    native_snippet: str | None
    #: ``@wp.func(inline=...)``: True inlines calls (the default does too), False keeps the
    #: function out of line (LLVM ``noinline``), None: no hint
    inline: bool | None = None

    def specialization(self, overload: Any, arg_types: tuple[Any, ...]) -> Any:
        """The compiled IR function of ``overload`` for ``arg_types`` (built once, then cached)."""
        raise NotImplementedError


class UserKernel:
    """Base of ``@wp.kernel`` objects (:class:`warp.kernels.Kernel`); the compiler reads ``key``,
    ``name``, ``options`` (its own compile options) and ``module`` (its
    :class:`warp.modules.Module`, whose ``options`` are the module's compile options)."""

    key: str
    name: str
    options: dict[str, Any]
    module: Any


__all__ = ["UserFunction", "UserKernel"]
