"""The forward replay: forward ops copied into the adjoint, without their effects on arrays.

Warp's adjoint kernels recompute the forward pass before sweeping backwards. The copy drops
ops whose rule says ``replay="effect"`` (array stores, atomics) and prints, except on
kernel-local arrays (``wp.zeros`` in kernel code: thread-private, rebuilt by the replay); calls of user
functions with such effects call a replay version of the function. Alongside the primal values
the replay computes each array's *adjoint array* (views of adjoint arrays, ``if`` results), and
every cloned dynamic loop counts its iterations: the reverse loop runs that many times.
"""

from __future__ import annotations

from typing import Any

from warp.extending import bool as wp_bool, FixedArrayType, int32, int64, ir

from warp_autodiff import ops
from warp_autodiff.rules import lookup_rule
from warp_autodiff.transform.emit import Emitter
from warp_autodiff.adjoint_types import carries_arrays, is_array
from warp_autodiff.transform.scope import Level, Replay, Scope
from warp_autodiff.transform.host import BuilderHost


def count_type(t: Any) -> Any:
    """Integer type of a loop's iteration counter (matches the induction variable's width)."""
    return int64 if getattr(t, "_bits_", 32) == 64 else int32


class ReplayMixin(BuilderHost):
    """Methods of :class:`~warp_autodiff.transform.adjoint.AdjointBuilder` that copy forward IR."""

    # -- regions ----------------------------------------------------------------------------
    def replay_ops(self, ops_: list[ir.Op], em: Emitter, scope: Scope, rp: Replay) -> bool:
        """Replay ``ops_`` into ``em``; returns True if a terminator ended the region."""
        for op in ops_:
            em.loc = op.loc
            if op.kind in ir.TERMINATORS:
                self.replay_terminator(op, em, scope, rp)
                return True
            self.replay_op(op, em, scope, rp)
            if rp.frames is not None:
                rp.frames[-1].executed.append(op)
        return False

    def replay_terminator(self, op: ir.Op, em: Emitter, scope: Scope, rp: Replay) -> None:
        args = [scope.get(a) for a in op.args]
        level = rp.levels[-1] if rp.levels else Level("root")
        local = False
        target = level
        if op.kind == "yield":
            local = level.kind in ("if", "loop")
        elif op.kind in ("break", "continue"):
            loops = [lv for lv in rp.levels if lv.kind == "loop"]
            if loops:
                local, target = True, loops[-1]
        elif op.kind == "return":
            local = rp.mode == "clone"
            loops = [lv for lv in rp.levels if lv.kind == "loop"]
            if not local and loops and loops[-1].on_return is not None:
                loops[-1].on_return(scope, args, em)  # leaves the cloned loop with a flag set
                return
        elif op.kind == "condition":
            raise RuntimeError("autodiff internal error: stray loop condition")
        if local:
            extra = target.extra(scope, list(op.args), em) if target.extra is not None else []
            em.op(op.kind, args + extra)
            return
        if rp.mode == "path" and rp.on_exit is not None:
            rp.on_exit(op, em, scope, rp)
            return
        # neutral: this exit is never taken on the path being replayed
        em.op("yield", [em.zero(t) for t in level.result_types])

    # -- single ops -------------------------------------------------------------------------
    def replay_op(self, op: ir.Op, em: Emitter, scope: Scope, rp: Replay) -> None:
        kind = op.kind
        if kind == "const":
            new = em.const(op.attrs["value"], op.result.type)
            new.weak = op.result.weak
            scope.bind(op.result, new)
        elif kind == "call":
            self.replay_call(op, em, scope)
        elif kind == "call_func":
            self.replay_call_func(op, em, scope)
        elif kind == "print":
            pass
        elif kind == "if":
            self.replay_if(op, em, scope, rp)
        elif kind == "for":
            self.clone_for(op, em, scope, rp)
        elif kind == "while":
            self.clone_while(op, em, scope, rp)
        else:
            raise RuntimeError(f"autodiff internal error: cannot replay op '{kind}'")

    def replay_call(self, op: ir.Op, em: Emitter, scope: Scope) -> None:
        ov = op.attrs["overload"]
        rule = lookup_rule(ov, [a.type for a in op.args])
        args = [scope.get(a) for a in op.args]
        local = bool(op.args) and isinstance(op.args[0].type, FixedArrayType)
        if rule is not None and rule.replay == "effect" and not local:  # thread-private: replayed
            for r in op.results:
                if id(r) in self.used:
                    self.warn(
                        op,
                        f"the value returned by '{ov.name}' is not replayed exactly in the adjoint "
                        "(it reads the array after the forward pass)",
                    )
                    ndim = op.args[0].type.ndim
                    load = em.call("array_load", args[0], *args[1 : 1 + ndim])
                    scope.bind(r, load)
            return
        new = em.op("call", args, [r.type for r in op.results], **op.attrs)
        for r, n in zip(op.results, new.results):
            scope.bind(r, n)
            if carries_arrays(r.type):
                if ov.name == "struct_get" and id(op.args[0]) in scope.aenv:
                    # an array (or struct) field: its adjoint is the same field of the adjoint struct
                    source = scope.aenv[id(op.args[0])]
                    scope.aenv[id(r)] = em.op("call", [source], [r.type], **op.attrs).result
                elif ov.name == "struct_set":
                    # a struct built or updated in the kernel (S(a, b), s.a = a): its adjoint is the
                    # adjoint struct with the field's adjoint (gradient arrays) set the same way
                    base = self.adjoint_carrier(em, scope, op.args[0])
                    if carries_arrays(op.args[1].type):
                        field_adj = self.adjoint_carrier(em, scope, op.args[1])
                        base = em.op("call", [base, field_adj], [r.type], **op.attrs).result
                    scope.aenv[id(r)] = base
                elif ov.adjoint_source is not None and len(op.results) == 1:
                    # a builtin that provides the gradient arrays of the arrays it returns
                    source = em.op("call", args, [r.type], overload=ov.adjoint_source).result
                    scope.aenv[id(r)] = source
                elif ov.name == "array_view":
                    base = self.adjoint_array(em, scope, op.args[0])
                    view = em.internal(ops.VIEW, [base, *args[1:]], r.type)
                    scope.aenv[id(r)] = view
                    if id(base) in self.nonnull:
                        self.nonnull.add(id(view))
                elif ov.name in ("array_slice", "array_select"):
                    # the same slice of the adjoint array (a null adjoint stays null)
                    base = self.adjoint_array(em, scope, op.args[0])
                    view = em.op("call", [base, *args[1:]], [r.type], **op.attrs).result
                    scope.aenv[id(r)] = view
                    if id(base) in self.nonnull:
                        self.nonnull.add(id(view))
                elif is_array(r.type):
                    scope.aenv[id(r)] = em.internal(ops.NULL_ARRAY, [], r.type)

    def replay_call_func(self, op: ir.Op, em: Emitter, scope: Scope) -> None:
        fn = op.attrs["func"]
        target = self.funcs.replay_version(fn)
        args = [scope.get(a) for a in op.args]
        new = em.op("call_func", args, [r.type for r in op.results], func=target)
        for r, n in zip(op.results, new.results):
            scope.bind(r, n)
            if is_array(r.type):
                self.warn(op, f"gradients do not flow through the array returned by '{fn.name}'")
                scope.aenv[id(r)] = em.internal(ops.NULL_ARRAY, [], r.type)

    def adjoint_array(self, em: Emitter, scope: Scope, array: ir.Value) -> ir.Value:
        """The adjoint array of forward array value ``array`` (a null array if it has none)."""
        adj = scope.aenv.get(id(array))
        if adj is None:
            adj = em.internal(ops.NULL_ARRAY, [], array.type)
            scope.aenv[id(array)] = adj
        return adj

    def adjoint_carrier(self, em: Emitter, scope: Scope, value: ir.Value) -> ir.Value:
        """The forward adjoint of an array (its gradient array) or of a struct holding arrays
        (a struct whose array fields are the gradients; zero when unknown)."""
        if is_array(value.type):
            return self.adjoint_array(em, scope, value)
        known = scope.aenv.get(id(value))
        return known if known is not None else em.zero(value.type)

    # -- structured control flow ------------------------------------------------------------
    def replay_if(self, op: ir.Op, em: Emitter, scope: Scope, rp: Replay) -> None:
        cond = scope.get(op.args[0])
        arrays = [k for k, r in enumerate(op.results) if is_array(r.type)]  # structs: no forward adjoint
        types = [r.type for r in op.results] + [op.results[k].type for k in arrays]

        def extra(s: Scope, yielded: list[ir.Value], at: Emitter) -> list[ir.Value]:
            return [self.adjoint_array(at, s, yielded[k]) for k in arrays]

        regions = []
        for branch in op.regions:
            region = ir.Region()
            inner = rp.nested(Level("if", extra, types))
            self.replay_ops(branch.ops, Emitter(region, em.loc), scope.child(), inner)
            regions.append(region)
        new = em.op("if", [cond], types, regions=regions)
        n = len(op.results)
        for r, v in zip(op.results, new.results[:n]):
            scope.bind(r, v)
        for k, v in zip(arrays, new.results[n:]):
            scope.aenv[id(op.results[k])] = v

    # -- loops ------------------------------------------------------------------------------
    def _return_types(self, op: ir.Op, rp: Replay) -> list[Any] | None:
        """The function's return types if ``op``'s body can return from the function.

        Such a loop carries two more things in the replay: a flag and the return values; a
        ``return`` inside becomes a ``break`` setting them, and after the loop the function
        returns if the flag is set (in clone mode returns are simply copied).
        """
        if rp.mode == "clone" or not any(inner.kind == "return" for inner in ir.walk(op.regions[-1])):
            return None
        return list(self.fn.return_types)

    def _loop_extras(
        self, em: Emitter, ctype: Any, rtypes: list[Any] | None
    ) -> tuple[list[Any], list[ir.Value]]:
        """Types and initial values of the extra carried values: counter[, flag, *returns]."""
        types, init = [ctype], [em.const(0, ctype)]
        if rtypes is not None:
            types += [wp_bool, *rtypes]
            init += [em.const(False, wp_bool), *[em.zero(t) for t in rtypes]]
        return types, init

    def _counted_body(
        self,
        src: ir.Region,
        params: list[ir.Value],
        carried: list[ir.Value],
        scope: Scope,
        rp: Replay,
        result_types: list[Any],
        ctype: Any,
        rtypes: list[Any] | None,
        loc: Any = None,
        on_iteration: Any = None,
    ) -> tuple[ir.Region, ir.Value]:
        """Clone a loop body adding the counter (and the return flag and values) as params.

        ``on_iteration(emitter, counter, params)`` emits ops at the start of every iteration.
        Returns the body and its counter parameter.
        """
        counter = ir.Value(ctype, "count")
        extra_params = [counter]
        if rtypes is not None:
            extra_params += [ir.Value(wp_bool, "returned"), *[ir.Value(t, "ret") for t in rtypes]]
        region = ir.Region(params=params + extra_params)
        child = scope.child()
        for p, q in zip(src.params, params):
            child.bind(p, q)
        sub = Emitter(region, loc)
        if on_iteration is not None:
            on_iteration(sub, counter, params)
        nxt = sub.call("add", counter, sub.const(1, ctype))
        passed = extra_params[1:]

        def on_return(s: Scope, values: list[ir.Value], at: Emitter) -> None:
            at.op("break", [*carried, nxt, at.const(True, wp_bool), *values])

        level = Level(
            "loop",
            lambda s, args, at: [nxt, *passed],
            result_types,
            on_return if rtypes is not None else None,
        )
        self.replay_ops(src.ops, sub, child, rp.nested(level, neutral=True))
        return region, counter

    def _return_after_loop(self, op: ir.Op, new: ir.Op, em: Emitter, scope: Scope, rp: Replay) -> None:
        """``if returned: return values`` after a cloned loop whose body can return."""
        n = len(op.results)
        flag, values = new.results[n + 1], new.results[n + 2 :]
        placeholders = [ir.Value(v.type, "ret") for v in values]
        for p, v in zip(placeholders, values):
            scope.bind(p, v)
        # the adjoint of the returned values is seeded where the loop body returns, not here
        synthetic = ir.Op("return", placeholders, attrs={"synthetic": True}, loc=op.loc)
        then, otherwise = ir.Region(), ir.Region(ops=[ir.Op("yield", [], loc=op.loc)])
        frames = rp.frames
        if frames is not None:
            frames[-1].executed.append(op)  # the loop ran (partly) before this return
        try:
            self.replay_terminator(synthetic, Emitter(then, op.loc), scope.child(), rp.nested(Level("if")))
        finally:
            if frames is not None:
                frames[-1].executed.pop()
        em.op("if", [flag], [], regions=[then, otherwise])

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
    ) -> ir.Op:
        """Clone a dynamic ``for`` loop counting iterations (``stop``, ``start`` and the initial
        carried values ``inits`` override the loop's; see ``_counted_body`` for ``on_iteration``)."""
        start_, stop_, step, *init = (scope.get(a) for a in op.args)
        start = start_ if start is None else start
        init = init if inits is None else list(inits)
        body = op.regions[0]
        ctype = count_type(start.type)
        rtypes = self._return_types(op, rp)
        extra_types, extra_init = self._loop_extras(em, ctype, rtypes)
        types = [r.type for r in op.results] + extra_types
        params = [ir.Value(p.type, p.name) for p in body.params]
        region, counter = self._counted_body(
            body, params, params[1:], scope, rp, types, ctype, rtypes, op.loc, on_iteration
        )
        new = em.op(
            "for",
            [start, stop if stop is not None else stop_, step, *init, *extra_init],
            types,
            regions=[region],
        )
        if stop is None:
            self._bind_loop(op, new, scope)
            scope.env[("clone", id(op))] = (region, params, counter)
            if rtypes is not None:
                self._return_after_loop(op, new, em, scope, rp)
        return new

    def clone_while(
        self,
        op: ir.Op,
        em: Emitter,
        scope: Scope,
        rp: Replay,
        limit: ir.Value | None = None,
        inits: list[ir.Value] | None = None,
        on_iteration: Any = None,
    ) -> ir.Op:
        """Clone a ``while`` loop counting iterations (at most ``limit`` when given; ``inits``
        overrides the initial carried values; see ``_counted_body`` for ``on_iteration``)."""
        init = [scope.get(a) for a in op.args] if inits is None else list(inits)
        cond_src, body_src = op.regions
        ctype = int32
        rtypes = self._return_types(op, rp)
        extra_types, extra_init = self._loop_extras(em, ctype, rtypes)
        types = [r.type for r in op.results] + extra_types
        # condition region: same ops, condition(flag [and count < limit], *carried, *extras)
        cparams = [ir.Value(p.type, p.name) for p in cond_src.params]
        extras = [ir.Value(t) for t in extra_types]
        counter = extras[0]
        cregion = ir.Region(params=cparams + extras)
        child = scope.child()
        for p, q in zip(cond_src.params, cparams):
            child.bind(p, q)
        sub = Emitter(cregion, op.loc)
        inner = rp.nested(Level("loop", None, types), neutral=True)
        for cop in cond_src.ops:
            sub.loc = cop.loc
            if cop.kind == "condition":
                flag = child.get(cop.args[0])
                if limit is not None:
                    flag = sub.call("logical_and", flag, sub.call("lt", counter, limit))
                sub.op("condition", [flag, *[child.get(a) for a in cop.args[1:]], *extras])
                break
            self.replay_op(cop, sub, child, inner)
        bparams = [ir.Value(p.type, p.name) for p in body_src.params]
        bregion, bcounter = self._counted_body(
            body_src, bparams, bparams, scope, rp, types, ctype, rtypes, op.loc, on_iteration
        )
        new = em.op("while", [*init, *extra_init], types, regions=[cregion, bregion])
        if limit is None:
            self._bind_loop(op, new, scope)
            scope.env[("clone", id(op))] = (bregion, bparams, bcounter)
            if rtypes is not None:
                self._return_after_loop(op, new, em, scope, rp)
        return new

    def _bind_loop(self, op: ir.Op, new: ir.Op, scope: Scope) -> None:
        n = len(op.results)
        for r, v in zip(op.results, new.results):
            scope.bind(r, v)
        scope.env[("count", id(op))] = new.results[n]


__all__ = ["ReplayMixin", "count_type"]
