"""Transform builtins in kernels, float32 and float64, checked against NumPy/SciPy formulas."""

import functools

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import warp as wp

from composite_helpers import np_float

DTYPES = [wp.float32, wp.float64]
TOL = {wp.float32: 1e-4, wp.float64: 1e-10}
N = 48


def random_transforms(n, seed):
    rng = np.random.default_rng(seed)
    q = Rotation.random(n, random_state=seed).as_quat()
    return np.concatenate([rng.normal(size=(n, 3)) * 3.0, q], axis=1)


def to_matrix(t):
    m = np.zeros((len(t), 4, 4))
    m[:, :3, :3] = Rotation.from_quat(t[:, 3:]).as_matrix()
    m[:, :3, 3] = t[:, :3]
    m[:, 3, 3] = 1.0
    return m


def apply(m, x, w):
    return np.einsum("nij,nj->ni", m, np.concatenate([x, np.full((len(x), 1), w)], axis=1))[:, :3]


def same_transform(a, b, tol):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    q_ok = np.minimum(np.abs(a[:, 3:] - b[:, 3:]).max(1), np.abs(a[:, 3:] + b[:, 3:]).max(1)).max() <= tol
    return q_ok and np.abs(a[:, :3] - b[:, :3]).max() <= tol


def _make_kernels(dtype):
    xf = wp.types.transformation(dtype)
    v3 = wp.types.vector(3, dtype)
    q_t = wp.types.quaternion(dtype)
    m44 = wp.types.matrix((4, 4), dtype)

    @wp.kernel
    def algebra(
        a: wp.array(dtype=xf),
        b: wp.array(dtype=xf),
        x: wp.array(dtype=v3),
        ab: wp.array(dtype=xf),
        inv: wp.array(dtype=xf),
        point: wp.array(dtype=v3),
        vec: wp.array(dtype=v3),
        mat: wp.array(dtype=m44),
        mpoint: wp.array(dtype=v3),
        mvec: wp.array(dtype=v3),
        back: wp.array(dtype=xf),
    ):
        i = wp.tid()
        t = a[i]
        ab[i] = wp.transform_multiply(t, b[i])
        inv[i] = wp.transform_inverse(t)
        point[i] = wp.transform_point(t, x[i])
        vec[i] = wp.transform_vector(t, x[i])
        m = wp.transform_to_matrix(t)
        mat[i] = m
        mpoint[i] = wp.transform_point(m, x[i])
        mvec[i] = wp.transform_vector(m, x[i])
        back[i] = wp.transform_from_matrix(m)

    @wp.kernel
    def parts(a: wp.array(dtype=xf), p: wp.array(dtype=v3), q: wp.array(dtype=q_t), pq: wp.array(dtype=xf),
              set_p: wp.array(dtype=xf), set_q: wp.array(dtype=xf)):
        i = wp.tid()
        t = a[i]
        p[i] = wp.transform_get_translation(t)
        q[i] = t.q
        pq[i] = wp.transformation(t.p, t.q)
        u = wp.transform_identity(dtype=dtype)
        wp.transform_set_translation(u, t.p)
        set_p[i] = u
        wp.transform_set_rotation(u, t.q)
        set_q[i] = wp.transform_set_translation_copy(
            u, wp.transform_get_translation(wp.transform_identity(dtype=dtype))
        )

    @wp.kernel
    def compose(p: wp.array(dtype=v3), q: wp.array(dtype=q_t), s: wp.array(dtype=v3), m: wp.array(dtype=m44),
                p2: wp.array(dtype=v3), q2: wp.array(dtype=q_t), s2: wp.array(dtype=v3)):
        i = wp.tid()
        mm = wp.transform_compose(p[i], q[i], s[i])
        m[i] = mm
        pp, qq, ss = wp.transform_decompose(mm)
        p2[i] = pp
        q2[i] = qq
        s2[i] = ss

    return dict(algebra=algebra, parts=parts, compose=compose)


#: the kernels of one float type, made on first use
kernels = functools.cache(_make_kernels)


@pytest.mark.parametrize("dtype", DTYPES)
def test_transform_algebra(dtype):
    xf, v3, m44 = wp.types.transformation(dtype), wp.types.vector(3, dtype), wp.types.matrix((4, 4), dtype)
    a, b = random_transforms(N, 1), random_transforms(N, 2)
    x = np.random.default_rng(3).normal(size=(N, 3))
    npd = np_float(dtype)
    outs = dict(ab=xf, inv=xf, point=v3, vec=v3, mat=m44, mpoint=v3, mvec=v3, back=xf)
    res = {k: wp.zeros(N, dtype=t) for k, t in outs.items()}
    wp.launch(
        kernels(dtype)["algebra"],
        dim=N,
        inputs=[
            wp.array(a.astype(npd), dtype=xf),
            wp.array(b.astype(npd), dtype=xf),
            wp.array(x.astype(npd), dtype=v3),
            *res.values(),
        ],
    )
    ma, mb = to_matrix(a), to_matrix(b)
    tol = TOL[dtype]
    np.testing.assert_allclose(res["mat"].numpy(), ma, atol=tol)
    np.testing.assert_allclose(to_matrix(res["ab"].numpy().astype(np.float64)), ma @ mb, atol=tol * 10)
    np.testing.assert_allclose(
        to_matrix(res["inv"].numpy().astype(np.float64)), np.linalg.inv(ma), atol=tol * 10
    )
    np.testing.assert_allclose(res["point"].numpy(), apply(ma, x, 1.0), atol=tol * 10)
    np.testing.assert_allclose(res["vec"].numpy(), apply(ma, x, 0.0), atol=tol * 10)
    np.testing.assert_allclose(res["mpoint"].numpy(), apply(ma, x, 1.0), atol=tol * 10)
    np.testing.assert_allclose(res["mvec"].numpy(), apply(ma, x, 0.0), atol=tol * 10)
    assert same_transform(res["back"].numpy(), a, tol * 10)


@pytest.mark.parametrize("dtype", DTYPES)
def test_parts_and_in_place_setters(dtype):
    xf, v3, q_t = wp.types.transformation(dtype), wp.types.vector(3, dtype), wp.types.quaternion(dtype)
    a = random_transforms(N, 4).astype(np_float(dtype))
    p, q, pq, set_p, set_q = (wp.zeros(N, dtype=t) for t in (v3, q_t, xf, xf, xf))
    wp.launch(kernels(dtype)["parts"], dim=N, inputs=[wp.array(a, dtype=xf), p, q, pq, set_p, set_q])
    np.testing.assert_array_equal(p.numpy(), a[:, :3])
    np.testing.assert_array_equal(q.numpy(), a[:, 3:])
    np.testing.assert_array_equal(pq.numpy(), a)
    expected_p = np.concatenate([a[:, :3], np.tile([0, 0, 0, 1], (N, 1))], axis=1)
    np.testing.assert_array_equal(set_p.numpy(), expected_p)
    expected_q = np.concatenate([np.zeros((N, 3)), a[:, 3:]], axis=1)
    np.testing.assert_array_equal(set_q.numpy(), expected_q)


@pytest.mark.parametrize("dtype", DTYPES)
def test_compose_decompose(dtype):
    v3, q_t, m44 = wp.types.vector(3, dtype), wp.types.quaternion(dtype), wp.types.matrix((4, 4), dtype)
    rng = np.random.default_rng(5)
    p = rng.normal(size=(N, 3))
    q = Rotation.random(N, random_state=6).as_quat()
    s = rng.uniform(0.2, 3.0, size=(N, 3))
    npd = np_float(dtype)
    m, p2, q2, s2 = (
        wp.zeros(N, dtype=m44),
        wp.zeros(N, dtype=v3),
        wp.zeros(N, dtype=q_t),
        wp.zeros(N, dtype=v3),
    )
    wp.launch(
        kernels(dtype)["compose"],
        dim=N,
        inputs=[
            wp.array(p.astype(npd), dtype=v3),
            wp.array(q.astype(npd), dtype=q_t),
            wp.array(s.astype(npd), dtype=v3),
            m,
            p2,
            q2,
            s2,
        ],
    )
    expected = to_matrix(np.concatenate([p, q], axis=1))
    expected[:, :3, :3] = expected[:, :3, :3] * s[:, None, :]
    tol = TOL[dtype] * 10
    np.testing.assert_allclose(m.numpy(), expected, atol=tol)
    np.testing.assert_allclose(p2.numpy(), p, atol=tol)
    np.testing.assert_allclose(s2.numpy(), s, atol=tol)
    assert same_transform(np.concatenate([p2.numpy(), q2.numpy()], 1), np.concatenate([p, q], 1), tol)


def test_identity_constructors_and_python_scope():
    @wp.kernel
    def build(outd: wp.array(dtype=wp.transformd), outf: wp.array(dtype=wp.transformf)):
        outd[0] = wp.transform_identity(dtype=wp.float64)
        outd[1] = wp.transformation(wp.vec3d(1.0, 2.0, 3.0), wp.quat_identity(dtype=wp.float64))
        outd[2] = wp.transformation(1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 1.0, dtype=wp.float64)
        outf[0] = wp.transform_identity()
        outf[1] = wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat_identity())

    outd, outf = wp.zeros(3, dtype=wp.transformd), wp.zeros(2, dtype=wp.transformf)
    wp.launch(build, dim=1, inputs=[outd, outf])
    np.testing.assert_array_equal(
        outd.numpy(), [[0, 0, 0, 0, 0, 0, 1], [1, 2, 3, 0, 0, 0, 1], [1, 2, 3, 0, 0, 0, 1]]
    )
    np.testing.assert_array_equal(outf.numpy(), [[0, 0, 0, 0, 0, 0, 1], [1, 2, 3, 0, 0, 0, 1]])
    t = wp.transform_identity(dtype=wp.float64)
    assert type(t) is wp.transformd and t.tolist() == [0, 0, 0, 0, 0, 0, 1]
    t = wp.transformation(wp.vec3(1.0, 2.0, 3.0), wp.quat_identity())
    assert type(t) is wp.transformf and t.tolist() == [1, 2, 3, 0, 0, 0, 1]


def test_set_translation_in_a_loop():
    @wp.kernel
    def walk(out: wp.array(dtype=wp.transform)):
        t = wp.transform_identity()
        step = wp.transformation(wp.vec3(1.0, 0.0, 0.0), wp.quat_identity())
        for i in range(3):
            wp.transform_set_translation(t, wp.transform_point(step, wp.transform_get_translation(t)))
        out[0] = t

    out = wp.zeros(1, dtype=wp.transform)
    wp.launch(walk, dim=1, inputs=[out])
    np.testing.assert_array_equal(out.numpy()[0], [3, 0, 0, 0, 0, 0, 1])


def test_transform_p_and_q_attributes_read_and_write():
    @wp.kernel
    def edit(ts: wp.array(dtype=wp.transform), out: wp.array(dtype=wp.transform)):
        i = wp.tid()
        t = ts[i]
        t.p = t.p + wp.vec3(1.0, 2.0, 3.0)
        t.q = wp.quat(0.0, 0.0, 0.0, 1.0)
        out[i] = t

    src = np.arange(14, dtype=np.float32).reshape(2, 7)
    out = wp.zeros(2, dtype=wp.transform)
    wp.launch(edit, dim=2, inputs=[wp.array(src, dtype=wp.transform), out])
    expected = src.copy()
    expected[:, :3] += [1.0, 2.0, 3.0]
    expected[:, 3:] = [0.0, 0.0, 0.0, 1.0]
    np.testing.assert_allclose(out.numpy(), expected)


def test_compose_float16_scales_the_rounded_rotation_matrix():
    # transform_compose in half precision equals quat_to_matrix's (float16) result scaled by s,
    # product by product: R is rounded to float16 before scaling, as multiplying its result does
    @wp.kernel
    def compose_half(p: wp.array(dtype=wp.vec3h), r: wp.array(dtype=wp.quath), s: wp.array(dtype=wp.vec3h),
                     out: wp.array(dtype=wp.mat44h), rot: wp.array(dtype=wp.mat33h)):
        i = wp.tid()
        out[i] = wp.transform_compose(p[i], r[i], s[i])
        rot[i] = wp.quat_to_matrix(r[i])

    n = 64
    rng = np.random.default_rng(123)
    p = rng.standard_normal((n, 3)).astype(np.float16)
    r = rng.standard_normal((n, 4))
    r = (r / np.linalg.norm(r, axis=1, keepdims=True)).astype(np.float16)
    s = rng.standard_normal((n, 3)).astype(np.float16)
    out, rot = wp.zeros(n, dtype=wp.mat44h), wp.zeros(n, dtype=wp.mat33h)
    wp.launch(compose_half, dim=n, inputs=[wp.array(p, dtype=wp.vec3h), wp.array(r, dtype=wp.quath),
                                           wp.array(s, dtype=wp.vec3h), out, rot])
    R = rot.numpy()
    # the rotation matrix itself is right to float16 precision
    reference = Rotation.from_quat(r.astype(np.float64)).as_matrix()
    np.testing.assert_allclose(R.astype(np.float64), reference, atol=4e-3)
    expected = np.tile(np.eye(4, dtype=np.float16), (n, 1, 1))
    expected[:, :3, :3] = R * s[:, None, :]  # float16 products, each rounded once
    expected[:, :3, 3] = p
    np.testing.assert_array_equal(out.numpy(), expected)
