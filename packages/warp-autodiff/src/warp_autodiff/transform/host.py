"""What the mixins of :class:`~warp_autodiff.transform.adjoint.AdjointBuilder` share.

The builder is split by concern (:mod:`.loops`, :mod:`.replay`, :mod:`.reverse`); each mixin reads
the builder's state and calls methods another mixin defines. :class:`BuilderHost`, their common
base, declares that state and those methods, so each mixin type-checks on its own. The methods
are declared for the type checker only: at run time the mixin defining each one provides it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from warp.extending import ir

from warp_autodiff.loop_memory import TapeLayout
from warp_autodiff.transform.emit import Emitter
from warp_autodiff.transform.scope import Frame, Replay, Scope

if TYPE_CHECKING:
    from warp_autodiff.transform.adjoint import FunctionAdjoints

#: forward value id -> adjoint value
Adj = dict


class BuilderHost:
    """State and cross-mixin methods of the adjoint builder (set in ``AdjointBuilder.__init__``)."""

    #: the forward function being differentiated
    fn: ir.Function
    #: adjoints of the user functions it calls
    funcs: FunctionAdjoints
    #: building the fast variant: stored loops read every iteration back
    assume_fit: bool
    #: loop sites storing iterations in per-thread memory (None: nothing stored)
    layout: TapeLayout | None
    #: ids of forward values read after their definition
    used: set[int]
    #: replayed adjoint arrays known to exist in the version being built
    nonnull: set[int]
    #: (result index, adjoint param) of the adjoint function's incoming result adjoints
    return_seeds: list[tuple[int, ir.Value]]
    #: kernel value parameter id -> its adjoint parameter (what ``print`` shows as its adjoint)
    param_adjoints: dict[int, ir.Value]

    def tape_layout(self) -> TapeLayout:
        """The loop-memory layout; only builders of adjoints (not of replays) have one."""
        if self.layout is None:
            raise RuntimeError("autodiff internal error: an adjoint builder without a tape layout")
        return self.layout

    if TYPE_CHECKING:  # defined by the mixins; declared here for the type checker

        def warn(self, op: ir.Op | None, message: str) -> None: ...

        def accumulate(self, adj: Adj, value: ir.Value, contribution: Any, em: Emitter) -> None: ...

        def seed_return(self, term: ir.Op, adj: Adj, em: Emitter) -> None: ...

        def sweep_frames(self, frames: list[Frame], em: Emitter, scope: Scope, adj: Adj) -> None: ...

        def reverse_loop(self, op: ir.Op, em: Emitter, scope: Scope, adj: Adj) -> None: ...

        def replay_ops(self, ops_: list[ir.Op], em: Emitter, scope: Scope, rp: Replay) -> bool: ...

        def adjoint_carrier(self, em: Emitter, scope: Scope, value: ir.Value) -> ir.Value: ...

        def clone_for(
            self,
            op: ir.Op,
            em: Emitter,
            scope: Scope,
            rp: Replay,
            stop: ir.Value | None = None,
            start: ir.Value | None = None,
            inits: list[ir.Value] | None = None,
            on_iteration: Any = None,
        ) -> ir.Op: ...

        def clone_while(
            self,
            op: ir.Op,
            em: Emitter,
            scope: Scope,
            rp: Replay,
            limit: ir.Value | None = None,
            inits: list[ir.Value] | None = None,
            on_iteration: Any = None,
        ) -> ir.Op: ...
