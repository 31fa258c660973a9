"""Augmented assignment evaluates its target once: in ``a[f()].x *= 2`` the index ``f()`` runs
once, as in Python, although the element is both read and written.

``pick`` counts its calls with an atomic add per thread; every case compares the counter with
the number of augmented assignments the thread ran and the data with a NumPy computation.
"""

import numpy as np
import pytest

import warp as wp


@wp.func
def pick(counter: wp.array(dtype=wp.int32), t: int, i: int) -> int:
    wp.atomic_add(counter, t, 1)
    return i


@wp.struct
class Particle:
    pos: wp.vec3
    mass: float


@wp.kernel
def every_target_form(
    vecs: wp.array(dtype=wp.vec3),
    scalars: wp.array(dtype=float),
    mats: wp.array(dtype=wp.mat22),
    parts: wp.array(dtype=Particle),
    counter: wp.array(dtype=wp.int32),
    out: wp.array(dtype=wp.vec3),
):
    t = wp.tid()
    vecs[pick(counter, t, t)].x *= 2.0  # component of an element, non-atomic operator
    vecs[pick(counter, t, t)].y += 1.0  # component, atomic form
    vecs[pick(counter, t, t)][2] -= 3.0
    scalars[pick(counter, t, t)] *= 3.0
    scalars[pick(counter, t, t)] += 0.5
    mats[pick(counter, t, t)][0, 1] /= 4.0
    parts[pick(counter, t, t)].mass *= 5.0
    parts[pick(counter, t, t)].pos.z *= -1.0
    local = wp.vec3(1.0, 2.0, 3.0)
    local[pick(counter, t, 1)] *= 7.0
    m = wp.mat22(1.0, 2.0, 3.0, 4.0)
    m[pick(counter, t, 1), pick(counter, t, 0)] += 10.0
    out[t] = local + wp.vec3(m[1, 0], 0.0, 0.0)


@pytest.mark.needs_plugin("builtins")
def test_target_sub_expressions_run_once():
    n = 5
    rng = np.random.default_rng(3)
    v0 = rng.standard_normal((n, 3)).astype(np.float32)
    s0 = rng.standard_normal(n).astype(np.float32)
    m0 = rng.standard_normal((n, 2, 2)).astype(np.float32)
    parts = []
    for k in range(n):
        p = Particle()
        p.pos = wp.vec3(*v0[k])
        p.mass = float(k + 1)
        parts.append(p)
    vecs = wp.array(v0, dtype=wp.vec3)
    scalars = wp.array(s0, dtype=float)
    mats = wp.array(m0, dtype=wp.mat22)
    parr = wp.array(parts, dtype=Particle)
    counter = wp.zeros(n, dtype=wp.int32)
    out = wp.zeros(n, dtype=wp.vec3)
    wp.launch(every_target_form, dim=n, inputs=[vecs, scalars, mats, parr, counter, out])

    assert counter.numpy().tolist() == [11] * n
    ref_v = v0.copy()
    ref_v[:, 0] *= 2.0
    ref_v[:, 1] += 1.0
    ref_v[:, 2] -= 3.0
    np.testing.assert_allclose(vecs.numpy(), ref_v, rtol=1e-6)
    np.testing.assert_allclose(scalars.numpy(), s0 * 3.0 + 0.5, rtol=1e-6)
    ref_m = m0.copy()
    ref_m[:, 0, 1] /= 4.0
    np.testing.assert_allclose(mats.numpy(), ref_m, rtol=1e-6)
    got = parr.numpy()
    np.testing.assert_allclose(got["mass"], 5.0 * np.arange(1, n + 1))
    np.testing.assert_allclose(got["pos"][:, 2], -v0[:, 2])
    np.testing.assert_allclose(out.numpy(), np.tile([1.0 + 13.0, 2.0 * 7.0, 3.0], (n, 1)))


@wp.func
def _counted_int16(counter: wp.array(dtype=int), v: wp.int16):
    wp.atomic_add(counter, 0, 1)
    return v


@wp.func
def _counted_vec3s(counter: wp.array(dtype=int), v: wp.vec3s):
    wp.atomic_add(counter, 0, 1)
    return v


@pytest.mark.needs_plugin("builtins")  # vec3s + vec3s
def test_augassign_on_arrays_of_small_integers_is_a_plain_update():
    # 8/16-bit integers have no atomics: a[i] += x reads, adds and writes (x evaluated once)
    @wp.kernel
    def small_ints(
        counter: wp.array(dtype=int),
        i16: wp.array(dtype=wp.int16),
        v16: wp.array(dtype=wp.vec3s),
        u8: wp.array(dtype=wp.uint8),
    ):
        i = wp.tid()
        i16[i] += _counted_int16(counter, wp.int16(10))
        v16[i] += _counted_vec3s(counter, wp.vec3s(wp.int16(1), wp.int16(2), wp.int16(3)))
        u8[i] -= wp.uint8(3)

    counter = wp.zeros(1, dtype=int)
    i16 = wp.array([5, -7], dtype=wp.int16)
    v16 = wp.array(np.array([[10, 20, 30], [0, 0, 0]]), dtype=wp.vec3s)
    u8 = wp.array([1, 200], dtype=wp.uint8)
    wp.launch(small_ints, dim=2, inputs=[counter, i16, v16, u8])
    assert counter.numpy()[0] == 4
    np.testing.assert_array_equal(i16.numpy(), [15, 3])
    np.testing.assert_array_equal(v16.numpy(), [[11, 22, 33], [1, 2, 3]])
    np.testing.assert_array_equal(u8.numpy(), [254, 197])
