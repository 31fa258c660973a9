"""Bookkeeping of the transform: where replayed values live and how a replay treats exits.

- :class:`Scope`: forward value -> its replayed copy (``env``) and array -> its adjoint array
  (``aenv``); child scopes copy their parent, because a region may be replayed several times
  (values defined inside it are never visible outside, so copies never disagree).
- :class:`Replay`: the mode of one replay. In *path* mode (a function body, or one iteration of
  a loop being reversed) leaving the region by ``return``/``break``/``continue`` or the loop
  body's ``yield`` triggers ``on_exit``, which emits the reverse sweep of every op executed on
  the way there (kept per nesting level in ``frames``) and then the adjoint's own exit. In
  *neutral* mode (regions re-replayed inside the reverse sweep, where the path is known to
  reach the end) such exits cannot be taken and become a ``yield`` of zeros.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from warp.extending import ir


class Scope:
    """Replayed values and adjoint arrays visible at one point of the adjoint being built."""

    def __init__(self, env: dict[Any, Any] | None = None, aenv: dict[int, ir.Value] | None = None):
        #: forward value id -> replayed value; also ``("clone", id(loop))`` -> (region, params,
        #: counter) of a cloned loop
        self.env: dict[Any, Any] = env if env is not None else {}
        self.aenv: dict[int, ir.Value] = aenv if aenv is not None else {}

    def child(self) -> Scope:
        return Scope(dict(self.env), dict(self.aenv))

    def get(self, value: ir.Value) -> ir.Value:
        try:
            return self.env[id(value)]
        except KeyError:
            raise RuntimeError(f"autodiff internal error: no replayed value for {value!r}") from None

    def bind(self, orig: ir.Value, new: ir.Value) -> None:
        self.env[id(orig)] = new


@dataclass
class Frame:
    """The ops of one region executed so far on the current path (in order)."""

    executed: list[ir.Op] = field(default_factory=list)


@dataclass
class Level:
    """One enclosing region of the op being replayed.

    ``kind`` is ``"root"`` (the region the replay started in), ``"if"`` (a branch of a cloned
    ``if``) or ``"loop"`` (the body of a cloned loop). ``extra(scope, args, emitter)`` gives values
    appended to this level's own terminators (adjoint arrays of yielded arrays, iteration
    counters); ``result_types`` are the cloned op's result types (for neutralized exits).
    """

    kind: str
    extra: Callable[..., list[ir.Value]] | None = None
    result_types: list[Any] = field(default_factory=list)
    #: loops whose body can return from the function: ``on_return(scope, values, emitter)``
    on_return: Callable[..., None] | None = None


@dataclass
class Replay:
    """How one replay treats exits; see the module docstring."""

    mode: str  # "path" | "neutral" | "clone"
    levels: list[Level] = field(default_factory=list)
    frames: list[Frame] | None = None
    on_exit: Callable[..., None] | None = None

    def nested(self, level: Level, *, neutral: bool = False) -> Replay:
        mode = "neutral" if neutral and self.mode == "path" else self.mode
        frames = self.frames + [Frame()] if (mode == "path" and self.frames is not None) else None
        return Replay(mode, self.levels + [level], frames, self.on_exit if mode == "path" else None)
