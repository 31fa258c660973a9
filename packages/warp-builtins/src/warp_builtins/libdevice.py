"""Calls into NVIDIA libdevice (``__nv_sinf``, ``__nv_sin``, ...) for the CUDA target.

The functions are only *declared* here; the CUDA target links ``libdevice.10.bc`` into the
module before generating PTX. LLVM's math intrinsics cannot be used instead: the NVPTX backend
aborts on ``llvm.sin.f32`` and friends. float16 arguments are computed in float32.
"""

from __future__ import annotations

from llvmlite import ir

from warp_builtins.mathlib.irutil import float_kind

#: warp_builtins name -> libdevice base name (float32 adds an ``f`` suffix)
_BASE = {
    "sin": "sin",
    "cos": "cos",
    "tan": "tan",
    "asin": "asin",
    "acos": "acos",
    "atan": "atan",
    "atan2": "atan2",
    "sinh": "sinh",
    "cosh": "cosh",
    "tanh": "tanh",
    "exp": "exp",
    "exp2": "exp2",
    "log": "log",
    "log2": "log2",
    "log10": "log10",
    "pow": "pow",
    "sqrt": "sqrt",
    "cbrt": "cbrt",
    "erf": "erf",
    "erfc": "erfc",
    "erfinv": "erfinv",
    "erfcinv": "erfcinv",
    "fabs": "fabs",
    "floor": "floor",
    "ceil": "ceil",
    "trunc": "trunc",
    "roundeven": "rint",
    "round": "round",
    "copysign": "copysign",
}


def symbol(name: str, ty: ir.Type) -> str:
    """The libdevice symbol of ``name`` for float or double, e.g. ``__nv_sinf``."""
    base = _BASE[name]
    kind = float_kind(ty)
    if kind == "double":
        return f"__nv_{base}"
    if kind == "float":
        return f"__nv_{base}f"
    raise TypeError(f"libdevice has no {kind} version of {name}")


def supports(name: str) -> bool:
    """True if ``name`` maps to a libdevice function."""
    return name in _BASE


def call(builder: ir.IRBuilder, name: str, args: list[ir.Value]) -> ir.Value:
    """Declare (once) and call the libdevice version of ``name``; half computes in float."""
    ty = args[0].type
    if float_kind(ty) == "half":
        f32 = ir.FloatType()
        result = call(builder, name, [builder.fpext(a, f32) for a in args])
        return builder.fptrunc(result, ty)
    module = builder.module
    sym = symbol(name, ty)
    fn = module.globals.get(sym)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ty, [ty] * len(args)), sym)
    return builder.call(fn, list(args))
