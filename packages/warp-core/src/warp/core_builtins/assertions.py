"""``assert`` in kernels: checked in debug mode, where a failure stops the launch with an
``AssertionError``; compiled to nothing in release mode (as NVIDIA Warp does).

The frontend turns ``assert cond, "message"`` into one call of the hidden builtin
``assert_condition(cond)`` whose op carries the statement's source and message
(``op.attrs["assert_source"]``, ``op.attrs["assert_message"]``). In debug mode the lowering
writes a failure into the launch's error record (:mod:`warp.compiler.abi`) with a site whose
``"kind"`` is ``"assert"``; the launcher raises the ``AssertionError`` after the kernel ran.
"""

from __future__ import annotations

import llvmlite.ir as ir

from warp.compiler import abi
from warp.compiler.lowering import types as lt
from warp.compiler.lowering.context import LowerContext
from warp.compiler.registry import BuiltinRegistry
from warp.types.scalars import bool as wp_bool

#: name of the builtin an ``assert`` statement calls
ASSERT_BUILTIN = "assert_condition"


def lower_assert(ctx: LowerContext, args: list, types: list) -> None:
    """Debug mode: record the first failing thread's assertion in the error record."""
    if not ctx.debug:
        return
    b = ctx.builder
    op = ctx.current_op
    site = len(ctx.state.sites)
    ctx.state.sites.append({
        "kind": "assert",
        "function": ctx.function_name,
        "file": op.loc.file if op and op.loc else "",
        "line": op.loc.line if op and op.loc else 0,
        "text": op.attrs.get("assert_source", "") if op else "",
        "message": op.attrs.get("assert_message", "") if op else "",
    })
    failed = b.icmp_unsigned("==", args[0], ir.Constant(args[0].type, 0))
    with b.if_then(failed, likely=False):
        rec = ctx.error_record()
        with b.if_then(b.icmp_unsigned("!=", b.ptrtoint(rec, lt.I64), ir.Constant(lt.I64, 0))):
            flag = b.gep(rec, [ir.Constant(lt.I64, abi.ERROR_FLAG_OFFSET)], source_etype=lt.I8)
            res = b.cmpxchg(flag, ir.Constant(lt.I32, 0), ir.Constant(lt.I32, 1), "monotonic", "monotonic")
            with b.if_then(b.extract_value(res, 1)):
                where = b.gep(rec, [ir.Constant(lt.I64, abi.ERROR_SITE_OFFSET)], source_etype=lt.I8)
                b.store(ir.Constant(lt.I32, site), where)
                count = b.gep(rec, [ir.Constant(lt.I64, abi.ERROR_NDIM_OFFSET)], source_etype=lt.I8)
                b.store(ir.Constant(lt.I32, 0), count)


def register(registry: BuiltinRegistry) -> None:
    """Register the builtin that ``assert`` statements call."""
    registry.add(
        ASSERT_BUILTIN,
        params=[("condition", wp_bool)],
        result=None,
        lower=lower_assert,
        group="Utility",
        side_effects=True,
        differentiable=False,
        export=False,
        doc="What ``assert condition`` compiles to: checked in debug mode only.",
    )
