"""The lowering context handed to builtin ``lower`` functions.

It wraps the llvmlite builder and module plus what a lowering needs to know about where it
is: the target (:class:`warp.targets.base.Target`), the launch header (thread index, launch dimensions, error
record), whether arrays are known to be contiguous, and debug mode (bounds checks).

The launch header and error record layouts are defined in :mod:`warp.compiler.abi`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

import llvmlite.ir as ir
from warp.compiler import abi
from warp.compiler import ir as wir
from warp.compiler.lowering import types as lt

if TYPE_CHECKING:  # targets build on the compiler: the types only
    from warp.compiler.lowering.function import ModuleState
    from warp.targets.base import Target


class LowerContext:
    """State for lowering one LLVM function (a kernel body or a user function)."""

    def __init__(
        self,
        module: ir.Module,
        builder: ir.IRBuilder,
        *,
        target: Target,
        header: ir.Value,
        linear_index: ir.Value,
        contiguous: bool,
        debug: bool,
        module_state: ModuleState,
    ):
        self.module = module
        self.builder = builder
        self.target = target
        self.header = header
        self.linear_index = linear_index
        self.contiguous = contiguous
        self.debug = debug
        self.state = module_state
        self.current_op: wir.Op | None = None
        self.function_name = ""
        self._alloca_builder = ir.IRBuilder(builder.function.entry_basic_block)

    # -- types and constants --------------------------------------------------------------
    @staticmethod
    def llvm_type(t: Any) -> ir.Type:
        """LLVM SSA type of warp type ``t``."""
        return lt.llvm_type(t)

    @staticmethod
    def storage_type(t: Any) -> ir.Type:
        """LLVM in-memory type of warp type ``t``."""
        return lt.storage_type(t)

    @staticmethod
    def constant(t: Any, value: Any) -> ir.Constant:
        return lt.constant(t, value)

    def alloca(self, ty: ir.Type, name: str = "") -> ir.Value:
        """A stack slot in the function's entry block (so LLVM can promote it to registers).

        The entry block holds only allocas; it is closed with a branch to the body when the
        function is finished (see :func:`finish_allocas`).
        """
        self._alloca_builder.position_at_end(self.builder.function.entry_basic_block)
        return self._alloca_builder.alloca(ty, name=name)

    def finish_allocas(self, body: ir.Block) -> None:
        """Terminate the alloca block with a branch to the first body block."""
        self._alloca_builder.position_at_end(self.builder.function.entry_basic_block)
        self._alloca_builder.branch(body)

    @property
    def op(self) -> wir.Op:
        """The IR op being lowered (a builtin's lowering runs inside one): its ``attrs`` and
        ``results`` (result types) are there."""
        if self.current_op is None:
            raise RuntimeError("no IR op is being lowered here")
        return self.current_op

    # -- declarations ---------------------------------------------------------------------
    def declare(self, name: str, ret: ir.Type, args: Sequence[ir.Type], var_arg: bool = False) -> ir.Function:
        """Get or declare an external function of the module."""
        existing = self.module.globals.get(name)
        if existing is not None:
            return existing
        op = self.current_op
        if not name.startswith("llvm.") and op is not None and op.loc is not None:
            # where each external symbol is first needed, to name the line if it cannot be linked
            self.state.externals.setdefault(name, f"{op.loc.file}:{op.loc.line}")
        return ir.Function(self.module, ir.FunctionType(ret, list(args), var_arg=var_arg), name=name)

    def intrinsic(self, name: str, ret: ir.Type, args: Sequence[ir.Type]) -> ir.Function:
        """Get or declare an LLVM intrinsic such as ``llvm.floor.f32``."""
        return self.declare(name, ret, args)

    def call_intrinsic(self, base: str, values: Sequence[ir.Value], ret: ir.Type | None = None) -> ir.Value:
        """Call an overloaded LLVM intrinsic, suffixing the type (``llvm.fabs`` -> ``llvm.fabs.f32``)."""
        ty = values[0].type
        ret = ret or ty
        fn = self.intrinsic(f"{base}.{type_suffix(ty)}", ret, [v.type for v in values])
        return self.builder.call(fn, list(values))

    def global_string(self, text: str) -> ir.Value:
        """Pointer to a NUL-terminated constant string (deduplicated per module)."""
        return self.state.global_string(self.module, text)

    def printf(self, fmt: str, args: Sequence[ir.Value] = ()) -> None:
        """Print with a C format: ``printf`` on the CPU, ``vprintf`` on CUDA (args already promoted)."""
        self.state.uses_print = True
        self.target.emit_printf(self, self.global_string(fmt), list(args))

    # -- launch information ---------------------------------------------------------------
    def launch_dim(self, k: int) -> ir.Value:
        """Launch dimension ``k`` as an i64 (read from the launch header)."""
        offset = abi.HEADER_DIMS_OFFSET + 8 * k
        ptr = self.builder.gep(self.header, [ir.Constant(lt.I64, offset)], source_etype=lt.I8)
        return self.builder.load(ptr, typ=lt.I64, align=8)

    def error_record(self) -> ir.Value:
        """Pointer to the error record (NULL outside debug launches), see :mod:`warp.compiler.abi`."""
        offset = ir.Constant(lt.I64, abi.HEADER_ERROR_RECORD_OFFSET)
        ptr = self.builder.gep(self.header, [offset], source_etype=lt.I8)
        return self.builder.load(ptr, typ=lt.PTR, align=8)

    def scratch(self) -> ir.Value:
        """A module-wide scratch buffer where faulting accesses are redirected in debug mode."""
        return self.state.scratch(self.module)


def type_suffix(ty: ir.Type) -> str:
    """LLVM intrinsic name suffix of a scalar or vector type (f32, i64, v8f32, ...)."""
    if isinstance(ty, ir.HalfType):
        return "f16"
    if isinstance(ty, ir.FloatType):
        return "f32"
    if isinstance(ty, ir.DoubleType):
        return "f64"
    if isinstance(ty, ir.IntType):
        return f"i{ty.width}"
    if isinstance(ty, ir.VectorType):
        return f"v{ty.count}{type_suffix(ty.element)}"
    raise TypeError(f"no intrinsic suffix for {ty}")


#: A builtin's lowering (``lower=`` of :meth:`warp.compiler.registry.BuiltinRegistry.add`):
#: ``lower(ctx, args, arg_types)`` emits LLVM IR at ``ctx.builder`` and returns the result's
#: LLVM value (None for no result).
Lowering = Callable[[LowerContext, list, list], Any]
