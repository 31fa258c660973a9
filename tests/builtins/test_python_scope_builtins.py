"""Kernel builtins called from Python scope: same values as in kernels, warp result types."""

from __future__ import annotations

import importlib.util
import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import warp as wp
from warp.compiler.registry import builtin_registry, match_type
from warp.types.scalars import is_scalar_type

wp.config.quiet = True

# -- every builtin: Python result == kernel result, bit for bit -----------------------------------------

#: concrete types tried, in order, for each parameter pattern of an overload
CANDIDATES = [
    wp.float32, wp.int32, wp.uint32, wp.bool, wp.vec3, wp.vec2, wp.vec4, wp.mat33, wp.mat22, wp.mat44,
    wp.quat, wp.transform, wp.spatial_vector, wp.spatial_matrix, wp.float64, wp.vec3d, wp.mat33d, wp.vec3i,
]

#: builtins that cannot run outside a kernel (launch state, arrays) or are checked separately
#: (the expectations print: test_expectations_print_in_python_scope)
KERNEL_ONLY = {
    "tid", "block_dim", "expect_eq", "expect_near", "expect_neq", "lower_bound", "sample_cdf", "view",
}


#: iterative decompositions built from composite + and - (which may be reassociated and fused, see
#: docs/index.md "Floating point"): the kernel's optimizer may round their last bits differently
REASSOCIATED = {"svd2", "svd3", "qr3", "eig3"}


def concrete_types(overload):
    """Concrete argument types matching ``overload`` (greedy over CANDIDATES), or None."""
    if overload.variadic:
        return None
    bindings: dict = {}
    types = []
    for _, pattern in overload.params:
        for t in CANDIDATES:
            trial = dict(bindings)
            if match_type(pattern, t, trial):
                bindings = trial
                types.append(t)
                break
        else:
            return None
    return types if overload.bind(types) is not None else None


def first_concrete(name):
    for overload in builtin_registry.get(name).overloads:
        types = concrete_types(overload)
        if types is not None:
            return overload, types
    return None, None


def sample_value(t, rng):
    """A warp value of type ``t`` inside every builtin's domain (components in (0.1, 0.9), small ints)."""
    if is_scalar_type(t):
        if t._kind_ == "float":
            return t(rng.uniform(0.1, 0.9))
        if t._kind_ == "bool":
            return t(True)
        return t(int(rng.integers(1, 4)))
    n = int(np.prod(t._shape_))
    if t._wp_scalar_type_._kind_ == "float":
        return t(*rng.uniform(0.1, 0.9, n))
    return t(*rng.integers(1, 4, n).tolist())


def type_expr(t):
    """Source text naming warp type ``t`` in a generated kernel."""
    if is_scalar_type(t):
        return f"wp.{t.__name__}"
    dtype = f"wp.{t._wp_scalar_type_.__name__}"
    kind = t._wp_kind_
    if kind == "vector":
        return f"wp.types.vector(length={t._length_}, dtype={dtype})"
    if kind == "matrix":
        return f"wp.types.matrix(shape={t._shape_}, dtype={dtype})"
    return f"wp.types.{'quaternion' if kind == 'quaternion' else 'transformation'}(dtype={dtype})"


def as_bits(value, t):
    """Bytes of ``value`` stored as warp type ``t`` (a Python scalar, warp scalar or composite)."""
    dtype = wp.dtype_to_numpy(t)
    raw = value.value if isinstance(value, wp.types.ScalarBase) else value
    return np.asarray(raw, dtype=dtype).tobytes()


def python_type(t):
    """The type a Python-scope call returns for a result of warp type ``t``."""
    if not is_scalar_type(t):
        return t
    return {"float": float, "bool": bool}.get(t._kind_, int)


def result_types(overload, types):
    res = overload.result_type(types, overload.bind(types))
    res = list(res) if isinstance(res, tuple) else [] if res is None else [res]
    return res[:-1] if overload.mutates_first_arg else res


@pytest.fixture(scope="module")
def kernel_module(tmp_path_factory):
    """One generated kernel per Python-callable builtin: ``k_<name>`` stores its results."""
    lines = ["import warp as wp", ""]
    cases = {}
    for name in builtin_registry.names():
        if name in KERNEL_ONLY:
            continue
        overload, types = first_concrete(name)
        if overload is None or overload.side_effects or not overload.export:
            continue  # kernel-only builtins (geometry queries read objects by id)
        if isinstance(getattr(wp, name), type):
            continue  # wp.float32(x) etc. are the scalar types' own constructors in Python scope
        res = result_types(overload, types)
        if not res:
            continue
        params = [f"a{i}: wp.array(dtype={type_expr(t)})" for i, t in enumerate(types)]
        params += [f"out{k}: wp.array(dtype={type_expr(t)})" for k, t in enumerate(res)]
        call = f"wp.{name}({', '.join(f'a{i}[0]' for i in range(len(types)))})"
        targets = ", ".join(f"r{k}" for k in range(len(res)))
        stores = [f"    out{k}[0] = r{k}" for k in range(len(res))]
        lines += ["@wp.kernel", f"def k_{name}({', '.join(params)}):", f"    {targets} = {call}", *stores, ""]
        cases[name] = (overload, types, res)
    path = tmp_path_factory.mktemp("pyscope") / "generated_builtin_kernels.py"
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location("generated_builtin_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, cases


def test_python_scope_covers_the_registry(kernel_module):
    _, cases = kernel_module
    callable_names = set(cases)
    assert len(callable_names) >= 150, sorted(callable_names)
    for name in ("sin", "dot", "cross", "normalize", "length", "quat_from_axis_angle", "transform_point",
                 "mul", "transpose", "inverse", "min", "max", "clamp", "svd3", "randf", "noise"):
        assert name in callable_names


@pytest.mark.slow
def test_every_builtin_matches_its_kernel_bit_for_bit(kernel_module):
    module, cases = kernel_module
    rng = np.random.default_rng(7)
    mismatches = []
    for name, (_, types, res) in sorted(cases.items()):
        args = [sample_value(t, rng) for t in types]
        got = getattr(wp, name)(*args)
        got = list(got) if len(res) > 1 else [got]
        inputs = [wp.array([a], dtype=t) for a, t in zip(args, types)]
        outs = [wp.zeros(1, dtype=t) for t in res]
        wp.launch(getattr(module, f"k_{name}"), dim=1, inputs=inputs + outs)
        for value, t, out in zip(got, res, outs):
            expected = python_type(t)
            if type(value) is not expected:
                mismatches.append(f"{name}: result type {type(value).__name__}, expected {expected.__name__}")
            elif as_bits(value, t) != out.numpy()[0].tobytes() and not (
                name in REASSOCIATED and np.allclose(np.asarray(value), out.numpy()[0], rtol=1e-6, atol=1e-7)
            ):
                mismatches.append(f"{name}{tuple(args)}: python {value} kernel {out.numpy()[0]}")
    assert not mismatches, "\n".join(mismatches)


# -- values against NumPy / hand-computed references -----------------------------------------------------

def test_scalar_math_returns_python_numbers_of_the_result_type():
    s = wp.sin(1.0)
    # float32 result, correctly rounded (NumPy's own float32 sin is 1 ulp off at 1.0)
    assert type(s) is float and s == float(np.float32(np.sin(1.0)))
    assert wp.sin(wp.float64(1.0)) == math.sin(1.0)                  # float64 keeps its precision
    assert wp.sqrt(2.0) == float(np.float32(np.sqrt(np.float32(2.0))))
    assert wp.abs(-3) == 3 and type(wp.abs(-3)) is int
    assert wp.min(1.0, 2.0) == 1.0 and wp.max(3, 4) == 4 and wp.clamp(5.0, 0.0, 1.0) == 1.0
    assert wp.isnan(float("nan")) is True and wp.isfinite(1.0) is True
    assert wp.floor(-1.5) == -2.0 and wp.round(2.5) == 3.0


def test_vector_matrix_math():
    a, b = wp.vec3(1.0, 2.0, 3.0), wp.vec3(4.0, 5.0, 6.0)
    assert wp.dot(a, b) == 32.0
    c = wp.cross(a, b)
    assert type(c) is wp.vec3
    assert np.array_equal(np.array(c), np.cross([1, 2, 3], [4, 5, 6]).astype(np.float32))
    n = wp.normalize(wp.vec3(1, 2, 3))
    assert type(n) is wp.vec3f
    np.testing.assert_allclose(np.array(n), np.array([1, 2, 3]) / np.sqrt(14.0), rtol=1e-6)
    assert wp.length(wp.vec3d(3.0, 4.0, 0.0)) == 5.0
    m = wp.mat22(1.0, 2.0, 3.0, 4.0)
    assert type(wp.transpose(m)) is wp.mat22 and np.array_equal(np.array(wp.transpose(m)), [[1, 3], [2, 4]])
    np.testing.assert_allclose(np.array(wp.inverse(m)), np.linalg.inv([[1, 2], [3, 4]]), rtol=1e-6)
    assert np.array_equal(np.array(wp.mul(m, wp.vec2(1.0, 1.0))), [3.0, 7.0])
    assert wp.determinant(m) == -2.0
    # the literal adopts float64
    assert np.array_equal(np.array(wp.mul(wp.vec3d(1.0, 2.0, 3.0), 2.0)), [2.0, 4.0, 6.0])
    assert type(wp.mul(wp.vec3d(1.0, 2.0, 3.0), 2.0)) is wp.vec3d
    rows = wp.matrix_from_rows(wp.vec2(1.0, 2.0), wp.vec2(3.0, 4.0))
    assert np.array_equal(np.array(rows), [[1, 2], [3, 4]])


def test_quaternions_and_transforms():
    angle = 0.5
    q = wp.quat_from_axis_angle(wp.vec3(1.0, 0.0, 0.0), angle)
    assert type(q) is wp.quat
    np.testing.assert_allclose(np.array(q), [math.sin(angle / 2), 0, 0, math.cos(angle / 2)], rtol=1e-6)
    v = wp.quat_rotate(q, wp.vec3(0.0, 1.0, 0.0))
    np.testing.assert_allclose(np.array(v), [0, math.cos(angle), math.sin(angle)], rtol=1e-6, atol=1e-7)
    t = wp.transform(wp.vec3(1.0, 2.0, 3.0), q)
    p = wp.transform_point(t, wp.vec3(0.0, 1.0, 0.0))
    np.testing.assert_allclose(np.array(p), [1, 2 + math.cos(angle), 3 + math.sin(angle)], rtol=1e-6)
    # keyword arguments by the builtin's parameter names
    q2 = wp.quat_from_axis_angle(axis=wp.vec3(1.0, 0.0, 0.0), angle=angle)
    assert q2 == q


def test_several_results_come_back_as_a_tuple():
    a = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]], dtype=np.float32)
    u, sigma, v = wp.svd3(wp.mat33(a))
    assert type(u) is wp.mat33 and type(sigma) is wp.vec3 and type(v) is wp.mat33
    recon = np.array(u) @ np.diag(np.array(sigma)) @ np.array(v).T
    np.testing.assert_allclose(recon, a, atol=1e-5)
    np.testing.assert_allclose(sorted(np.array(sigma)), sorted(np.linalg.svd(a)[1]), rtol=1e-5)


def test_random_state_from_python_int():
    state = wp.rand_init(42)
    assert type(state) is int
    x = wp.randf(state)  # a Python int passes as the uint32 state; the caller's int is not changed
    assert 0.0 <= x < 1.0 and wp.randf(state) == x


def test_in_place_builtins_update_their_first_argument():
    t = wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat_identity())
    wp.transform_set_translation(t, wp.vec3(7.0, 8.0, 9.0))
    assert np.array_equal(np.array(t), [7, 8, 9, 0, 0, 0, 1])


def test_python_float_beyond_float32_range_becomes_inf():
    assert wp.abs(1e300) == math.inf
    assert wp.neg(1e300) == -math.inf
    assert wp.float32(1e300).value == math.inf


def test_python_int_out_of_range_raises():
    with pytest.raises(OverflowError, match=r"wp.randf\(\): argument 1 \(-1\) is out of range for uint32"):
        wp.randf(-1)


# -- clear errors ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: wp.tid(), "wp.tid is a kernel builtin: call it inside a @wp.kernel.*reads the launch"),
        (lambda: wp.atomic_add(wp.zeros(3), 0, 1.0), "wp.atomic_add .*takes arrays"),
        (lambda: wp.sin("x"), r"wp.sin\(\): argument 1 is a str"),
        (lambda: wp.sin(1), r"no overload of wp.sin accepts arguments \(int32\)"),
        (lambda: wp.dot(wp.vec3(), wp.vec2()), r"no overload of wp.dot accepts arguments \(vec3f, vec2f\)"),
        (lambda: wp.quat_from_axis_angle(axis=wp.vec3(), turn=1.0), "unexpected keyword arguments"),
    ],
)
def test_errors(call, message):
    with pytest.raises(TypeError, match=message):
        call()


def test_expectations_print_in_python_scope(capfd):
    """``wp.expect_eq`` & co. only print, so Python scope may call them (a @wp.func run from Python)."""
    wp.expect_eq(1.5, 1.5)
    wp.expect_neq(wp.vec3(1.0), wp.vec3(2.0))
    wp.expect_near(1.0, 1.05, 0.1)
    assert "Expect failed" not in capfd.readouterr().out
    wp.expect_eq(wp.vec3(1.0), wp.vec3(1.0, 1.0, 2.0))
    assert capfd.readouterr().out.count("Expect failed") == 1
    wp.expect_near(1.0, 1.5, 0.1)
    assert capfd.readouterr().out.count("Expect failed") == 1


@pytest.mark.slow
def test_compiled_calls_are_cached_on_disk(tmp_path):
    """A second process loads the compiled call from the kernel cache instead of compiling it."""
    script = tmp_path / "call.py"
    script.write_text(textwrap.dedent(
        """
        import time
        import warp as wp
        from warp.targets.cpu import jit as cpu_jit
        compiled = []
        original = cpu_jit.compile_ir
        cpu_jit.compile_ir = lambda *a, **k: compiled.append(1) or original(*a, **k)
        print(wp.cosh(wp.float64(0.25)), len(compiled))
        """
    ))
    env = dict(os.environ, WARP_CACHE_PATH=str(tmp_path / "cache"))
    command = [sys.executable, str(script)]
    runs = [subprocess.run(command, env=env, capture_output=True, text=True) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
    first, second = (r.stdout.split() for r in runs)
    assert float(first[0]) == math.cosh(0.25) and first == [first[0], "1"]
    assert second == [first[0], "0"]
