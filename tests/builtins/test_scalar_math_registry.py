"""Registration of the Scalar Math builtins: names, overloads, groups, docs, plugin wiring."""

from __future__ import annotations

import warp.types.scalars as wps
from warp.compiler.registry import BuiltinRegistry
from warp_builtins import scalar_math, utility

SCALAR_MATH = {
    "abs", "acos", "asin", "atan", "atan2", "bit_count", "cbrt", "ceil", "clamp", "copysign", "cos", "cosh",
    "degrees", "erf", "erfc", "erfcinv", "erfinv", "exp", "floor", "frac", "isfinite", "isinf", "isnan",
    "log", "log10", "log2", "max", "min", "nonzero", "pow", "radians", "rint", "round", "sign", "sin", "sinh",
    "sqrt", "step", "tan", "tanh", "trunc",
}  # fmt: skip
FLOATS = {wps.float16, wps.bfloat16, wps.float32, wps.float64}
INTS = set(wps.int_types)


def _registry() -> BuiltinRegistry:
    registry = BuiltinRegistry()
    scalar_math.register(registry)
    utility.register(registry)
    return registry


def _first_param_types(registry: BuiltinRegistry, name: str) -> set:
    return {ov.params[0][1] for ov in registry.get(name).overloads}


def test_names_and_groups() -> None:
    registry = _registry()
    assert set(registry.names()) == SCALAR_MATH | {"lerp", "smoothstep"}
    for name in SCALAR_MATH:
        builtin = registry.get(name)
        assert builtin.group == "Scalar Math", name
        assert builtin.doc and builtin.doc.endswith("."), name
    assert registry.get("lerp").group == registry.get("smoothstep").group == "Utility"


def test_overload_types() -> None:
    registry = _registry()
    for name in ("abs", "sign", "step", "nonzero", "min", "max", "clamp"):
        assert _first_param_types(registry, name) == FLOATS | INTS, name
    assert _first_param_types(registry, "bit_count") == INTS
    for name in SCALAR_MATH - {"abs", "sign", "step", "nonzero", "min", "max", "clamp", "bit_count"}:
        assert _first_param_types(registry, name) == FLOATS, name
    for ov in registry.get("bit_count").overloads:
        assert ov.result is wps.int32
    for name in ("isfinite", "isinf", "isnan"):
        assert {ov.result for ov in registry.get(name).overloads} == {wps.bool}


def test_parameter_names_follow_warp() -> None:
    registry = _registry()
    names = {name: [p for p, _ in registry.get(name).overloads[0].params] for name in registry.names()}
    assert names["atan2"] == ["y", "x"]
    assert names["pow"] == ["x", "y"]
    assert names["clamp"] == ["x", "low", "high"]
    assert names["min"] == ["a", "b"]
    assert names["isnan"] == ["a"]
    assert names["lerp"] == ["a", "b", "t"]
    assert names["smoothstep"] == ["a", "b", "x"]


def test_resolution_picks_the_argument_type() -> None:
    registry = _registry()
    res = registry.resolve("sin", [wps.float64])
    assert res is not None and res.result is wps.float64
    res = registry.resolve("max", [wps.uint8, wps.uint8])
    assert res is not None and res.result is wps.uint8
    assert registry.resolve("sin", [wps.int32]) is None
    assert registry.resolve("pow", [wps.float32, wps.float64]) is None


def test_plugin_registers_into_warp() -> None:
    import warp  # noqa: F401  (loads the plugins)
    from warp.compiler.registry import builtin_registry

    for name in SCALAR_MATH | {"lerp", "smoothstep"}:
        builtin = builtin_registry.get(name)
        assert builtin is not None, name
        assert any(ov.package == "warp-builtins" for ov in builtin.overloads), name
