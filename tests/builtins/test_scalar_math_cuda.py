"""CUDA lowerings of the Scalar Math builtins call libdevice (declared, linked later).

No GPU is needed: the lowering is run with ``target="cuda"`` and the module is checked to
declare ``__nv_*`` functions, to contain no LLVM math intrinsics the NVPTX backend cannot
lower, and to verify.
"""

from __future__ import annotations

import re

import llvmlite.binding as llvm
import pytest
import warp.types.scalars as wps
from llvm_harness import MiniContext, llvm_type
from llvmlite import ir
from warp.compiler.registry import BuiltinRegistry
from warp_builtins import scalar_math, utility


def _registry() -> BuiltinRegistry:
    registry = BuiltinRegistry()
    scalar_math.register(registry)
    utility.register(registry)
    return registry


REGISTRY = _registry()
FLOAT_OVERLOADS = [
    (name, ov)
    for name in REGISTRY.names()
    for ov in REGISTRY.get(name).overloads
    if ov.params[0][1]._kind_ == "float"
]
EXPECTED_SYMBOL = {"rint": "rint", "abs": "fabs", "frac": "trunc", "isfinite": "fabs", "isinf": "fabs"}
NO_LIBDEVICE = {
    "sign",
    "step",
    "nonzero",
    "min",
    "max",
    "clamp",
    "degrees",
    "radians",
    "isnan",
    "lerp",
    "smoothstep",
}


def _lower_cuda(ov) -> str:
    module = ir.Module("cuda_test")
    arg_types = [t for _, t in ov.params]
    result_type = ov.result_type(arg_types, ov.bind(arg_types))
    fn = ir.Function(module, ir.FunctionType(llvm_type(result_type), [llvm_type(t) for t in arg_types]), "f")
    builder = ir.IRBuilder(fn.append_basic_block("entry"))
    builder.ret(ov.lower(MiniContext(builder, target="cuda"), list(fn.args), arg_types))
    text = str(module)
    llvm.parse_assembly(text).verify()
    return text


@pytest.mark.parametrize(
    "item", FLOAT_OVERLOADS, ids=[f"{n}[{ov.params[0][1].__name__}]" for n, ov in FLOAT_OVERLOADS]
)
def test_cuda_lowering_uses_libdevice(item) -> None:
    name, ov = item
    text = _lower_cuda(ov)
    assert "__wp_" not in text  # no CPU math library on the GPU
    intrinsics = set(re.findall(r"@\"?llvm\.(\w+)", text))
    assert not intrinsics, f"LLVM intrinsics in CUDA code: {intrinsics}"
    declared = set(re.findall(r"declare [^@]*@\"?(__nv_\w+)", text))
    if name in NO_LIBDEVICE:
        return
    t = ov.params[0][1]
    base = EXPECTED_SYMBOL.get(name, name)
    suffix = "" if t is wps.float64 else "f"  # float16 computes in float32
    assert declared == {f"__nv_{base}{suffix}"}


ALL_OVERLOADS = [(name, ov) for name in REGISTRY.names() for ov in REGISTRY.get(name).overloads]


def test_cuda_lowerings_compile_to_ptx() -> None:
    """The NVPTX backend accepts every lowering (libdevice calls stay external declarations)."""
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    target = llvm.Target.from_triple("nvptx64-nvidia-cuda")
    tm = target.create_target_machine(cpu="sm_80", features="+ptx75")
    for name, ov in ALL_OVERLOADS:
        text = _lower_cuda(ov)
        assert not (set(re.findall(r"@\"?llvm\.(\w+)", text)) - {"ctpop"}), name
        module = llvm.parse_assembly(text.replace('target triple = "unknown-unknown-unknown"', ""))
        module.triple = "nvptx64-nvidia-cuda"
        ptx = tm.emit_assembly(module)
        assert ".func" in ptx, name
