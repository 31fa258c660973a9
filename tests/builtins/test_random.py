"""Random builtins: determinism, state advancing, and distributions checked statistically."""

import numpy as np
import pytest
from scipy import stats

import warp as wp

N = 100_000


@wp.kernel
def scalars(seed: int, f: wp.array(dtype=float), f_range: wp.array(dtype=float), n: wp.array(dtype=float),
            i_all: wp.array(dtype=int), i_range: wp.array(dtype=int), u_range: wp.array(dtype=wp.uint32)):
    tid = wp.tid()
    state = wp.rand_init(seed, tid)
    f[tid] = wp.randf(state)
    f_range[tid] = wp.randf(state, -2.0, 6.0)
    n[tid] = wp.randn(state)
    i_all[tid] = wp.randi(state)
    i_range[tid] = wp.randi(state, -5, 5)
    u_range[tid] = wp.randu(state, wp.uint32(10), wp.uint32(20))


def run_scalars(seed=7):
    outs = [wp.zeros(N, dtype=t) for t in (float, float, float, int, int, wp.uint32)]
    wp.launch(scalars, dim=N, inputs=[seed, *outs])
    return [o.numpy() for o in outs]


def test_determinism_and_seeds():
    a = run_scalars(7)
    b = run_scalars(7)
    c = run_scalars(8)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert np.mean(a[0] == c[0]) < 0.01
    # neighbouring offsets are uncorrelated
    assert abs(np.corrcoef(a[0][:-1], a[0][1:])[0, 1]) < 0.02


def test_uniform_and_integer_ranges():
    f, f_range, _, i_all, i_range, u_range = run_scalars()
    assert f.min() >= 0.0 and f.max() < 1.0
    assert abs(f.mean() - 0.5) < 0.005 and abs(f.var() - 1 / 12) < 0.002
    assert f_range.min() >= -2.0 and f_range.max() < 6.0 and abs(f_range.mean() - 2.0) < 0.05
    assert i_all.min() < -(2**30) and i_all.max() > 2**30  # all 32 bits are random
    assert set(np.unique(i_range)) == set(range(-5, 5))
    counts = np.bincount(i_range + 5)
    assert stats.chisquare(counts).pvalue > 1e-4
    assert set(np.unique(u_range)) == set(range(10, 20))


def test_normal():
    n = run_scalars()[2]
    assert abs(n.mean()) < 0.02 and abs(n.var() - 1.0) < 0.02
    assert abs(stats.kurtosis(n)) < 0.1
    assert stats.kstest(n, "norm").pvalue > 1e-4


@wp.kernel
def normal_from_two_uniforms(n: wp.array(dtype=float), u: wp.array2d(dtype=float)):
    tid = wp.tid()
    state = wp.rand_init(tid)
    n[tid] = wp.randn(state)
    state = wp.rand_init(tid)
    u[tid, 0] = wp.randf(state)
    u[tid, 1] = wp.randf(state)


def test_normal_is_box_muller_of_the_next_two_uniform_draws():
    # randn(state) = sqrt(-2 log(u1 + FLT_EPSILON)) cos(2 pi u2) for the two randf draws it
    # consumes, as NVIDIA Warp samples it, so seeded programs give Warp's values
    count = 1000
    n, u = wp.zeros(count, dtype=float), wp.zeros((count, 2), dtype=float)
    wp.launch(normal_from_two_uniforms, dim=count, inputs=[n, u])
    u1, u2 = u.numpy().astype(np.float64).T
    expected = np.sqrt(-2.0 * np.log(u1 + np.finfo(np.float32).eps)) * np.cos(2.0 * np.pi * u2)
    np.testing.assert_allclose(n.numpy(), expected, rtol=2e-5, atol=2e-6)
    # Warp's first values for rand_init(0..3)
    np.testing.assert_allclose(n.numpy()[:4], [-1.8213255, 0.27881497, -1.1122388, 0.5936895], atol=1e-5)


@wp.kernel
def samplers(
    seed: int,
    disk: wp.array(dtype=wp.vec2),
    ring: wp.array(dtype=wp.vec2),
    square: wp.array(dtype=wp.vec2),
    tri: wp.array(dtype=wp.vec2),
    sphere_s: wp.array(dtype=wp.vec3),
    sphere: wp.array(dtype=wp.vec3),
    hemi_s: wp.array(dtype=wp.vec3),
    hemi: wp.array(dtype=wp.vec3),
    cube: wp.array(dtype=wp.vec3),
):
    tid = wp.tid()
    state = wp.rand_init(seed, tid)
    disk[tid] = wp.sample_unit_disk(state)
    ring[tid] = wp.sample_unit_ring(state)
    square[tid] = wp.sample_unit_square(state)
    tri[tid] = wp.sample_triangle(state)
    sphere_s[tid] = wp.sample_unit_sphere_surface(state)
    sphere[tid] = wp.sample_unit_sphere(state)
    hemi_s[tid] = wp.sample_unit_hemisphere_surface(state)
    hemi[tid] = wp.sample_unit_hemisphere(state)
    cube[tid] = wp.sample_unit_cube(state)


@pytest.fixture(scope="module")
def samples():
    names = ["disk", "ring", "square", "tri", "sphere_s", "sphere", "hemi_s", "hemi", "cube"]
    types = [wp.vec2] * 4 + [wp.vec3] * 5
    outs = [wp.zeros(N, dtype=t) for t in types]
    wp.launch(samplers, dim=N, inputs=[3, *outs])
    return {k: o.numpy().astype(np.float64) for k, o in zip(names, outs)}


def test_disk_and_ring(samples):
    r = np.linalg.norm(samples["disk"], axis=1)
    assert r.max() <= 1.0 + 1e-6
    assert abs((r**2).mean() - 0.5) < 0.005  # area-uniform: r^2 ~ U(0, 1)
    assert np.abs(samples["disk"].mean(0)).max() < 0.01
    np.testing.assert_allclose(np.linalg.norm(samples["ring"], axis=1), 1.0, atol=1e-5)
    assert np.abs(samples["ring"].mean(0)).max() < 0.01
    angles = np.arctan2(samples["ring"][:, 1], samples["ring"][:, 0])
    assert stats.kstest(angles, stats.uniform(-np.pi, 2 * np.pi).cdf).pvalue > 1e-4


def test_square_cube_triangle(samples):
    for key, dims in (("square", 2), ("cube", 3)):
        x = samples[key]
        assert x.shape[1] == dims and x.min() >= -0.5 and x.max() < 0.5
        assert np.abs(x.mean(0)).max() < 0.01 and np.abs(x.var(0) - 1 / 12).max() < 0.002
    t = samples["tri"]
    assert t.min() >= 0.0 and (t.sum(1) <= 1.0 + 1e-6).all()
    np.testing.assert_allclose(t.mean(0), [1 / 3, 1 / 3], atol=0.005)


def test_spheres(samples):
    for key in ("sphere_s", "hemi_s"):
        np.testing.assert_allclose(np.linalg.norm(samples[key], axis=1), 1.0, atol=1e-5)
    for key in ("sphere", "hemi"):
        r = np.linalg.norm(samples[key], axis=1)
        assert r.max() <= 1.0 + 1e-6
        assert abs((r**3).mean() - 0.5) < 0.005  # volume-uniform: r^3 ~ U(0, 1)
    assert np.abs(samples["sphere_s"].mean(0)).max() < 0.01
    assert np.abs(samples["sphere"].mean(0)).max() < 0.01
    # area-uniform on the sphere: z ~ U(-1, 1); hemispheres lie in z >= 0
    assert stats.kstest(samples["sphere_s"][:, 2], stats.uniform(-1, 2).cdf).pvalue > 1e-4
    for key, mean_z in (("hemi_s", 0.5), ("hemi", 3 / 8)):
        x = samples[key]
        assert x[:, 2].min() >= 0.0
        assert np.abs(x[:, :2].mean(0)).max() < 0.01 and abs(x[:, 2].mean() - mean_z) < 0.01


@wp.kernel
def poisson_kernel(seed: int, lam: float, out: wp.array(dtype=wp.uint32)):
    tid = wp.tid()
    state = wp.rand_init(seed, tid)
    out[tid] = wp.poisson(state, lam)


@pytest.mark.parametrize("lam", [0.0, 0.5, 3.5, 9.9, 10.0, 42.0, 1000.0])
def test_poisson(lam):
    out = wp.zeros(N, dtype=wp.uint32)
    wp.launch(poisson_kernel, dim=N, inputs=[11, lam, out])
    k = out.numpy().astype(np.int64)
    if lam == 0.0:
        assert (k == 0).all()
        return
    se = np.sqrt(lam / N)
    assert abs(k.mean() - lam) < 5 * se
    assert abs(k.var() / lam - 1.0) < 0.03
    # total variation distance to the exact distribution
    support = np.arange(k.max() + 1)
    freq = np.bincount(k, minlength=len(support)) / N
    tv = 0.5 * np.abs(freq - stats.poisson(lam).pmf(support)).sum()
    assert tv < 0.02


@wp.kernel
def cdf_kernel(seed: int, cdf: wp.array(dtype=float), out: wp.array(dtype=int)):
    tid = wp.tid()
    state = wp.rand_init(seed, tid)
    out[tid] = wp.sample_cdf(state, cdf)


def test_sample_cdf():
    pmf = np.array([0.1, 0.0, 0.25, 0.4, 0.25])
    cdf = wp.array(np.cumsum(pmf).astype(np.float32), dtype=float)
    out = wp.zeros(N, dtype=int)
    wp.launch(cdf_kernel, dim=N, inputs=[5, cdf, out])
    freq = np.bincount(out.numpy(), minlength=5) / N
    np.testing.assert_allclose(freq, pmf, atol=0.006)


@wp.kernel
def sequence(seed: int, out: wp.array(dtype=float, ndim=2)):
    tid = wp.tid()
    state = wp.rand_init(seed, tid)
    a = wp.randf(state)
    out[tid, 0] = a
    if a > 0.5:
        wp.randf(state)  # advances the state in one branch only
    out[tid, 1] = wp.randf(state)
    out[tid, 2] = wp.randf(state)


def test_state_advances_like_a_reference():
    """Each draw advances the state; values follow the documented PCG hash."""

    def pcg(s):
        s = (s * 747796405 + 2891336453) & 0xFFFFFFFF
        s = (((s >> ((s >> 28) + 4)) ^ s) * 277803737) & 0xFFFFFFFF
        return (s >> 22) ^ s

    def draws(seed, offset, count):
        s = pcg((seed + pcg(offset)) & 0xFFFFFFFF)
        vals = []
        for _ in range(count):
            s = pcg(s)
            vals.append((s >> 8) / 16777216.0)
        return vals

    n = 64
    out = wp.zeros((n, 3), dtype=float)
    wp.launch(sequence, dim=n, inputs=[123, out])
    got = out.numpy()
    for tid in range(n):
        ref = draws(123, tid, 4)
        expected = [ref[0], ref[2], ref[3]] if ref[0] > 0.5 else ref[:3]
        np.testing.assert_array_equal(got[tid], np.float32(expected))


@wp.kernel
def loop_sum(seed: int, count: int, out: wp.array(dtype=float)):
    tid = wp.tid()
    state = wp.rand_init(seed, tid)
    total = float(0.0)
    for i in range(count):
        total = total + wp.randf(state)
    out[tid] = total


def test_state_advances_in_dynamic_loops():
    out = wp.zeros(1000, dtype=float)
    wp.launch(loop_sum, dim=1000, inputs=[1, 100, out])
    sums = out.numpy()
    # the sum of 100 independent U(0, 1) has mean 50 and variance 100/12
    assert abs(sums.mean() - 50.0) < 0.5 and abs(sums.var() - 100 / 12) < 2.0


def test_state_argument_must_be_uint32():
    @wp.kernel
    def bad(out: wp.array(dtype=float)):
        s = int(3)
        out[0] = wp.randf(s)

    with pytest.raises(wp.WarpCodegenTypeError, match="randf"):
        wp.launch(bad, dim=1, inputs=[wp.zeros(1, dtype=float)])


# ---------------------------------------------------------------------------------- noise



@wp.kernel
def noise_kernel(
    seed: wp.uint32,
    x: wp.array(dtype=wp.vec4),
    n1: wp.array(dtype=float),
    n2: wp.array(dtype=float),
    n3: wp.array(dtype=float),
    n4: wp.array(dtype=float),
):
    i = wp.tid()
    p = x[i]
    n1[i] = wp.noise(seed, p[0])
    n2[i] = wp.noise(seed, wp.vec2(p[0], p[1]))
    n3[i] = wp.noise(seed, wp.vec3(p[0], p[1], p[2]))
    n4[i] = wp.noise(seed, p)


def run_noise(seed, x):
    outs = [wp.zeros(len(x), dtype=float) for _ in range(4)]
    wp.launch(
        noise_kernel,
        dim=len(x),
        inputs=[wp.uint32(seed), wp.array(x.astype(np.float32), dtype=wp.vec4), *outs],
    )
    return [o.numpy() for o in outs]


def test_noise_properties():
    rng = np.random.default_rng(0)
    x = rng.uniform(-50, 50, size=(20000, 4))
    values = run_noise(17, x)
    again = run_noise(17, x)
    other = run_noise(18, x)
    for v, w, o in zip(values, again, other):
        np.testing.assert_array_equal(v, w)
        assert np.mean(v == o) < 0.01
    for n, v in enumerate(values, start=1):  # unscaled Perlin noise: |v| <= sqrt(n) / 2
        assert abs(v.mean()) < 0.02 and 0.1 < v.std() < 0.4 and np.abs(v).max() <= np.sqrt(n) / 2 + 1e-6
    # zero on the integer lattice, smooth in between
    lattice = np.floor(x)
    for v in run_noise(17, lattice):
        np.testing.assert_allclose(v, 0.0, atol=1e-6)
    for v, w in zip(values, run_noise(17, x + 1e-3)):
        assert np.abs(v - w).max() < 1e-2


@wp.kernel
def pnoise_kernel(
    seed: wp.uint32, x: wp.array(dtype=wp.vec4), shift: wp.vec4, out: wp.array(dtype=float, ndim=2)
):
    i = wp.tid()
    p = wp.vec4(x[i][0] + shift[0], x[i][1] + shift[1], x[i][2] + shift[2], x[i][3] + shift[3])
    out[i, 0] = wp.pnoise(seed, p[0], 3)
    out[i, 1] = wp.pnoise(seed, wp.vec2(p[0], p[1]), 3, 5)
    out[i, 2] = wp.pnoise(seed, wp.vec3(p[0], p[1], p[2]), 3, 5, 2)
    out[i, 3] = wp.pnoise(seed, p, 3, 5, 2, 4)


def test_pnoise_is_periodic():
    x = (np.random.default_rng(1).integers(-256, 256, size=(5000, 4)) / 64.0).astype(np.float32)
    xa = wp.array(x, dtype=wp.vec4)
    outs = []
    for shift in ([0, 0, 0, 0], [3, 5, 2, 4], [-6, 10, 4, -8]):
        out = wp.zeros((len(x), 4), dtype=float)
        wp.launch(pnoise_kernel, dim=len(x), inputs=[wp.uint32(9), xa, wp.vec4(*shift), out])
        outs.append(out.numpy())
    np.testing.assert_allclose(outs[1], outs[0], atol=1e-5)
    np.testing.assert_allclose(outs[2], outs[0], atol=1e-5)
    assert outs[0].std() > 0.05


@wp.kernel
def curl_kernel(seed: wp.uint32, x: wp.array(dtype=wp.vec4), h: float, octaves: wp.uint32,
                c2: wp.array(dtype=wp.vec2), div2: wp.array(dtype=float), c3: wp.array(dtype=wp.vec3),
                div3: wp.array(dtype=float), c4: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    p = x[i]
    xy = wp.vec2(p[0], p[1])
    c2[i] = wp.curlnoise(seed, xy)
    dx = (
        wp.curlnoise(seed, wp.vec2(p[0] + h, p[1]), octaves, 2.0, 0.5)[0]
        - wp.curlnoise(seed, wp.vec2(p[0] - h, p[1]), octaves, 2.0, 0.5)[0]
    )
    dy = (
        wp.curlnoise(seed, wp.vec2(p[0], p[1] + h), octaves, 2.0, 0.5)[1]
        - wp.curlnoise(seed, wp.vec2(p[0], p[1] - h), octaves, 2.0, 0.5)[1]
    )
    div2[i] = (dx + dy) / (2.0 * h)
    q = wp.vec3(p[0], p[1], p[2])
    c3[i] = wp.curlnoise(seed, q, octaves, 2.0, 0.5)
    ex = (
        wp.curlnoise(seed, wp.vec3(q[0] + h, q[1], q[2]), octaves, 2.0, 0.5)[0]
        - wp.curlnoise(seed, wp.vec3(q[0] - h, q[1], q[2]), octaves, 2.0, 0.5)[0]
    )
    ey = (
        wp.curlnoise(seed, wp.vec3(q[0], q[1] + h, q[2]), octaves, 2.0, 0.5)[1]
        - wp.curlnoise(seed, wp.vec3(q[0], q[1] - h, q[2]), octaves, 2.0, 0.5)[1]
    )
    ez = (
        wp.curlnoise(seed, wp.vec3(q[0], q[1], q[2] + h), octaves, 2.0, 0.5)[2]
        - wp.curlnoise(seed, wp.vec3(q[0], q[1], q[2] - h), octaves, 2.0, 0.5)[2]
    )
    div3[i] = (ex + ey + ez) / (2.0 * h)
    c4[i] = wp.curlnoise(seed, p, octaves, 2.0, 0.5)


@pytest.mark.slow
def test_curlnoise_is_divergence_free_and_matches_the_potential():
    n = 2000
    x = np.random.default_rng(2).uniform(-8, 8, size=(n, 4)).astype(np.float32)
    c2, c3, c4 = wp.zeros(n, dtype=wp.vec2), wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=wp.vec3)
    div2, div3 = wp.zeros(n, dtype=float), wp.zeros(n, dtype=float)
    wp.launch(
        curl_kernel,
        dim=n,
        inputs=[wp.uint32(4), wp.array(x, dtype=wp.vec4), 2e-3, wp.uint32(3), c2, div2, c3, div3, c4],
    )
    for c, div in ((c2, div2), (c3, div3)):
        mag = np.linalg.norm(c.numpy(), axis=1).mean()
        assert mag > 0.1
        assert np.abs(div.numpy()).mean() < 0.02 * mag
    assert np.linalg.norm(c4.numpy(), axis=1).mean() > 0.1

    # one octave in 2D (as in NVIDIA Warp): (-dN/dy, dN/dx) of the potential noise(seed, xy)
    potential_seed = 4
    h = 1e-3
    pts = x.astype(np.float64)
    fx = [
        run_noise(potential_seed, pts + d)[1]
        for d in ([h, 0, 0, 0], [-h, 0, 0, 0], [0, h, 0, 0], [0, -h, 0, 0])
    ]
    grad = np.stack([(fx[0] - fx[1]) / (2 * h), (fx[2] - fx[3]) / (2 * h)], axis=1)
    np.testing.assert_allclose(c2.numpy(), np.stack([-grad[:, 1], grad[:, 0]], axis=1), atol=0.02)


@wp.kernel
def normal_and_uniform_pairs(n: wp.array(dtype=float), u1: wp.array(dtype=float), u2: wp.array(dtype=float)):
    tid = wp.tid()
    s = wp.rand_init(tid)
    n[tid] = wp.randn(s)
    t = wp.rand_init(tid)
    u1[tid] = wp.randf(t)
    u2[tid] = wp.randf(t)


def test_randn_is_box_muller_of_the_next_two_uniform_draws_as_in_warp():
    """randn(state) = sqrt(-2 log(u1 + FLT_EPSILON)) cos(2 pi u2) with u1, u2 the next two randf draws (NVIDIA
    Warp's sequence: the same seeds give the same normal samples)."""
    count = 4096
    n, u1, u2 = (wp.zeros(count) for _ in range(3))
    wp.launch(normal_and_uniform_pairs, count, inputs=[n, u1, u2])
    a, b = u1.numpy().astype(np.float64), u2.numpy().astype(np.float64)
    expected = np.sqrt(-2.0 * np.log(a + 2.0**-23)) * np.cos(2.0 * np.pi * b)
    np.testing.assert_allclose(n.numpy(), expected, rtol=2e-5, atol=2e-6)
    # the first samples of seeds 0, 1, 2 (values NVIDIA Warp documents for wp.rand_init(tid))
    np.testing.assert_allclose(n.numpy()[:3], [-1.8213255, 0.27881497, -1.1122388], atol=1e-4)
