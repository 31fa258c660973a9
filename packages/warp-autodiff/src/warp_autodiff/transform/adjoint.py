"""Adjoints of whole functions: kernels, user functions, and replay versions of functions.

Kernel adjoint (the ``warp_adjoint_function`` contract)::

    adj_k(*params, *adj_params)      # one adjoint per parameter, same types

    replay the forward body (no array writes); at every ``return`` reached:
        sweep backwards over the ops executed on the way, accumulating adjoints:
        loads add into adjoint arrays, stores/atomics read them

User function ``f(*params) -> results`` called from a kernel gets::

    f_adj(*params, *adj_arrays, *adj_results) -> adjoints of its differentiable params

with one adjoint array per array parameter and one adjoint per differentiable result, and a
replay version ``f_replay`` (same signature as ``f``) when ``f`` writes arrays.
"""

from __future__ import annotations

import threading
import warnings
import weakref
from dataclasses import dataclass
from typing import Any

from warp.extending import bool as wp_bool, custom_adjoint_ir, FixedArrayType, ir, verify_function

from warp_autodiff import ops
from warp_autodiff.transform.analysis import (
    accessed_arrays,
    exclusive_arrays,
    has_side_effects,
    is_thread_index,
    reaches_gradient_arrays,
    tid_index_sets,
    used_values,
)
from warp_autodiff.transform.emit import Emitter
from warp_autodiff.adjoint_types import carries_arrays, is_differentiable
from warp_autodiff.loop_memory import TapeLayout
from warp_autodiff.transform.loops import LoopsMixin
from warp_autodiff.transform.replay import ReplayMixin
from warp_autodiff.transform.variants import build_guard, eligible_loops
from warp_autodiff.transform.reverse import ReverseMixin
from warp_autodiff.transform.scope import Frame, Level, Replay, Scope


class AdjointWarning(UserWarning):
    """A kernel's adjoint may be inexact or costly (a documented restriction is broken)."""


@dataclass
class FuncAdjoint:
    """The adjoint of a user function and how its call sites pass arguments."""

    function: ir.Function
    diff_params: list[int]
    array_params: list[int]
    diff_results: list[int]


class AdjointBuilder(LoopsMixin, ReplayMixin, ReverseMixin):
    """Builds the adjoint of one IR function (see the module docstring)."""

    def __init__(
        self,
        fn: ir.Function,
        funcs: FunctionAdjoints,
        *,
        kernel: bool,
        layout: TapeLayout | None = None,
        assume_fit: bool = False,
    ):
        self.fn = fn
        self.funcs = funcs
        #: building the fast variant: stored loops read every iteration back (see transform.variants)
        self.assume_fit = assume_fit
        #: loop sites storing iterations in per-thread memory (shared by the functions a kernel calls)
        self.layout = layout
        self.used = used_values(fn)
        self.exclusive = exclusive_arrays(fn) if kernel else set()
        self.tids = tid_index_sets(fn)
        #: replayed adjoint arrays known to exist in the version being built (no null checks)
        self.nonnull: set[int] = set()
        #: (result index, adjoint param) of the adjoint function's incoming result adjoints
        self.return_seeds: list[tuple[int, ir.Value]] = []
        #: kernel value parameter id -> its adjoint parameter (what ``print`` shows as its adjoint)
        self.param_adjoints: dict[int, ir.Value] = {}
        #: bool value: exclusively indexed adjoint arrays do not alias other ones (None: no risk)
        self.no_alias: ir.Value | None = None
        self._warned: set[tuple[Any, str]] = set()
        self._warn_local_arrays()

    # -- diagnostics ------------------------------------------------------------------------
    def warn(self, op: ir.Op | None, message: str) -> None:
        loc = op.loc if op is not None else self.fn.loc
        key = (loc, message)
        if key in self._warned:
            return
        self._warned.add(key)
        text = f"{message} (in '{self.fn.name}'"
        if loc is not None:
            text += f" at {loc.file}:{loc.line}"
            if loc.text:
                text += f": {loc.text.strip()}"
        text += ")"
        if loc is not None and loc.file:
            warnings.warn_explicit(text, AdjointWarning, loc.file, loc.line)
        else:
            warnings.warn(text, AdjointWarning, stacklevel=2)

    def _warn_local_arrays(self) -> None:
        """Kernel-local arrays (``wp.zeros``/``wp.empty`` in kernel code) have no adjoint storage."""
        for op in ir.walk(self.fn.body):
            local = [r for r in op.results if isinstance(r.type, FixedArrayType)]
            if any(is_differentiable(r.type.dtype) for r in local):
                self.warn(
                    op,
                    "gradients do not flow through kernel-local arrays (wp.zeros/wp.empty in kernel "
                    "code): values stored in one and read back get a zero gradient",
                )

    # -- adjoint arrays ---------------------------------------------------------------------
    def array_accumulate(
        self, em: Emitter, scope: Scope, op: ir.Op, k: int, indices: list, value: Any
    ) -> None:
        array = op.args[k]
        target = self.adjoint_array(em, scope, array)
        ndim = array.type.ndim
        exclusive = id(array) in self.exclusive and is_thread_index(
            list(op.args[1 : 1 + ndim]), ndim, self.tids
        )
        known = id(target) in self.nonnull
        if exclusive and self.no_alias is not None:
            kind = ops.ACCUMULATE_EXCLUSIVE_GUARDED_NONNULL if known else ops.ACCUMULATE_EXCLUSIVE_GUARDED
            em.effect(kind, [self.no_alias, target, *indices, value])
            return
        if exclusive:
            kind = ops.ACCUMULATE_EXCLUSIVE_NONNULL if known else ops.ACCUMULATE_EXCLUSIVE
        else:
            kind = ops.ACCUMULATE_NONNULL if known else ops.ACCUMULATE
        em.effect(kind, [target, *indices, value])

    def array_adjoint_load(self, em: Emitter, scope: Scope, op: ir.Op, k: int, indices: list) -> Any:
        array = op.args[k]
        target = self.adjoint_array(em, scope, array)
        kind = ops.LOAD_NONNULL if id(target) in self.nonnull else ops.LOAD
        return em.internal(kind, [target, *indices], array.type.dtype)

    def array_clear(self, em: Emitter, scope: Scope, op: ir.Op, k: int, indices: list) -> None:
        target = self.adjoint_array(em, scope, op.args[k])
        kind = ops.CLEAR_NONNULL if id(target) in self.nonnull else ops.CLEAR
        em.effect(kind, [target, *indices])

    # -- functions --------------------------------------------------------------------------
    def _clone_params(self) -> tuple[list[ir.Value], Scope]:
        params = [ir.Value(p.type, p.name) for p in self.fn.params]
        scope = Scope()
        for p, q in zip(self.fn.params, params):
            scope.bind(p, q)
        return params, scope

    def build_kernel(self) -> ir.Function:
        """The kernel's adjoint: params ``(*params, *adj_params)``.

        When the kernel accesses array elements, the body is built twice under
        ``if all adjoint arrays exist``: a version without null checks (which LLVM vectorizes)
        and a checked one for launches that pass ``None`` for some adjoint.
        """
        fn = self.fn
        params, scope = self._clone_params()
        adj_params = [ir.Value(p.type, f"adj_{p.name}") for p in fn.params]
        for p, a in zip(fn.params, adj_params):
            if carries_arrays(p.type):
                scope.aenv[id(p)] = a
            else:
                self.param_adjoints[id(p)] = a
        body = ir.Region()
        em = Emitter(body, fn.loc)

        def on_exit(term: ir.Op, at: Emitter, s: Scope, rp: Replay) -> None:
            self.sweep_frames(rp.frames or [], at, s, {})
            at.op("return", [])

        def version(region: ir.Region, nonnull: set[int]) -> None:
            self.nonnull = nonnull
            self.replay_ops(
                fn.body.ops,
                Emitter(region, fn.loc),
                scope.child(),
                Replay("path", [Level("root")], [Frame()], on_exit),
            )
            self.nonnull = set()

        used = accessed_arrays(fn)
        checked = [a for p, a in zip(fn.params, adj_params) if id(p) in used]
        self.no_alias = self._alias_guard(em, adj_params, used)
        if checked:
            flag = em.internal(ops.NONNULL, [checked[0]], wp_bool)
            for a in checked[1:]:
                flag = em.call("logical_and", flag, em.internal(ops.NONNULL, [a], wp_bool))
            fast, slow = ir.Region(), ir.Region()
            version(fast, {id(a) for a in checked})
            version(slow, set())
            em.op("if", [flag], [], regions=[fast, slow])
        else:
            version(body, set())
        return self._finish(
            body,
            params + adj_params,
            list(fn.param_names) + [f"adj_{n}" for n in fn.param_names],
            [],
            "_adj_fast" if self.assume_fit else "_adj",
            kernel=True,
        )

    def _alias_guard(self, em: Emitter, adj_params: list, used: set[int]) -> ir.Value | None:
        """``adj(p) is not adj(q)`` for every exclusive p and other accessed array q (and a
        one-dimensional launch if a single ``wp.tid()`` makes arrays exclusive), or None.

        The same gradient array may be passed for two parameters; plain (non-atomic) updates
        through one would then race with atomic ones through the other.
        """
        exclusive = [a for p, a in zip(self.fn.params, adj_params) if id(p) in self.exclusive]
        others = [
            a
            for p, a in zip(self.fn.params, adj_params)
            if id(p) in used and id(p) not in self.exclusive and carries_arrays(p.type)
        ]
        flag = None
        if exclusive and any(len(ids) == 1 for _, ids in self.tids.values()):
            # a single i = wp.tid() is the first coordinate: unique to the thread only in a 1-D launch
            flag = em.internal(ops.ONE_DIMENSIONAL, [], wp_bool)
        for a in exclusive:
            for b in others:
                if not getattr(b.type, "is_array_type", False):
                    continue
                distinct = em.internal(ops.DISTINCT, [a, b], wp_bool)
                flag = distinct if flag is None else em.call("logical_and", flag, distinct)
        return flag

    def build_func(self) -> FuncAdjoint | None:
        """The adjoint of a user function, or None if nothing in it can carry a gradient."""
        fn = self.fn
        diff_params = [k for k, p in enumerate(fn.params) if is_differentiable(p.type)]
        array_params = [k for k, p in enumerate(fn.params) if carries_arrays(p.type)]
        diff_results = [j for j, t in enumerate(fn.return_types) if is_differentiable(t)]
        if not diff_params and not array_params  and not reaches_gradient_arrays(fn):
            return None
        params, scope = self._clone_params()
        adj_arrays = [ir.Value(fn.params[k].type, f"adj_{fn.params[k].name}") for k in array_params]
        adj_results = [ir.Value(fn.return_types[j], f"adj_ret{j}") for j in diff_results]
        for k, a in zip(array_params, adj_arrays):
            scope.aenv[id(fn.params[k])] = a
        body = ir.Region()

        self.return_seeds = list(zip(diff_results, adj_results))

        def on_exit(term: ir.Op, at: Emitter, s: Scope, rp: Replay) -> None:
            adj: dict = {}
            self.seed_return(term, adj, at)
            self.sweep_frames(rp.frames or [], at, s, adj)
            out = []
            for k in diff_params:
                p = fn.params[k]
                out.append(adj[id(p)] if id(p) in adj else at.zero(p.type))
            at.op("return", out)

        self.replay_ops(
            fn.body.ops, Emitter(body, fn.loc), scope, Replay("path", [Level("root")], [Frame()], on_exit)
        )
        names = list(fn.param_names) + [f"adj_{fn.param_names[k]}" for k in array_params]
        names += [f"adj_ret{j}" for j in diff_results]
        result = self._finish(
            body,
            params + adj_arrays + adj_results,
            names,
            [fn.params[k].type for k in diff_params],
            "_adj",
            kernel=False,
        )
        return FuncAdjoint(result, diff_params, array_params, diff_results)

    def build_replay(self) -> ir.Function:
        """A copy of the function without array writes or prints (same signature)."""
        fn = self.fn
        params, scope = self._clone_params()
        body = ir.Region()
        self.replay_ops(fn.body.ops, Emitter(body, fn.loc), scope, Replay("clone", [Level("root")]))
        return self._finish(
            body, params, list(fn.param_names), list(fn.return_types), "_replay", kernel=False
        )

    def _finish(
        self, body: ir.Region, params: list, names: list, returns: list, suffix: str, *, kernel: bool
    ) -> ir.Function:
        result = ir.Function(
            name=self.fn.name,
            params=params,
            param_names=names,
            body=body,
            return_types=returns,
            is_kernel=kernel,
            loc=self.fn.loc,
            symbol=self.fn.symbol + suffix,
        )
        verify_function(result)
        return result


class FunctionAdjoints:
    """Per-process cache of user-function adjoints and replay versions (keyed by IR function)."""

    def __init__(self) -> None:
        #: per kernel layout: function adjoints may store loop iterations in that kernel's memory
        self._adjoints: weakref.WeakKeyDictionary[
            TapeLayout, dict[int, tuple[ir.Function, FuncAdjoint | None]]
        ]
        self._adjoints = weakref.WeakKeyDictionary()
        self._replays: dict[int, tuple[ir.Function, ir.Function]] = {}
        self._lock = threading.RLock()

    def adjoint(self, fn: ir.Function, layout: TapeLayout) -> FuncAdjoint | None:
        with self._lock:
            table = self._adjoints.setdefault(layout, {})
            hit = table.get(id(fn))
            if hit is None or hit[0] is not fn:
                custom = custom_adjoint(fn)  # a @wp.func_grad definition replaces the derived adjoint
                if custom is None:
                    with warnings.catch_warnings():
                        if _custom_replay(fn) is not None:
                            # the user's @wp.func_replay says how to replay fn: no warnings about
                            # replaying its body (e.g. the result of an atomic) inside fn's adjoint
                            warnings.simplefilter("ignore", AdjointWarning)
                        custom = AdjointBuilder(fn, self, kernel=False, layout=layout).build_func()
                hit = (fn, custom)
                table[id(fn)] = hit
            return hit[1]

    def replay_version(self, fn: ir.Function) -> ir.Function:
        with self._lock:
            hit = self._replays.get(id(fn))
            if hit is None or hit[0] is not fn:
                custom = _custom_replay(fn)  # a @wp.func_replay definition runs instead of fn
                if custom is not None:
                    target = custom
                elif has_side_effects(fn):
                    target = AdjointBuilder(fn, self, kernel=False).build_replay()
                else:
                    target = fn
                hit = (fn, target)
                self._replays[id(fn)] = hit
            return hit[1]


def custom_adjoint(fn: ir.Function) -> FuncAdjoint | None:
    """The adjoint of user function ``fn`` from its ``@wp.func_grad`` definition, if it has one."""
    origin = getattr(fn, "origin", None)
    if origin is None or not getattr(origin, "custom_grads", None):
        return None
    grad = origin.custom_definition("grad", [p.type for p in fn.params])
    if grad is None:
        return None
    diff_params = [k for k, p in enumerate(fn.params) if is_differentiable(p.type)]
    array_params = [k for k, p in enumerate(fn.params) if carries_arrays(p.type)]
    diff_results = [j for j, t in enumerate(fn.return_types) if is_differentiable(t)]
    function = custom_adjoint_ir(origin, grad, fn, diff_params, array_params, diff_results)
    return FuncAdjoint(function, diff_params, array_params, diff_results)


def _custom_replay(fn: ir.Function) -> ir.Function | None:
    origin = getattr(fn, "origin", None)
    if origin is None or not getattr(origin, "custom_replays", None):
        return None
    return origin.replay_specialization(tuple(p.type for p in fn.params))


function_adjoints = FunctionAdjoints()


def kernel_adjoint(fn: ir.Function) -> ir.Function:
    """The adjoint IR function of kernel ``fn`` (see the module docstring).

    When loops store iterations, the function carries ``scratch`` (see :mod:`warp_autodiff.loop_memory`):
    the per-launch memory the launcher must provide.
    """
    layout = TapeLayout()
    result = AdjointBuilder(fn, function_adjoints, kernel=True, layout=layout).build_kernel()
    if layout.sites:
        result.scratch = layout.describe()
        loops = eligible_loops(fn, layout)
        if loops is not None:
            count = len(layout.sites)
            fast = AdjointBuilder(
                fn, function_adjoints, kernel=True, layout=layout, assume_fit=True
            ).build_kernel()
            if len(layout.sites) == count:  # the same sites (else a loop was missed: no variant)
                result.variants = ir.KernelVariants(guard=build_guard(fn, layout, loops), fast=fast)
    return result
