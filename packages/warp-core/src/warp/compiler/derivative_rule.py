"""The record of a reverse-mode derivative rule, as attached to builtin overloads.

Core only stores rules (:attr:`warp.compiler.registry.Overload.derivative_rules`); the
reverse-mode transform of warp-autodiff interprets them. Rules are registered with the
functions of :mod:`warp.compiler.derivatives` (re-exported by :mod:`warp.extending`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

_order = itertools.count()


@dataclass(eq=False)
class DerivativeRule:
    """The reverse-mode rule of one builtin (for the argument types ``applies`` accepts).

    ``backward(ctx)`` receives warp-autodiff's ``RuleContext`` for one forward call and returns
    one adjoint contribution per argument (``None`` for none). ``primal_args``: indices of the
    arguments whose values the rule reads (None: all; or a function of the op). ``replay``:
    ``"keep"`` (the forward replay computes the op again) or ``"effect"`` (it drops it). ``always``:
    run even when the results carry no adjoint. ``reference``: a ``@wp.func`` computing the same
    function, whose adjoint is then the builtin's (``backward`` is unused).
    """

    name: str
    backward: Callable[[Any], Sequence[Any] | None]
    applies: Callable[[list[Any]], bool] | None = None
    primal_args: tuple[int, ...] | Callable[[Any], tuple[int, ...]] | None = None
    replay: str = "keep"
    always: bool = False
    reference: Any = None
    #: registration order: among the rules of one overload, the latest registered wins
    order: int = field(default_factory=lambda: next(_order))

    def accepts(self, arg_types: list[Any]) -> bool:
        """Whether the rule applies to a call with these argument types."""
        return self.applies is None or self.applies(arg_types)
