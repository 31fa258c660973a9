"""Local vectors/matrices read and written at runtime indices (``stack[sp] = node``).

Such locals are kept in one stack slot and updated in place when no older version of the
variable is read after a newer one is written (warp/compiler/lowering/local_memory.py); other
cases keep copy semantics. Every case compares with the same computation in NumPy/Python.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import warp as wp
from warp.compiler.frontend.translator import build_kernel
from warp.compiler.lowering.kernel import lower_kernel
from warp.compiler.lowering.local_memory import plan_local_memory
from warp.compiler.options import compiling, resolve_options
from warp.targets import get_target
from warp.targets import target_for_kind

stack16 = wp.types.vector(length=16, dtype=wp.int32)
vec8 = wp.types.vector(length=8, dtype=wp.float32)
vec8d = wp.types.vector(length=8, dtype=wp.float64)


def lowered_ir(kernel) -> str:
    options = resolve_options(kernel, target=target_for_kind("cpu"))
    with compiling(options):
        fn = build_kernel(kernel)
        return lower_kernel(fn, options, get_target(wp.get_device("cpu")).define_entry).llvm_ir


# -- a depth-first traversal with an explicit stack -------------------------------------------------

@wp.kernel
def tree_sum(lo: wp.array(dtype=int), hi: wp.array(dtype=int), leaf: wp.array(dtype=int),
             qa: wp.array(dtype=int), qb: wp.array(dtype=int), out: wp.array(dtype=int),
             depth: wp.array(dtype=int)):
    """Sum of leaf values in [qa, qb] over a 32-leaf segment tree (nodes 1..63)."""
    i = wp.tid()
    stack = stack16()
    stack[0] = 1
    sp = int(1)
    total = int(0)
    deepest = int(0)
    while sp > 0:
        sp -= 1
        node = stack[sp]
        if lo[node] <= qb[i] and hi[node] >= qa[i]:
            if node >= 32:
                total += leaf[node - 32]
            else:
                stack[sp] = 2 * node + 1
                sp += 1
                stack[sp] = 2 * node
                sp += 1
                deepest = wp.max(deepest, sp)
    out[i] = total
    depth[i] = deepest


@pytest.mark.needs_plugin("builtins")
def test_stack_traversal_matches_numpy():
    rng = np.random.default_rng(3)
    keys = np.sort(rng.integers(0, 1000, 32)).astype(np.int32)
    leaf = rng.integers(-50, 50, 32).astype(np.int32)
    lo = np.zeros(64, np.int32)
    hi = np.zeros(64, np.int32)
    lo[32:], hi[32:] = keys, keys
    for node in range(31, 0, -1):
        lo[node], hi[node] = min(lo[2 * node], lo[2 * node + 1]), max(hi[2 * node], hi[2 * node + 1])
    n = 500
    qa = rng.integers(-10, 1000, n).astype(np.int32)
    qb = (qa + rng.integers(0, 300, n)).astype(np.int32)
    out, depth = wp.zeros(n, dtype=int), wp.zeros(n, dtype=int)
    arrays = [wp.array(a, dtype=int) for a in (lo, hi, leaf, qa, qb)]
    wp.launch(tree_sum, dim=n, inputs=[*arrays, out, depth])
    ref = np.array([leaf[(keys >= a) & (keys <= b)].sum() for a, b in zip(qa, qb)])
    np.testing.assert_array_equal(out.numpy(), ref)
    assert depth.numpy().max() >= 6  # the stack really held several pending nodes


@pytest.mark.needs_plugin("builtins")
def test_stack_lives_in_one_slot_without_whole_copies():
    text = lowered_ir(tree_sum)
    # the contiguous-array body (the strided one is the same)
    body = re.search(r'define internal [^\n]*_c"\(.*?\n}\n', text, re.S).group(0)
    assert len(re.findall(r"alloca \[16 x i32\]", body)) == 1
    assert not re.search(r"load \[16 x i32\]", body)
    assert len(re.findall(r"store \[16 x i32\]", body)) == 1  # the initial zero vector


# -- loops, branches, break/continue ----------------------------------------------------------------

@wp.kernel
def scatter_gather(idx: wp.array(dtype=int), w: wp.array(dtype=float), n: int, out: wp.array2d(dtype=float)):
    i = wp.tid()
    v = vec8()
    for k in range(n):
        j = idx[(i + k) % idx.shape[0]]
        if j % 3 == 0:
            v[j] += w[k]
        elif j % 3 == 1:
            v[j] = v[(j + 1) % 8] - w[k]
        else:
            if v[j] > 1.0:
                continue
            v[-1 - j] *= 0.5
        if v[0] > 100.0:
            break
    k = int(0)
    while k < 8:
        out[i, k] = v[k]
        k += 1


def scatter_gather_ref(idx, w, n, i):
    v = np.zeros(8, np.float32)
    for k in range(n):
        j = idx[(i + k) % len(idx)]
        if j % 3 == 0:
            v[j] += w[k]
        elif j % 3 == 1:
            v[j] = v[(j + 1) % 8] - w[k]
        else:
            if v[j] > 1.0:
                continue
            v[-1 - j] *= np.float32(0.5)
        if v[0] > 100.0:
            break
    return v


def test_reads_and_writes_in_loops_and_branches():
    rng = np.random.default_rng(4)
    idx = rng.integers(0, 8, 37).astype(np.int32)
    w = rng.uniform(-3.0, 40.0, 60).astype(np.float32)
    n, threads = 60, 40
    out = wp.zeros((threads, 8), dtype=float)
    inputs = [wp.array(idx, dtype=int), wp.array(w, dtype=float), n, out]
    wp.launch(scatter_gather, dim=threads, inputs=inputs)
    ref = np.stack([scatter_gather_ref(idx, w, n, i) for i in range(threads)])
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-6)


@wp.kernel
def matrix_updates(r: wp.array(dtype=int), c: wp.array(dtype=int), x: wp.array(dtype=float),
                   out: wp.array(dtype=wp.mat33), rows: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    m = wp.mat33()
    for k in range(x.shape[0]):
        m[r[k], c[k]] = m[r[k], c[k]] + x[k] * float(i + 1)
        if k % 4 == 3:
            m[c[k]] = m[r[k]] * 0.5  # a whole row at a runtime index
    out[i] = m
    rows[i] = m[r[i % r.shape[0]]]


@pytest.mark.needs_plugin("builtins")
def test_matrix_elements_and_rows_at_runtime_indices():
    rng = np.random.default_rng(5)
    r = rng.integers(0, 3, 20).astype(np.int32)
    c = rng.integers(0, 3, 20).astype(np.int32)
    x = rng.uniform(-1, 1, 20).astype(np.float32)
    threads = 6
    out, rows = wp.zeros(threads, dtype=wp.mat33), wp.zeros(threads, dtype=wp.vec3)
    wp.launch(matrix_updates, dim=threads,
              inputs=[wp.array(r, dtype=int), wp.array(c, dtype=int), wp.array(x, dtype=float), out, rows])
    for i in range(threads):
        m = np.zeros((3, 3), np.float32)
        for k in range(20):
            m[r[k], c[k]] = m[r[k], c[k]] + x[k] * np.float32(i + 1)
            if k % 4 == 3:
                m[c[k]] = m[r[k]] * np.float32(0.5)
        np.testing.assert_allclose(out.numpy()[i], m, rtol=1e-6)
        np.testing.assert_allclose(rows.numpy()[i], m[r[i % 20]], rtol=1e-6)


# -- copy semantics where an older version is still read --------------------------------------------

@wp.kernel
def old_versions(j: int, n: int, out: wp.array(dtype=float)):
    s = vec8(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0)
    t = s
    t[j] = 100.0  # s keeps its value
    before_loop = t
    for k in range(n):
        t[(j + k) % 8] = t[(j + k) % 8] + 10.0
    out[0] = s[j]
    out[1] = t[j]
    out[2] = before_loop[(j + 1) % 8]
    out[3] = t[(j + 1) % 8]


def test_older_versions_keep_their_values():
    for j in (0, 3, 7):
        out = wp.zeros(4, dtype=float)
        wp.launch(old_versions, dim=1, inputs=[j, 5, out])
        s = np.arange(1, 9, dtype=np.float32)
        t = s.copy()
        t[j] = 100.0
        before = t.copy()
        for k in range(5):
            t[(j + k) % 8] += 10.0
        np.testing.assert_array_equal(out.numpy(), [s[j], t[j], before[(j + 1) % 8], t[(j + 1) % 8]])


@wp.func
def bump(v: vec8, j: int, amount: float) -> vec8:
    v[j] = v[j] + amount
    v[(j + 1) % 8] = v[j] * 2.0
    return v


@wp.kernel
def through_functions(j: wp.array(dtype=int), out: wp.array2d(dtype=float)):
    i = wp.tid()
    a = vec8()
    a[j[i]] = 1.0
    b = bump(a, j[i], 3.0)  # a (the caller's copy) is unchanged
    c = bump(b, (j[i] + 2) % 8, float(i))
    for k in range(8):
        out[i, k] = a[k] + 10.0 * b[k] + 100.0 * c[k]


def test_function_parameters_are_values():
    jj = np.array([0, 5, 7, 2], np.int32)
    out = wp.zeros((4, 8), dtype=float)
    wp.launch(through_functions, dim=4, inputs=[wp.array(jj, dtype=int), out])

    def bump_ref(v, j, amount):
        v = v.copy()
        v[j] = v[j] + amount
        v[(j + 1) % 8] = v[j] * 2.0
        return v

    for i, j in enumerate(jj):
        a = np.zeros(8, np.float32)
        a[j] = 1.0
        b = bump_ref(a, j, 3.0)
        c = bump_ref(b, (j + 2) % 8, float(i))
        np.testing.assert_allclose(out.numpy()[i], a + 10.0 * b + 100.0 * c, rtol=1e-6)


@pytest.mark.needs_plugin("builtins")
def test_planner_keeps_copies_where_versions_overlap():
    plan = plan_local_memory(build_kernel(old_versions))
    assert not plan.web_of  # s and t share a web and s is read after t[j] = ...: SSA lowering
    plan = plan_local_memory(build_kernel(tree_sum))
    assert len(set(plan.web_of.values())) == 1


# -- gradients through locals written at runtime indices --------------------------------------------

@wp.kernel
def weighted_bins(x: wp.array(dtype=wp.float64), bins: wp.array(dtype=int), loss: wp.array(dtype=wp.float64)):
    v = vec8d()
    for k in range(x.shape[0]):
        b = bins[k]
        v[b] = v[b] + x[k] * x[k]
    total = wp.float64(0.0)
    for b in range(8):
        total += v[b] * wp.float64(b + 1)
    loss[0] = total


@pytest.mark.needs_plugin("builtins", "autodiff")
def test_gradient_through_runtime_index_writes():
    rng = np.random.default_rng(6)
    x = rng.uniform(-1, 1, 12)
    bins = rng.integers(0, 8, 12).astype(np.int32)
    xa = wp.array(x, dtype=wp.float64, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(weighted_bins, dim=1, inputs=[xa, wp.array(bins, dtype=int)], outputs=[loss])
    tape.backward(loss=loss)
    assert np.isclose(loss.numpy()[0], np.sum(x * x * (bins + 1)))
    np.testing.assert_allclose(xa.grad.numpy(), 2.0 * x * (bins + 1), rtol=1e-12)
