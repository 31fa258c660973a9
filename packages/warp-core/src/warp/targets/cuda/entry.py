"""The CUDA kernel entry: a ``ptx_kernel`` function running the kernel body in a grid-stride loop.

The entry takes the whole argument buffer (launch header + parameters, the layout of
:mod:`warp.compiler.abi`) as one ``byval`` parameter, so the launcher hands the driver the same
packed bytes the CPU entry reads (``cuLaunchKernel``'s ``CU_LAUNCH_PARAM_BUFFER_POINTER``)::

    define ptx_kernel void @<symbol>_entry_s(ptr byval([N x i8]) align 8 %args)

Each thread starts at ``blockIdx.x * blockDim.x + threadIdx.x`` and strides by the total number
of threads of the grid until it passes the launch size (the product of the four launch
dimensions of the header), so any grid size covers any launch size (``wp.launch(...,
max_blocks=)`` caps the grid). A kernel's ``launch_bounds`` become the entry's ``.maxntid`` /
``.minnctapersm`` (``nvvm.annotations``).

Kernels that access 1-D arrays at ``wp.tid()`` also get a vector entry (:func:`define_vector_entry`,
``<symbol>_entry_v``): each thread runs the contiguous body for :data:`VECTOR_WIDTH` consecutive
indices, so that ``x[i]`` of the four become one 128-bit load (see
:mod:`warp.compiler.lowering.vector_entry`); the launcher uses it for 1-D launches over contiguous,
16-byte aligned arrays, with a grid for a quarter of the threads.
"""

from __future__ import annotations

import re

import llvmlite.ir as ir

from warp.compiler import ir as wir
from warp.compiler.abi import HEADER_SIZE, VECTOR_ALIGNMENT, param_layout
from warp.compiler.lowering import types as lt
from warp.compiler.lowering.kernel import EntryVariant
from warp.compiler.lowering.vector_entry import lane_scopes
from warp.compiler.options import CompileOptions
from warp.types.array_type import ArrayType

#: marker of the argument-buffer parameter, replaced by a ``byval`` attribute in the module text
#: (llvmlite's IR builder cannot spell ``byval`` on opaque pointers)
_ARGS_MARK = "wp.byval.args"
#: consecutive thread indices per thread of the vector entry (four 4-byte elements: 128 bits)
VECTOR_WIDTH = 4


def args_buffer_size(kfn: wir.Function) -> int:
    """Size in bytes of the argument buffer of ``kfn`` (header plus parameter slots)."""
    slots = param_layout([p.type for p in kfn.params])
    return slots[-1].offset + slots[-1].size if slots else HEADER_SIZE


def _sreg(b: ir.IRBuilder, module: ir.Module, name: str) -> ir.Value:
    """Read special register ``name`` (``tid.x``, ``ntid.x``, ``ctaid.x``, ``nctaid.x``) as i64."""
    symbol = f"llvm.nvvm.read.ptx.sreg.{name}"
    fn = module.globals.get(symbol)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(lt.I32, []), name=symbol)
    return b.zext(b.call(fn, []), lt.I64)


def define_entry(
    module: ir.Module,
    name: str,
    body: ir.Function,
    kfn: wir.Function,
    options: CompileOptions,
    *,
    contiguous: bool,
    variant: EntryVariant | None = None,
) -> None:
    """Add the kernel entry ``name`` calling ``body(args, i, params...)`` for each thread index ``i``.

    (``variant`` is ignored: the CUDA target does not choose bodies per launch.)
    """
    entry, b, args = _new_entry(module, name, kfn)
    params = _load_params(b, args, kfn)
    n = None
    for dim in _launch_dims(b, args):
        n = dim if n is None else b.mul(n, dim, flags=["nsw"])
    ntid = _sreg(b, module, "ntid.x")
    first = b.add(
        b.mul(_sreg(b, module, "ctaid.x"), ntid, flags=["nuw", "nsw"]),
        _sreg(b, module, "tid.x"),
        flags=["nuw", "nsw"],
    )
    stride = b.mul(_sreg(b, module, "nctaid.x"), ntid, flags=["nuw", "nsw"])
    loop, body_bb, done = (entry.append_basic_block(s) for s in ("loop", "body", "done"))
    pre = b.block
    b.cbranch(b.icmp_signed("<", first, n), loop, done)
    b.position_at_end(loop)
    i = b.phi(lt.I64, "i")
    i.add_incoming(first, pre)
    b.branch(body_bb)
    b.position_at_end(body_bb)
    b.call(body, [args, i] + params)
    nxt = b.add(i, stride, flags=["nsw"])
    i.add_incoming(nxt, body_bb)
    b.cbranch(b.icmp_signed("<", nxt, n), loop, done)
    b.position_at_end(done)
    b.ret_void()
    _annotate_entry(module, entry, options)


def _new_entry(
    module: ir.Module, name: str, kfn: wir.Function
) -> tuple[ir.Function, ir.IRBuilder, ir.Argument]:
    """A ``ptx_kernel`` function ``name`` taking the argument buffer; a builder at its start."""
    entry = ir.Function(module, ir.FunctionType(lt.VOID, [lt.PTR]), name=name)
    entry.calling_convention = "ptx_kernel"
    entry.attributes.add("nounwind")
    args = entry.args[0]
    args.name = f"{_ARGS_MARK}.{args_buffer_size(kfn)}"
    return entry, ir.IRBuilder(entry.append_basic_block("entry")), args


def _load_params(b: ir.IRBuilder, args: ir.Value, kfn: wir.Function) -> list[ir.Value]:
    """The kernel's parameters, loaded from the argument buffer."""
    params = []
    for p, slot in zip(kfn.params, param_layout([p.type for p in kfn.params])):
        ptr = b.gep(args, [ir.Constant(lt.I64, slot.offset)], source_etype=lt.I8)
        raw = b.load(ptr, typ=lt.storage_type(p.type), align=8)
        params.append(lt.from_storage(b, p.type, raw))
    return params


def _launch_dims(b: ir.IRBuilder, args: ir.Value) -> list[ir.Value]:
    """The four launch dimensions of the header (i64)."""
    return [
        b.load(b.gep(args, [ir.Constant(lt.I64, 8 * k)], source_etype=lt.I8), typ=lt.I64, align=8)
        for k in range(4)
    ]


def _assume(b: ir.IRBuilder, cond: ir.Value) -> None:
    module = b.module
    fn = module.globals.get("llvm.assume")
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(lt.VOID, [ir.IntType(1)]), name="llvm.assume")
    b.call(fn, [cond])


def define_vector_entry(
    module: ir.Module, name: str, body: ir.Function, kfn: wir.Function, options: CompileOptions
) -> None:
    """Add the vector entry ``name``: thread ``t`` of the grid runs ``body`` (the contiguous body)
    for the ``w = options.vector_width`` indices ``w*t .. w*t + w-1`` (:data:`VECTOR_WIDTH` unless
    ``cuda_vector_entry`` says another), striding by ``w`` times the grid's
    threads over the launch's whole groups of ``w``; threads ``t < n % w`` then run the last
    ``n % w`` indices once each.

    The launcher guarantees what the entry tells LLVM (``llvm.assume``): a 1-D launch (so
    ``wp.tid()`` is the linear index, no division) and array data aligned to
    :data:`~warp.compiler.abi.VECTOR_ALIGNMENT` bytes. Each lane's body call carries its own
    alias scope, ``noalias`` with the other lanes' (different threads: unordered on a GPU).
    """
    w = options.vector_width
    entry, b, args = _new_entry(module, name, kfn)
    params = _load_params(b, args, kfn)
    zero = ir.Constant(lt.I64, 0)
    for p, value in zip(kfn.params, params):
        if isinstance(p.type, ArrayType):
            address = b.ptrtoint(b.extract_value(value, 0), lt.I64)
            low = b.and_(address, ir.Constant(lt.I64, VECTOR_ALIGNMENT - 1))
            _assume(b, b.icmp_unsigned("==", low, zero))
    n, *inner = _launch_dims(b, args)
    _assume(b, b.icmp_unsigned("==", b.mul(b.mul(inner[0], inner[1]), inner[2]), ir.Constant(lt.I64, 1)))
    ntid = _sreg(b, module, "ntid.x")
    first = b.add(
        b.mul(_sreg(b, module, "ctaid.x"), ntid, flags=["nuw", "nsw"]),
        _sreg(b, module, "tid.x"),
        flags=["nuw", "nsw"],
    )
    threads = b.mul(_sreg(b, module, "nctaid.x"), ntid, flags=["nuw", "nsw"])
    stride = b.mul(threads, ir.Constant(lt.I64, w), flags=["nuw", "nsw"])
    start = b.mul(first, ir.Constant(lt.I64, w), flags=["nuw", "nsw"])
    whole = b.and_(n, ir.Constant(lt.I64, -w))  # indices in whole groups of w
    loop, tail, tail_body, done = (entry.append_basic_block(s) for s in ("loop", "tail", "tail.body", "done"))
    pre = b.block
    b.cbranch(b.icmp_signed("<", start, whole), loop, tail)
    b.position_at_end(loop)
    i = b.phi(lt.I64, "i")
    i.add_incoming(start, pre)
    for k, (scope, others) in enumerate(lane_scopes(module, w)):
        index = i if k == 0 else b.add(i, ir.Constant(lt.I64, k), flags=["nuw", "nsw"])
        call = b.call(body, [args, index] + params)
        call.set_metadata("alias.scope", scope)
        call.set_metadata("noalias", others)
    nxt = b.add(i, stride, flags=["nsw"])
    i.add_incoming(nxt, b.block)
    b.cbranch(b.icmp_signed("<", nxt, whole), loop, tail)
    b.position_at_end(tail)
    last = b.add(whole, first, flags=["nuw", "nsw"])
    b.cbranch(b.icmp_signed("<", last, n), tail_body, done)
    b.position_at_end(tail_body)
    b.call(body, [args, last] + params)
    b.branch(done)
    b.position_at_end(done)
    b.ret_void()
    _annotate_entry(module, entry, options)


def _annotate_entry(module: ir.Module, entry: ir.Function, options: CompileOptions) -> None:
    """The kernel's launch bounds and register limit (PTX ``.maxnreg``) on ``entry``."""
    if options.launch_bounds is not None:
        _annotate_launch_bounds(module, entry, *options.launch_bounds)
    if options.max_registers is not None:
        module.add_named_metadata(
            "nvvm.annotations",
            [entry, ir.MetaDataString(module, "maxnreg"), ir.Constant(lt.I32, options.max_registers)],
        )


def _annotate_launch_bounds(module: ir.Module, entry: ir.Function, threads: int, min_blocks: int) -> None:
    """CUDA ``__launch_bounds__(threads, min_blocks)`` of ``entry``: PTX ``.maxntid``/``.minnctapersm``."""
    annotations = [("maxntidx", threads)] + ([("minctasm", min_blocks)] if min_blocks > 0 else [])
    for key, value in annotations:
        module.add_named_metadata(
            "nvvm.annotations", [entry, ir.MetaDataString(module, key), ir.Constant(lt.I32, value)]
        )


def with_byval_args(text: str) -> str:
    """Give the marked argument-buffer parameters of kernel entries ``byval([N x i8]) align 8``."""
    pattern = re.compile(
        r'^(define ptx_kernel void @[^(]+\()ptr (%"' + re.escape(_ARGS_MARK) + r'\.(\d+)")', re.M
    )
    return pattern.sub(lambda m: f"{m.group(1)}ptr byval([{m.group(3)} x i8]) align 8 {m.group(2)}", text)
