"""Matrix operators and builtins (products, determinant, inverse, decompositions, constructors),
checked against NumPy through real kernels on the CPU in float16 / float32 / float64."""

import numpy as np
import pytest

import warp as wp
from warp.compiler.registry import builtin_registry
from warp_builtins import composite_ctors

from composite_helpers import FLOATS, close, operands

wp.set_module_options({"enable_backward": False})  # forward behaviour only (gradients are tested elsewhere)

matrix = composite_ctors.matrix
identity = composite_ctors.identity

N = 8


def mat_t(shape, wtype):
    return wp.types.matrix(shape, wtype)


def vec_t(n, wtype):
    return wp.types.vector(n, wtype)


# -- component-wise operators -----------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(2, 2), (3, 3), (4, 4), (3, 2)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("wtype,np_dtype,tol", FLOATS)
def test_matrix_componentwise_operators(shape, wtype, np_dtype, tol):
    M = mat_t(shape, wtype)
    MT = mat_t(shape[::-1], wtype)

    @wp.kernel
    def mat_ops(a: wp.array(dtype=M), b: wp.array(dtype=M), s: wp.array(dtype=wtype),
                out: wp.array2d(dtype=M), outt: wp.array(dtype=MT), flags: wp.array2d(dtype=wp.int32)):
        i = wp.tid()
        x = a[i]
        y = b[i]
        k = s[i]
        out[i, 0] = x + y
        out[i, 1] = x - y
        out[i, 2] = k * x
        out[i, 3] = x * k
        out[i, 4] = x / k
        out[i, 5] = k / x
        out[i, 6] = -x
        out[i, 7] = +x
        out[i, 8] = wp.cw_mul(x, y)
        out[i, 9] = wp.cw_div(x, y)
        out[i, 10] = wp.lerp(x, y, k)
        z = x
        z += y
        z *= 2.0
        out[i, 11] = z
        outt[i] = wp.transpose(x)
        flags[i, 0] = wp.int32(x == y)
        flags[i, 1] = wp.int32(x != y)
        flags[i, 2] = len(x)

    rng = np.random.default_rng(sum(shape))
    A, B = operands(rng, (N, *shape), np_dtype), operands(rng, (N, *shape), np_dtype)
    B[0] = A[0]
    s = operands(rng, N, np_dtype)
    out = wp.zeros((N, 12), dtype=M)
    outt = wp.zeros(N, dtype=MT)
    flags = wp.zeros((N, 3), dtype=wp.int32)
    wp.launch(mat_ops, dim=N, inputs=[wp.array(A, dtype=M), wp.array(B, dtype=M), wp.array(s, dtype=wtype),
                                      out, outt, flags])
    a, b, k = A.astype(np.float64), B.astype(np.float64), s.astype(np.float64)[:, None, None]
    expected = [
        a + b,
        a - b,
        k * a,
        a * k,
        a / k,
        k / a,
        -a,
        a,
        a * b,
        a / b,
        a * (1 - k) + b * k,
        2 * (a + b),
    ]
    got = out.numpy()
    for j, exp in enumerate(expected):
        close(got[:, j], exp, 2 * tol)
    np.testing.assert_array_equal(outt.numpy(), np.swapaxes(A, 1, 2))
    f = flags.numpy()
    assert list(f[:, 0]) == [1] + [0] * (N - 1)
    assert list(f[:, 1]) == [0] + [1] * (N - 1)
    assert np.all(f[:, 2] == shape[0])


# -- products, including shape-changing ones ----------------------------------------------------------------
@pytest.mark.parametrize("wtype,np_dtype,tol", FLOATS)
def test_matrix_products(wtype, np_dtype, tol):
    M33, M32, M23, M22, M44 = (mat_t(s, wtype) for s in ((3, 3), (3, 2), (2, 3), (2, 2), (4, 4)))
    V2, V3, V4 = vec_t(2, wtype), vec_t(3, wtype), vec_t(4, wtype)

    @wp.kernel
    def products(
        m33: wp.array(dtype=M33),
        m32: wp.array(dtype=M32),
        m23: wp.array(dtype=M23),
        m44: wp.array(dtype=M44),
        v2: wp.array(dtype=V2),
        v3: wp.array(dtype=V3),
        v4: wp.array(dtype=V4),
        o_v3: wp.array2d(dtype=V3),
        o_v2: wp.array2d(dtype=V2),
        o_v4: wp.array(dtype=V4),
        o_m33: wp.array2d(dtype=M33),
        o_m22: wp.array2d(dtype=M22),
        o_m32: wp.array(dtype=M32),
    ):
        i = wp.tid()
        o_v3[i, 0] = m33[i] * v3[i]
        o_v3[i, 1] = v3[i] * m33[i]
        o_v3[i, 2] = m32[i] * v2[i]
        o_v3[i, 3] = m33[i] @ v3[i]
        o_v3[i, 4] = v2[i] @ m23[i]
        o_v2[i, 0] = v3[i] * m32[i]
        o_v2[i, 1] = m23[i] * v3[i]
        o_v2[i, 2] = m23[i] @ v3[i]
        o_v4[i] = m44[i] * v4[i]
        o_m33[i, 0] = m33[i] * m33[i]
        o_m33[i, 1] = m32[i] * m23[i]
        o_m33[i, 2] = m33[i] @ m33[i]
        o_m22[i, 0] = m23[i] * m32[i]
        o_m22[i, 1] = m23[i] @ m32[i]
        o_m32[i] = m33[i] @ m32[i]

    rng = np.random.default_rng(5)
    data = {name: operands(rng, (N, *shape), np_dtype) for name, shape in
            (("m33", (3, 3)), ("m32", (3, 2)), ("m23", (2, 3)), ("m44", (4, 4)), ("v2", (2,)), ("v3", (3,)),
             ("v4", (4,)))}
    types = {"m33": M33, "m32": M32, "m23": M23, "m44": M44, "v2": V2, "v3": V3, "v4": V4}
    inputs = [wp.array(data[k], dtype=types[k]) for k in ("m33", "m32", "m23", "m44", "v2", "v3", "v4")]
    outs = [wp.zeros((N, 5), dtype=V3), wp.zeros((N, 3), dtype=V2), wp.zeros(N, dtype=V4),
            wp.zeros((N, 3), dtype=M33), wp.zeros((N, 2), dtype=M22), wp.zeros(N, dtype=M32)]
    wp.launch(products, dim=N, inputs=inputs + outs)
    d = {k: v.astype(np.float64) for k, v in data.items()}
    mv = lambda m, v: np.einsum("nij,nj->ni", m, v)  # noqa: E731
    vm = lambda v, m: np.einsum("ni,nij->nj", v, m)  # noqa: E731
    mm = lambda a, b: np.einsum("nik,nkj->nij", a, b)  # noqa: E731
    t = 8 * tol
    o_v3, o_v2, o_v4, o_m33, o_m22, o_m32 = (o.numpy() for o in outs)
    close(o_v3[:, 0], mv(d["m33"], d["v3"]), t)
    close(o_v3[:, 1], vm(d["v3"], d["m33"]), t)
    close(o_v3[:, 2], mv(d["m32"], d["v2"]), t)
    close(o_v3[:, 3], mv(d["m33"], d["v3"]), t)
    close(o_v3[:, 4], vm(d["v2"], d["m23"]), t)
    close(o_v2[:, 0], vm(d["v3"], d["m32"]), t)
    close(o_v2[:, 1], mv(d["m23"], d["v3"]), t)
    close(o_v2[:, 2], mv(d["m23"], d["v3"]), t)
    close(o_v4, mv(d["m44"], d["v4"]), t)
    close(o_m33[:, 0], mm(d["m33"], d["m33"]), t)
    close(o_m33[:, 1], mm(d["m32"], d["m23"]), t)
    close(o_m33[:, 2], mm(d["m33"], d["m33"]), t)
    close(o_m22[:, 0], mm(d["m23"], d["m32"]), t)
    close(o_m22[:, 1], mm(d["m23"], d["m32"]), t)
    close(o_m32, mm(d["m33"], d["m32"]), t)


def test_documented_half_precision_example():
    mat32h = wp.types.matrix(shape=(3, 2), dtype=wp.float16)

    @wp.kernel
    def half_example(out: wp.array(dtype=wp.vec3h)):
        m = mat32h(wp.float16(1.0), wp.float16(2.0),
                   wp.float16(3.0), wp.float16(4.0),
                   wp.float16(5.0), wp.float16(6.0))
        v2 = wp.vec2h(wp.float16(1.0), wp.float16(1.0))
        out[0] = m * v2

    out = wp.zeros(1, dtype=wp.vec3h)
    wp.launch(half_example, dim=1, inputs=[out])
    np.testing.assert_array_equal(out.numpy()[0], [3.0, 7.0, 11.0])


def _shape_errors():
    @wp.kernel
    def mat33_times_vec2(a: wp.array(dtype=wp.mat33)):
        x = a[0] * wp.vec2(1.0, 2.0)

    @wp.kernel
    def mat32_times_mat32(a: wp.array(dtype=wp.mat33)):
        m = wp.types.matrix((3, 2), wp.float32)()
        x = m * m

    @wp.kernel
    def mat33f_times_mat33d(a: wp.array(dtype=wp.mat33)):
        x = a[0] * wp.mat33d()

    @wp.kernel
    def mat33_plus_mat22(a: wp.array(dtype=wp.mat33)):
        x = a[0] + wp.mat22()

    @wp.kernel
    def inverse_of_non_square(a: wp.array(dtype=wp.mat33)):
        x = wp.inverse(wp.types.matrix((3, 2), wp.float32)())

    @wp.kernel
    def trace_non_square(a: wp.array(dtype=wp.mat33)):
        x = wp.trace(wp.types.matrix((3, 2), wp.float32)())

    return [mat33_times_vec2, mat32_times_mat32, mat33f_times_mat33d, mat33_plus_mat22, inverse_of_non_square,
            trace_non_square]


@pytest.mark.parametrize("kernel", _shape_errors(), ids=lambda k: k.name)
def test_shape_and_type_errors(kernel):
    with pytest.raises(wp.WarpCodegenTypeError):
        wp.launch(kernel, dim=1, inputs=[wp.zeros(1, dtype=wp.mat33)])


# -- determinant / inverse ----------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("wtype,np_dtype,tol", FLOATS)
def test_determinant_and_inverse(n, wtype, np_dtype, tol):
    M = mat_t((n, n), wtype)

    @wp.kernel
    def det_inv(a: wp.array(dtype=M), det: wp.array(dtype=wtype), inv: wp.array(dtype=M)):
        i = wp.tid()
        det[i] = wp.determinant(a[i])
        inv[i] = wp.inverse(a[i])

    rng = np.random.default_rng(n)
    A = (rng.uniform(-1, 1, (N, n, n)) + 2.0 * np.eye(n)).astype(np_dtype)
    A[1] = 1.0  # singular: determinant 0, inverse is the zero matrix
    A[2] = np.diag(np.arange(1, n + 1))
    det = wp.zeros(N, dtype=wtype)
    inv = wp.zeros(N, dtype=M)
    wp.launch(det_inv, dim=N, inputs=[wp.array(A, dtype=M), det, inv])
    a = A.astype(np.float64)
    close(det.numpy(), np.linalg.det(a), 10 * tol)
    assert det.numpy()[1] == 0
    ok = [i for i in range(N) if i != 1]
    close(inv.numpy()[ok], np.linalg.inv(a[ok]), 20 * tol)
    np.testing.assert_array_equal(inv.numpy()[1], np.zeros((n, n)))


# -- trace, diag, ddot, skew, rows/cols ----------------------------------------------------------------------
@pytest.mark.parametrize("wtype,np_dtype,tol", FLOATS)
def test_matrix_helpers(wtype, np_dtype, tol):
    M33, V3, M34 = mat_t((3, 3), wtype), vec_t(3, wtype), mat_t((3, 4), wtype)
    M43, V4 = mat_t((4, 3), wtype), vec_t(4, wtype)

    @wp.kernel
    def helpers(a: wp.array(dtype=M33), b: wp.array(dtype=M33), v: wp.array(dtype=V3), u: wp.array(dtype=V3),
                sc: wp.array2d(dtype=wtype), mats: wp.array2d(dtype=M33), vecs: wp.array2d(dtype=V3),
                rows4: wp.array(dtype=M43), cols4: wp.array(dtype=M34), w: wp.array(dtype=V4)):
        i = wp.tid()
        sc[i, 0] = wp.trace(a[i])
        sc[i, 1] = wp.ddot(a[i], b[i])
        mats[i, 0] = wp.diag(v[i])
        mats[i, 1] = wp.skew(v[i])
        mats[i, 2] = wp.matrix_from_rows(v[i], u[i], v[i] + u[i])
        mats[i, 3] = wp.matrix_from_cols(v[i], u[i], v[i] + u[i])
        vecs[i, 0] = wp.get_diag(a[i])
        vecs[i, 1] = wp.skew(v[i]) * u[i]
        vecs[i, 2] = wp.cross(v[i], u[i])
        rows4[i] = wp.matrix_from_rows(v[i], u[i], v[i], u[i])
        cols4[i] = wp.matrix_from_cols(v[i], u[i], v[i], u[i])
        w[i] = wp.get_diag(wp.diag(w[i]) * 2.0)

    rng = np.random.default_rng(6)
    A, B = operands(rng, (N, 3, 3), np_dtype), operands(rng, (N, 3, 3), np_dtype)
    Vv, U = operands(rng, (N, 3), np_dtype), operands(rng, (N, 3), np_dtype)
    W = operands(rng, (N, 4), np_dtype)
    sc = wp.zeros((N, 2), dtype=wtype)
    mats = wp.zeros((N, 4), dtype=M33)
    vecs = wp.zeros((N, 3), dtype=V3)
    rows4, cols4 = wp.zeros(N, dtype=M43), wp.zeros(N, dtype=M34)
    w = wp.array(W, dtype=V4)
    wp.launch(helpers, dim=N, inputs=[wp.array(A, dtype=M33), wp.array(B, dtype=M33), wp.array(Vv, dtype=V3),
                                      wp.array(U, dtype=V3), sc, mats, vecs, rows4, cols4, w])
    a, b, v, u = (x.astype(np.float64) for x in (A, B, Vv, U))
    s = sc.numpy()
    close(s[:, 0], np.trace(a, axis1=1, axis2=2), 4 * tol)
    close(s[:, 1], np.sum(a * b, axis=(1, 2)), 8 * tol)
    m = mats.numpy()
    close(m[:, 0], np.einsum("ni,ij->nij", v, np.eye(3)), tol)
    skew = np.zeros((N, 3, 3))
    skew[:, 0, 1], skew[:, 0, 2], skew[:, 1, 2] = -v[:, 2], v[:, 1], -v[:, 0]
    skew -= np.swapaxes(skew, 1, 2)
    close(m[:, 1], skew, tol)
    close(m[:, 2], np.stack([v, u, v + u], axis=1), 2 * tol)
    close(m[:, 3], np.stack([v, u, v + u], axis=2), 2 * tol)
    g = vecs.numpy()
    close(g[:, 0], np.diagonal(a, axis1=1, axis2=2), tol)
    close(g[:, 1], np.cross(v, u), 4 * tol)
    close(g[:, 2], np.cross(v, u), 4 * tol)
    close(rows4.numpy(), np.stack([v, u, v, u], axis=1), tol)
    close(cols4.numpy(), np.stack([v, u, v, u], axis=2), tol)
    close(w.numpy(), 2 * W.astype(np.float64), tol)


# -- decompositions ------------------------------------------------------------------------------------------
def _test_matrices(rng, n, np_dtype):
    mats = list(rng.uniform(-1, 1, (10, n, n)))
    mats.append(np.eye(n))
    mats.append(np.diag(np.arange(n, 0, -1.0)))
    mats.append(-np.diag(np.arange(1.0, n + 1)))  # negative determinant (n odd) / ordering
    rank1 = np.outer(rng.uniform(-1, 1, n), rng.uniform(-1, 1, n))
    mats.append(rank1)
    mats.append(np.zeros((n, n)))
    return np.array(mats).astype(np_dtype)


def _check_rotation(r, tol):
    n = r.shape[-1]
    close(np.einsum("kij,kil->kjl", r, r), np.broadcast_to(np.eye(n), r.shape), tol)
    close(np.linalg.det(r), np.ones(len(r)), tol)


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("wtype,np_dtype,tol", FLOATS)
def test_svd(n, wtype, np_dtype, tol):
    M, V = mat_t((n, n), wtype), vec_t(n, wtype)

    if n == 3:
        @wp.kernel
        def svd_k(a: wp.array(dtype=M), u: wp.array(dtype=M), s: wp.array(dtype=V), v: wp.array(dtype=M)):
            i = wp.tid()
            U, sigma, Vt = wp.svd3(a[i])
            u[i] = U
            s[i] = sigma
            v[i] = Vt
    else:
        @wp.kernel
        def svd_k(a: wp.array(dtype=M), u: wp.array(dtype=M), s: wp.array(dtype=V), v: wp.array(dtype=M)):
            i = wp.tid()
            U, sigma, Vt = wp.svd2(a[i])
            u[i] = U
            s[i] = sigma
            v[i] = Vt

    A = _test_matrices(np.random.default_rng(n), n, np_dtype)
    k = len(A)
    u, s, v = wp.zeros(k, dtype=M), wp.zeros(k, dtype=V), wp.zeros(k, dtype=M)
    wp.launch(svd_k, dim=k, inputs=[wp.array(A, dtype=M), u, s, v])
    U, S, Vm = (x.numpy().astype(np.float64) for x in (u, s, v))
    a = A.astype(np.float64)
    t = 50 * tol if wtype is not wp.float64 else 1e-9
    close(np.einsum("kij,kj,klj->kil", U, S, Vm), a, t)
    _check_rotation(U, t)
    _check_rotation(Vm, t)
    close(np.abs(S), np.linalg.svd(a, compute_uv=False), t)
    assert np.all(S[:, :-1] >= 0)
    assert np.all(np.abs(S[:, :-1]) >= np.abs(S[:, 1:]) - t)
    dets = np.linalg.det(a)
    assert np.all(S[dets < -t, -1] < 0)


@pytest.mark.parametrize("wtype,np_dtype,tol", FLOATS)
def test_eig3(wtype, np_dtype, tol):
    M, V = mat_t((3, 3), wtype), vec_t(3, wtype)

    @wp.kernel
    def eig_k(a: wp.array(dtype=M), q: wp.array(dtype=M), d: wp.array(dtype=V)):
        i = wp.tid()
        Q, vals = wp.eig3(a[i])
        q[i] = Q
        d[i] = vals

    mats = _test_matrices(np.random.default_rng(7), 3, np.float64)
    A = (mats + np.swapaxes(mats, 1, 2)).astype(np_dtype)
    A[-2] = np.diag([2.0, 2.0, 1.0])  # repeated eigenvalue
    k = len(A)
    q, d = wp.zeros(k, dtype=M), wp.zeros(k, dtype=V)
    wp.launch(eig_k, dim=k, inputs=[wp.array(A, dtype=M), q, d])
    Q, D = q.numpy().astype(np.float64), d.numpy().astype(np.float64)
    a = A.astype(np.float64)
    t = 50 * tol if wtype is not wp.float64 else 1e-10
    _check_rotation(Q, t)
    close(np.einsum("kij,kj,klj->kil", Q, D, Q), a, t)
    close(np.sort(D, axis=1), np.linalg.eigvalsh(a), t)


@pytest.mark.parametrize("wtype,np_dtype,tol", FLOATS)
def test_qr3(wtype, np_dtype, tol):
    M = mat_t((3, 3), wtype)

    @wp.kernel
    def qr_k(a: wp.array(dtype=M), q: wp.array(dtype=M), r: wp.array(dtype=M)):
        i = wp.tid()
        Q, R = wp.qr3(a[i])
        q[i] = Q
        r[i] = R

    A = _test_matrices(np.random.default_rng(8), 3, np_dtype)
    k = len(A)
    q, r = wp.zeros(k, dtype=M), wp.zeros(k, dtype=M)
    wp.launch(qr_k, dim=k, inputs=[wp.array(A, dtype=M), q, r])
    Q, R = q.numpy().astype(np.float64), r.numpy().astype(np.float64)
    t = 50 * tol if wtype is not wp.float64 else 1e-10
    _check_rotation(Q, t)
    assert np.all(np.tril(R, -1) == 0)
    close(np.einsum("kij,kjl->kil", Q, R), A.astype(np.float64), t)
    close(np.abs(np.diagonal(R, axis1=1, axis2=2)),
          np.abs(np.diagonal(np.linalg.qr(A.astype(np.float64))[1], axis1=1, axis2=2)), t)


# -- constructors --------------------------------------------------------------------------------------------
def test_identity_and_anonymous_matrices():
    M55d = mat_t((5, 5), wp.float64)
    M32h = mat_t((3, 2), wp.float16)

    @wp.kernel
    def ctors(ident: wp.array(dtype=M55d), i3: wp.array(dtype=wp.mat33), m32: wp.array2d(dtype=M32h),
              z: wp.array(dtype=wp.mat22d), p: wp.array(dtype=wp.vec3), q: wp.array(dtype=wp.quat),
              trs: wp.array(dtype=wp.mat44)):
        ident[0] = identity(n=5, dtype=wp.float64)
        i3[0] = identity(3, wp.float32) * 2.0
        i3[1] = identity(n=3, dtype=float)
        m32[0, 0] = matrix(
            wp.float16(1.0), wp.float16(2.0),
            wp.float16(3.0), wp.float16(4.0),
            wp.float16(5.0), wp.float16(6.0),
            shape=(3, 2))
        m32[0, 1] = matrix(wp.float16(0.5), shape=(3, 2))
        m32[0, 2] = matrix(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, shape=(3, 2), dtype=wp.float16)
        z[0] = matrix(shape=(2, 2), dtype=wp.float64)
        z[1] = matrix(wp.float64(1.0), wp.float64(2.0), wp.float64(3.0), wp.float64(4.0))
        trs[0] = matrix(p[0], q[0], wp.vec3(1.0, 2.0, 3.0))

    ident, i3 = wp.zeros(1, dtype=M55d), wp.zeros(2, dtype=wp.mat33)
    m32, z = wp.zeros((1, 3), dtype=M32h), wp.zeros(2, dtype=wp.mat22d)
    axis, angle = np.array([1.0, 2.0, 2.0]) / 3.0, 0.7
    quat = np.concatenate([axis * np.sin(angle / 2), [np.cos(angle / 2)]])
    p = wp.array([[4.0, 5.0, 6.0]], dtype=wp.vec3)
    q = wp.array([quat], dtype=wp.quat)
    trs = wp.zeros(1, dtype=wp.mat44)
    wp.launch(ctors, dim=1, inputs=[ident, i3, m32, z, p, q, trs])
    np.testing.assert_array_equal(ident.numpy()[0], np.eye(5))
    np.testing.assert_array_equal(i3.numpy()[0], 2 * np.eye(3))
    np.testing.assert_array_equal(i3.numpy()[1], np.eye(3))
    got = m32.numpy()[0]
    np.testing.assert_array_equal(got[0], np.arange(1, 7).reshape(3, 2))
    np.testing.assert_array_equal(got[1], np.full((3, 2), 0.5))
    np.testing.assert_array_equal(got[2], np.arange(1, 7).reshape(3, 2))
    np.testing.assert_array_equal(z.numpy()[0], np.zeros((2, 2)))
    np.testing.assert_array_equal(z.numpy()[1], [[1, 2], [3, 4]])
    # rotation matrix of the quaternion (Rodrigues), columns scaled, translation in the last column
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    rot = np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k
    expected = np.eye(4)
    expected[:3, :3] = rot * np.array([1.0, 2.0, 3.0])
    expected[:3, 3] = [4.0, 5.0, 6.0]
    close(trs.numpy()[0], expected, 1e-6)


def test_matrix_and_identity_python_scope():
    assert matrix(shape=(3, 3), dtype=wp.float32) is wp.mat33
    assert matrix(shape=(3, 2), dtype=wp.float16) is wp.types.matrix((3, 2), wp.float16)
    i = identity(n=3, dtype=wp.float64)
    assert type(i) is wp.mat33d
    np.testing.assert_array_equal(np.array(i), np.eye(3))


def test_constructor_argument_errors():
    @wp.kernel
    def no_shape(a: wp.array(dtype=float)):
        m = matrix(1.0, 2.0, 3.0)

    @wp.kernel
    def runtime_n(a: wp.array(dtype=int)):
        m = identity(n=a[0], dtype=float)

    @wp.kernel
    def bad_dtype(a: wp.array(dtype=float)):
        m = identity(n=3, dtype=a)

    for k in (no_shape, runtime_n, bad_dtype):
        with pytest.raises(wp.WarpCodegenError):
            wp.launch(k, dim=1, inputs=[wp.zeros(1, dtype=k.arg_types[0].dtype)])


def test_registered_matrix_builtins_have_docs_and_groups():
    for name in ["ddot", "determinant", "diag", "eig3", "get_diag", "inverse", "matrix_from_cols",
                 "matrix_from_rows", "qr3", "skew", "svd2", "svd3", "trace", "transpose"]:
        builtin = builtin_registry.get(name)
        assert builtin is not None, name
        assert builtin.group == "Vector Math", name
        assert all(o.doc for o in builtin.overloads), name


def test_approximate_variants():
    @wp.kernel
    def approx(m: wp.array(dtype=wp.mat33), v: wp.array(dtype=wp.vec3), s: wp.array(dtype=float),
               om: wp.array2d(dtype=wp.mat33), ov: wp.array2d(dtype=wp.vec3), osc: wp.array(dtype=float)):
        i = wp.tid()
        om[i, 0] = wp.inverse_approx(m[i])
        om[i, 1] = wp.div_approx(m[i], s[i])
        om[i, 2] = wp.div_approx(s[i], m[i])
        ov[i, 0] = wp.div_approx(v[i], s[i])
        ov[i, 1] = wp.div_approx(s[i], v[i])
        osc[i] = wp.div_approx(s[i], 4.0)

    rng = np.random.default_rng(9)
    M = (rng.uniform(-1, 1, (N, 3, 3)) + 2 * np.eye(3)).astype(np.float32)
    V, s = operands(rng, (N, 3), np.float32), operands(rng, N, np.float32)
    om, ov, osc = wp.zeros((N, 3), dtype=wp.mat33), wp.zeros((N, 2), dtype=wp.vec3), wp.zeros(N, dtype=float)
    wp.launch(
        approx,
        dim=N,
        inputs=[wp.array(M, dtype=wp.mat33), wp.array(V, dtype=wp.vec3), wp.array(s), om, ov, osc],
    )
    m, v, k = M.astype(np.float64), V.astype(np.float64), s.astype(np.float64)
    close(om.numpy()[:, 0], np.linalg.inv(m), 1e-4)
    close(om.numpy()[:, 1], m / k[:, None, None], 1e-5)
    close(om.numpy()[:, 2], k[:, None, None] / m, 1e-4)
    close(ov.numpy()[:, 0], v / k[:, None], 1e-5)
    close(ov.numpy()[:, 1], k[:, None] / v, 1e-5)
    close(osc.numpy(), k / 4.0, 1e-6)
