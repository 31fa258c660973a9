"""A vectorizable math library written in LLVM IR (llvmlite ``ir`` builder).

Calls to libm (``sinf``) stay scalar and keep the loop vectorizer from widening a kernel's loop;
LLVM's ``llvm.sin.*`` intrinsics also lower to libm calls on the CPU. The functions here are
defined *in the module being compiled* as ``internal alwaysinline`` functions made of
straight-line, branch-free code (``select`` instead of branches), so after inlining the loop
vectorizer turns them into AVX/AVX-512 code.

Usage::

    fn = get_math_function(module, "sin", ir.FloatType())   # defines @__wp_sin_f32 once
    y = builder.call(fn, [x])

float16 versions compute in float32 and round; float32 and float64 versions are all IR.
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir

from warp_builtins.mathlib import erf, explog, hyperbolic, invtrig, misc, trig, trig_fast
from warp_builtins.mathlib import pow as pow_
from warp_builtins.mathlib.irutil import MathBuilder, float_kind

Builder = Callable[..., ir.Value]

_SUFFIX = {"half": "f16", "float": "f32", "double": "f64"}

#: (name, "float" | "double") -> function emitting the body through a MathBuilder
_BUILDERS: dict[tuple[str, str], Builder] = {}
for _family in (trig, explog, invtrig, hyperbolic, erf, misc, pow_):
    _BUILDERS.update(_family.FUNCTIONS)

#: cheaper variants used under the ``fast_math`` module option (same name and type)
_FAST_BUILDERS: dict[tuple[str, str], Builder] = dict(trig_fast.FAST_FUNCTIONS)

#: number of arguments of each function (1 unless listed)
_ARITY = {"atan2": 2, "pow": 2}


def math_function_names() -> list[str]:
    """Names of all functions this library defines."""
    return sorted({name for name, _ in _BUILDERS})


def arity(name: str) -> int:
    """Number of arguments of math function ``name``."""
    return _ARITY.get(name, 1)


def has_fast_variant(name: str) -> bool:
    """Whether ``name`` has a cheaper ``fast_math`` variant (sin, cos, tan)."""
    return (name, "float") in _FAST_BUILDERS


def math_symbol(name: str, ty: ir.Type, fast: bool = False) -> str:
    """The LLVM symbol of math function ``name`` for type ``ty``, e.g. ``__wp_sin_f32``
    (``__wp_sin_fast_f32`` for the ``fast_math`` variant)."""
    variant = "_fast" if fast and has_fast_variant(name) else ""
    return f"__wp_{name}{variant}_{_SUFFIX[float_kind(ty)]}"


def get_math_function(module: ir.Module, name: str, ty: ir.Type, fast: bool = False) -> ir.Function:
    """Return ``@__wp_<name>_<f16|f32|f64>`` from ``module``, defining it on first use.

    The function is ``internal`` and ``alwaysinline``; its arguments and result have type
    ``ty`` (half, float or double). ``fast`` selects the ``fast_math`` variant where there is
    one (:func:`has_fast_variant`).
    """
    kind = float_kind(ty)
    if name not in math_function_names():
        raise KeyError(f"unknown math function '{name}'")
    fast = fast and has_fast_variant(name)
    symbol = math_symbol(name, ty, fast)
    existing = module.globals.get(symbol)
    if existing is not None:
        return existing
    n = arity(name)
    fn = ir.Function(module, ir.FunctionType(ty, [ty] * n), symbol)
    fn.linkage = "internal"
    fn.attributes.add("alwaysinline")
    fn.attributes.add("nounwind")
    builder = ir.IRBuilder(fn.append_basic_block("entry"))
    args = list(fn.args)
    if kind == "half":
        f32 = ir.FloatType()
        inner = get_math_function(module, name, f32, fast)
        result = builder.fptrunc(builder.call(inner, [builder.fpext(a, f32) for a in args]), ty)
    else:
        table = _FAST_BUILDERS if fast else _BUILDERS
        result = table[(name, kind)](MathBuilder(builder, ty), *args)
    builder.ret(result)
    return fn


def call_math(builder: ir.IRBuilder, name: str, *args: ir.Value, fast: bool = False) -> ir.Value:
    """Emit a call of math function ``name`` on ``args`` (all of one float type); ``fast``
    selects the ``fast_math`` variant where there is one."""
    fn = get_math_function(builder.module, name, args[0].type, fast)
    return builder.call(fn, list(args))


__all__ = [
    "MathBuilder",
    "arity",
    "call_math",
    "get_math_function",
    "has_fast_variant",
    "math_function_names",
    "math_symbol",
]
