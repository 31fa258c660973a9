"""Native shims that let Python call one resolved builtin overload (``wp.sin(1.0)`` in Python).

A shim is a tiny function built through the normal pipeline: an IR function whose body is the
builtin call (so func-backed builtins are specialized and every builtin is lowered exactly as in
a kernel), lowered with :func:`lower_function`, plus a C-callable wrapper::

    R    shim(const char* args)             one scalar result returned by value
    void shim(const char* args, char* out)  anything else (composites, float16, several results)

``args`` holds the arguments packed one after another in 8-byte aligned slots laid out as kernel
parameters are in a launch buffer (:mod:`warp.compiler.abi`, without the launch header); ``out``
receives the results in slots laid out the same way.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import llvmlite.ir as llir

from warp.compiler import ir
from warp.compiler.abi import HEADER_SIZE, param_layout
from warp.compiler.frontend.builder import FunctionBuilder
from warp.compiler.lowering import types as lt
from warp.compiler.lowering.function import ModuleState, lower_function
from warp.compiler.registry import Resolution
from warp.compiler.source import SourceInfo
from warp.errors import SourceLoc
from warp.types.scalars import bfloat16, float16, is_scalar_type, type_repr
from warp.compiler.verify import verify_function

if TYPE_CHECKING:  # targets build on the compiler: the type only
    from warp.targets.base import Target

#: Symbol of the C-callable wrapper in every shim module.
SHIM_SYMBOL = "wp_python_shim"


@dataclass(frozen=True)
class Slot:
    """Where one value lives in a shim's argument or result buffer."""

    offset: int
    size: int
    format: str


def slots(types: list[Any]) -> list[Slot]:
    """Buffer slots of values of ``types`` (kernel parameter layout without the launch header)."""
    return [Slot(s.offset - HEADER_SIZE, s.size, s.format) for s in param_layout(types)]


def returns_by_value(result_types: list[Any]) -> bool:
    """Whether the shim returns its (single, scalar, not 16-bit float) result directly."""
    if len(result_types) != 1:
        return False
    return is_scalar_type(result_types[0]) and result_types[0] not in (float16, bfloat16)


def type_key(t: Any) -> str:
    """Stable text of a type for cache keys (custom hashes of composites and structs included)."""
    custom = getattr(t, "_wp_hash_", None)
    return custom() if callable(custom) and isinstance(t, type) else type_repr(t)


def shim_key(resolution: Resolution, target: str, fingerprint: str) -> str:
    """Content hash naming the compiled shim of ``resolution`` in the kernel cache."""
    o = resolution.overload
    h = hashlib.sha256()
    for part in (
        "warp-python-shim-v1", o.package, o.name, o.signature(),
        [type_key(t) for t in resolution.arg_types], target, fingerprint,
    ):
        h.update(str(part).encode())
        h.update(b"\0")
    return h.hexdigest()


def _python_scope_source(name: str) -> SourceInfo:
    where = f"<python scope call of wp.{name}>"
    # no Python source: the shim builder only asks for locations (loc(None)), never for the tree
    return SourceInfo(
        func=None, source="", tree=None, file=where, first_line=1, lines=[], globals={}  # type: ignore[arg-type]
    )


def build_shim_function(name: str, resolution: Resolution) -> ir.Function:
    """IR of a function taking the resolved argument types and returning the builtin's results."""
    builder = FunctionBuilder(_python_scope_source(name), name)
    params = [ir.Value(t, f"a{i}") for i, t in enumerate(resolution.arg_types)]
    body = ir.Region()
    with builder.enter(body, {}):
        op = builder.call_builtin(name, params)
        body.ops.append(ir.Op("return", list(op.results), loc=SourceLoc(builder.source.file, 1, "")))
    fn = ir.Function(
        name=f"wp.{name}",
        params=params,
        param_names=[f"a{i}" for i in range(len(params))],
        body=body,
        return_types=[r.type for r in op.results],
        is_kernel=False,
        symbol=f"wp_python_{name}",
    )
    verify_function(fn)
    return fn


def lower_shim(fn: ir.Function, target: Target) -> str:
    """LLVM IR text of a module holding ``fn`` and its C-callable wrapper :data:`SHIM_SYMBOL`,
    for ``target`` (the host's: the shim is called from Python)."""
    module = llir.Module(name=fn.symbol)
    state = ModuleState(target=target, debug=False)
    body = lower_function(module, state, fn, contiguous=True)
    arg_types = [p.type for p in fn.params]
    by_value = returns_by_value(fn.return_types)
    ret = lt.llvm_type(fn.return_types[0]) if by_value else lt.VOID
    if by_value and fn.return_types[0]._kind_ == "bool":
        ret = lt.I8
    params = [lt.PTR] if by_value else [lt.PTR, lt.PTR]
    wrapper = llir.Function(module, llir.FunctionType(ret, params), name=SHIM_SYMBOL)
    wrapper.attributes.add("nounwind")
    b = llir.IRBuilder(wrapper.append_basic_block("entry"))
    args = wrapper.args[0]
    values = []
    for t, slot in zip(arg_types, slots(arg_types)):
        ptr = b.gep(args, [llir.Constant(lt.I64, slot.offset)], source_etype=lt.I8)
        values.append(lt.from_storage(b, t, b.load(ptr, typ=lt.storage_type(t), align=8)))
    # The shim runs outside any launch: the header pointer is the (never read) argument buffer.
    result = b.call(body, [args, llir.Constant(lt.I64, 0)] + values)
    results = [] if not fn.return_types else [result] if len(fn.return_types) == 1 else [
        b.extract_value(result, i) for i in range(len(fn.return_types))
    ]
    if by_value:
        b.ret(lt.to_storage(b, fn.return_types[0], result))
    else:
        out = wrapper.args[1]
        for t, slot, value in zip(fn.return_types, slots(fn.return_types), results):
            ptr = b.gep(out, [llir.Constant(lt.I64, slot.offset)], source_etype=lt.I8)
            b.store(lt.to_storage(b, t, value), ptr, align=8)
        b.ret_void()
    target.finish_module(module)
    return str(module)
