"""Adjoints of dynamic loops whose reverse needs the carried values of every iteration: stored
per iteration (linear time), or recomputed from checkpoints when the memory budget is small.
Every form is checked against central finite differences in float64, with the default budget
and with budgets small enough to force checkpointing."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import warp as wp

from adutil import F, check_gradients, f64

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")

X = np.array([0.31, -0.52, 0.77, 0.18, -0.05, 0.64])


@pytest.fixture(params=["default", "small", "tiny"])
def budget(request):
    """Scratch memory per adjoint launch: everything stored, a leaf of a few iterations, one."""
    saved = wp.config.adjoint_loop_memory
    if request.param == "small":
        # per thread (6 threads, one site of 8-byte slots): 33 positions + 34 stack/spare slots + 5 stored
        wp.config.adjoint_loop_memory = 6 * (8 * 33 + 8 * 39)
    elif request.param == "tiny":
        wp.config.adjoint_loop_memory = 1  # raised to the minimum: one stored iteration
    yield request.param
    wp.config.adjoint_loop_memory = saved


def quiet_check(kernel, dim, inputs, outputs, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", wp.AdjointWarning)
        check_gradients(kernel, dim, inputs, outputs, **kw)


@wp.kernel
def sin_recurrence(x: wp.array(dtype=F), n: int, y: wp.array(dtype=F)):
    i = wp.tid()
    v = x[i]
    for _k in range(n):
        v = wp.sin(v) * v + F(0.5)
    y[i] = v


@pytest.mark.parametrize("n", [0, 1, 5, 37])
def test_for_loop_with_nonlinear_carried_value(budget, n):
    quiet_check(sin_recurrence, 6, [f64(X), n], [wp.zeros(6, dtype=F)])


@wp.kernel
def strided_range(x: wp.array(dtype=F), lo: int, hi: int, step: int, y: wp.array(dtype=F)):
    i = wp.tid()
    v = x[i]
    w = F(1.0)
    for k in range(lo, hi, step):
        w = w * (v + F(0.01) * F(k))
        v = wp.cos(v) * F(0.9) + w * F(0.1)
    y[i] = v + w


@pytest.mark.parametrize("bounds", [(3, 40, 2), (30, -3, -3), (5, 5, 1)])
def test_for_loop_with_start_stop_step(budget, bounds):
    quiet_check(strided_range, 6, [f64(X), *bounds], [wp.zeros(6, dtype=F)])


@wp.kernel
def while_until(x: wp.array(dtype=F), y: wp.array(dtype=F)):
    i = wp.tid()
    v = x[i] + F(1.0)
    k = int(0)
    while v < F(6.0) and k < 100:
        v = v * F(1.1) + wp.sin(v) * F(0.3)
        k += 1
    y[i] = v * F(k)


def test_while_loop_with_data_dependent_trip_count(budget):
    quiet_check(while_until, 6, [f64(X)], [wp.zeros(6, dtype=F)])


@wp.kernel
def break_continue_return(x: wp.array(dtype=F), n: int, y: wp.array(dtype=F)):
    i = wp.tid()
    v = x[i]
    for k in range(n):
        if k % 3 == 1:
            v = v * F(0.97)
            continue
        v = wp.sin(v) + v * v * F(0.5)
        if v > F(2.0):
            break
        if k == 40 and i == 2:
            y[i] = v * F(3.0)
            return
    y[i] = v


@pytest.mark.slow
def test_break_continue_and_return_with_stored_state(budget):
    quiet_check(break_continue_return, 6, [f64(X), 50], [wp.zeros(6, dtype=F)])


@wp.kernel
def nested(x: wp.array(dtype=F), n: int, m: int, y: wp.array(dtype=F)):
    i = wp.tid()
    v = x[i]
    for j in range(n):
        w = v
        for _k in range(m + j):
            w = wp.sin(w) * F(0.8) + v * F(0.1)
        v = v * w + F(0.2)
    y[i] = v


@pytest.mark.slow
def test_nested_dynamic_loops(budget):
    quiet_check(nested, 6, [f64(X), 6, 5], [wp.zeros(6, dtype=F)])


@wp.func
def iterate(v: F, n: int) -> F:
    for _k in range(n):
        v = wp.sin(v) * v + F(0.25)
    return v


@wp.kernel
def loop_in_func(x: wp.array(dtype=F), n: int, y: wp.array(dtype=F)):
    i = wp.tid()
    a = iterate(x[i], n)
    b = iterate(a * F(0.5), n + 3)
    y[i] = a * b


@pytest.mark.slow
def test_loop_inside_a_user_function(budget):
    quiet_check(loop_in_func, 6, [f64(X), 12], [wp.zeros(6, dtype=F)])


@wp.kernel
def vector_state(p: wp.array(dtype=wp.vec3d), n: int, y: wp.array(dtype=F)):
    i = wp.tid()
    v = p[i]
    q = wp.quat_from_axis_angle(wp.normalize(wp.vec3d(F(1.0), F(2.0), F(3.0))), F(0.3))
    s = F(0.0)
    for k in range(n):
        v = wp.quat_rotate(q, v) * F(1.01) + wp.normalize(v) * F(0.1)
        s = s + wp.length(v) * F(k)
    y[i] = s + v[0]


def test_composite_state_and_builtins_with_reference_adjoints(budget):
    pts = np.stack([X, X[::-1], X * 2.0 + 0.3], axis=1)
    quiet_check(vector_state, 6, [wp.array(pts, dtype=wp.vec3d), 9], [wp.zeros(6, dtype=F)])


@wp.kernel
def writes_in_loop(x: wp.array(dtype=F), n: int, y: wp.array2d(dtype=F)):
    i = wp.tid()
    v = x[i]
    idx = int(0)
    for k in range(n):
        v = wp.sin(v) * F(1.3) + F(0.1) * v * v
        idx = (idx + 3) % n
        y[i, idx] = v * F(k + 1)


def test_loop_with_array_writes_and_an_integer_carried_index(budget):
    quiet_check(writes_in_loop, 6, [f64(X), 7], [wp.zeros((6, 7), dtype=F)])


def test_the_warning_says_what_the_strategy_costs():
    @wp.kernel
    def fresh(x: wp.array(dtype=F), n: int, y: wp.array(dtype=F)):
        i = wp.tid()
        v = x[i]
        for _k in range(n):
            v = v * v * F(0.5)
        y[i] = v

    with pytest.warns(
        wp.AdjointWarning, match=r"stores them \(8 bytes per iteration and thread.*checkpoints"
    ):
        check_gradients(fresh, 6, [f64(X), 4], [wp.zeros(6, dtype=F)])


def test_a_linear_loop_needs_no_storage_and_does_not_warn():
    @wp.kernel
    def linear(x: wp.array(dtype=F), n: int, y: wp.array(dtype=F)):
        i = wp.tid()
        s = F(0.0)
        for k in range(n):
            s = s + x[i] * F(k) + wp.sin(x[(i + k) % 6])
        y[i] = s

    with warnings.catch_warnings():
        warnings.simplefilter("error", wp.AdjointWarning)
        check_gradients(linear, 6, [f64(X), 9], [wp.zeros(6, dtype=F)])


# -- generated loop kernels: adjoints compiled (and vectorized where LLVM can) in a child process -

BODIES = {
    "recurrence": "v = wp.sin(v) * v + F(0.5)",
    "branchy": "v = wp.where(v > F(0.3), v * F(0.9) + F(0.1), wp.cos(v))",
    "vector": "w = w * F(0.9) + wp.vec3d(v, v * v, F(1.0)) * F(0.1)\n        v = v + wp.dot(w, w) * F(0.01)",
    "index": "v = v * F(0.8) + x[(i + k) % 6] * F(0.2)",
    "linear": "s = s + v * F(k)",
}
LOOP_HEADS = {"for": "for k in range({n}):", "strided": "for k in range(1, {n} + 1, 2):"}

GENERATED = r"""
import sys, importlib.util, warnings
import numpy as np
import warp as wp
wp.config.quiet = True
warnings.simplefilter("ignore")
spec = importlib.util.spec_from_file_location("loop_kernels", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
x = wp.array(np.array([0.31, -0.52, 0.77, 0.18, -0.05, 0.64]), dtype=wp.float64)
for name in sys.argv[2:]:
    print("BEGIN", name, flush=True)
    for budget in (1 << 30, 1):
        wp.config.adjoint_loop_memory = budget
        y = wp.zeros(6, dtype=wp.float64)
        ok = wp.autograd.gradcheck(getattr(mod, name), 6, [x, 7], [y], eps=1e-6, atol=1e-6, rtol=1e-6,
                                   show_summary=False, raise_exception=False)
        assert ok, (name, budget)
    print("OK", name, flush=True)
"""


def _generated_loop_kernels() -> dict[str, str]:
    out = {}
    for (bname, body), (hname, head) in itertools.product(BODIES.items(), LOOP_HEADS.items()):
        name = f"k_{bname}_{hname}"
        out[name] = (
            f"@wp.kernel\ndef {name}(x: wp.array(dtype=F), n: int, y: wp.array(dtype=F)):\n"
            f"    i = wp.tid()\n    v = x[i]\n    s = F(0.0)\n    w = wp.vec3d(v, F(0.5), F(0.25))\n"
            f"    {head.format(n='n')}\n        {body}\n    y[i] = v + s + w[0]\n"
        )
    return out


@pytest.mark.slow
def test_generated_loop_adjoints_match_finite_differences(tmp_path):
    sources = _generated_loop_kernels()
    module = tmp_path / "loop_kernels.py"
    module.write_text("import warp as wp\n\nF = wp.float64\n\n\n" + "\n\n".join(sources.values()))
    child = tmp_path / "child.py"
    child.write_text(GENERATED)
    env = dict(os.environ, WARP_CACHE_PATH=str(tmp_path / "cache"))
    proc = subprocess.run(
        [sys.executable, str(child), str(module), *sources],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    begun = [line.split()[1] for line in proc.stdout.splitlines() if line.startswith("BEGIN")]
    assert proc.returncode == 0, (
        f"kernel '{begun[-1] if begun else '?'}' failed (status {proc.returncode}):\n"
        f"{sources.get(begun[-1] if begun else '', '')}\n{proc.stderr[-3000:]}"
    )
