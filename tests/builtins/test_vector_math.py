"""Vector builtins and operators on vectors, quaternions and transforms, checked against NumPy
through real kernels on the CPU (float16 / float32 / float64, integer vectors, strict typing)."""

import numpy as np
import pytest

import warp as wp
from warp.compiler.registry import builtin_registry
from warp_builtins import composite_ctors

from composite_helpers import FLOATS, close, operands

wp.set_module_options({"enable_backward": False})  # forward behaviour only (gradients are tested elsewhere)

vector = composite_ctors.vector

N = 8


# -- float vectors: arithmetic and component-wise functions ----------------------------------------
def make_vector_kernels(V, S):
    @wp.kernel
    def vec_ops(a: wp.array(dtype=V), b: wp.array(dtype=V), s: wp.array(dtype=S),
                out: wp.array2d(dtype=V), flags: wp.array2d(dtype=wp.int32)):
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
        out[i, 10] = 2.0 * x
        out[i, 11] = x * 0.5 - y / 4.0
        out[i, 12] = wp.lerp(x, y, k)
        out[i, 13] = wp.abs(x)
        out[i, 14] = wp.sign(x)
        out[i, 15] = wp.min(x, y)
        out[i, 16] = wp.max(x, y)
        out[i, 17] = wp.normalize(x)
        out[i, 18] = wp.smooth_normalize(x)
        out[i, 19] = wp.smooth_normalize(x, k * k)
        z = x
        z += y
        z -= 0.5 * x
        out[i, 20] = z
        flags[i, 0] = wp.int32(x == y)
        flags[i, 1] = wp.int32(x != y)
        flags[i, 2] = wp.int32(wp.argmax(x))
        flags[i, 3] = wp.int32(wp.argmin(x))
        flags[i, 4] = len(x)

    @wp.kernel
    def vec_reductions(
        a: wp.array(dtype=V), b: wp.array(dtype=V), s: wp.array(dtype=S), out: wp.array2d(dtype=S)
    ):
        i = wp.tid()
        x = a[i]
        y = b[i]
        k = wp.abs(s[i])
        out[i, 0] = wp.dot(x, y)
        out[i, 1] = wp.length_sq(x)
        out[i, 2] = wp.length(x)
        out[i, 3] = wp.norm_l1(x)
        out[i, 4] = wp.norm_l2(x)
        out[i, 5] = wp.norm_huber(x)
        out[i, 6] = wp.norm_huber(x, k)
        out[i, 7] = wp.norm_pseudo_huber(x)
        out[i, 8] = wp.norm_pseudo_huber(x, k)
        out[i, 9] = wp.min(x)
        out[i, 10] = wp.max(x)

    return vec_ops, vec_reductions


def huber(x, d):
    a = np.sum(x * x, axis=-1)
    return np.where(a <= d * d, 0.5 * a, d * (np.sqrt(a) - 0.5 * d))


def pseudo_huber(x, d):
    return d * np.sqrt(1.0 + np.sum(x * x, axis=-1) / (d * d))


@pytest.mark.parametrize("length", [3, 5])
@pytest.mark.parametrize("wtype,np_dtype,tol", FLOATS)
def test_float_vector_operators_and_functions(length, wtype, np_dtype, tol):
    rng = np.random.default_rng(length)
    V = wp.types.vector(length, wtype)
    A = operands(rng, (N, length), np_dtype)
    B = operands(rng, (N, length), np_dtype)
    B[0] = A[0]
    A[1] = 0.0  # normalize(0) == 0, argmax/argmin ties pick the first component
    s = operands(rng, N, np_dtype)
    vec_ops, vec_reductions = make_vector_kernels(V, wtype)
    out = wp.zeros((N, 21), dtype=V)
    flags = wp.zeros((N, 5), dtype=wp.int32)
    red = wp.zeros((N, 11), dtype=wtype)
    args = [wp.array(A, dtype=V), wp.array(B, dtype=V), wp.array(s, dtype=wtype)]
    wp.launch(vec_ops, dim=N, inputs=[*args, out, flags])
    wp.launch(vec_reductions, dim=N, inputs=[*args, red])

    a, b, k = A.astype(np.float64), B.astype(np.float64), s.astype(np.float64)[:, None]
    length_a = np.linalg.norm(a, axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        normalized = np.where(length_a > 0, a / length_a, 0.0)
    with np.errstate(divide="ignore"):
        k_over_a = k / a
    expected = [
        a + b,
        a - b,
        k * a,
        a * k,
        a / k,
        k_over_a,
        -a,
        a,
        a * b,
        a / b,
        2.0 * a,
        a * 0.5 - b / 4.0,
        a * (1.0 - k) + b * k,
        np.abs(a),
        np.where(a < 0, -1.0, 1.0),
        np.minimum(a, b),
        np.maximum(a, b),
        normalized,
        a / pseudo_huber(a, 1.0)[:, None],
        a / pseudo_huber(a, k[:, 0] ** 2)[:, None],
        a + b - 0.5 * a,
    ]
    got = out.numpy()
    for j, exp in enumerate(expected):
        if j == 5:  # k / x with x == 0 in row 1
            close(got[2:, j], exp[2:], 2 * tol)
            continue
        close(got[:, j], exp, 2 * tol)

    f = flags.numpy()
    assert list(f[:, 0]) == [1] + [0] * (N - 1)
    assert list(f[:, 1]) == [0] + [1] * (N - 1)
    assert list(f[:, 2]) == list(np.argmax(A, axis=1))
    assert list(f[:, 3]) == list(np.argmin(A, axis=1))
    assert f[1, 2] == 0 and f[1, 3] == 0
    assert np.all(f[:, 4] == length)

    r = red.numpy().astype(np.float64)
    kk = np.abs(k[:, 0])
    close(r[:, 0], np.sum(a * b, axis=1), 4 * tol)
    close(r[:, 1], np.sum(a * a, axis=1), 4 * tol)
    close(r[:, 2], length_a[:, 0], 2 * tol)
    close(r[:, 3], np.sum(np.abs(a), axis=1), 4 * tol)
    close(r[:, 4], length_a[:, 0], 2 * tol)
    close(r[:, 5], huber(a, 1.0), 4 * tol)
    close(r[:, 6], huber(a, kk), 4 * tol)
    close(r[:, 7], pseudo_huber(a, 1.0), 4 * tol)
    close(r[:, 8], pseudo_huber(a, kk), 4 * tol)
    close(r[:, 9], a.min(axis=1), tol)
    close(r[:, 10], a.max(axis=1), tol)


def test_norm_huber_both_branches():
    @wp.kernel
    def huber_k(a: wp.array(dtype=wp.vec2), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = wp.norm_huber(a[i], 2.0)

    pts = np.array([[0.5, 0.5], [3.0, 4.0]], dtype=np.float32)
    out = wp.zeros(2, dtype=float)
    wp.launch(huber_k, dim=2, inputs=[wp.array(pts, dtype=wp.vec2), out])
    close(out.numpy(), [0.25, 2.0 * (5.0 - 1.0)], 1e-6)


@pytest.mark.parametrize("wtype,np_dtype,tol", FLOATS)
def test_cross_and_outer(wtype, np_dtype, tol):
    V3 = wp.types.vector(3, wtype)
    V2 = wp.types.vector(2, wtype)
    M32 = wp.types.matrix((3, 2), wtype)

    @wp.kernel
    def cross_outer(a: wp.array(dtype=V3), b: wp.array(dtype=V3), c: wp.array(dtype=V2),
                    cr: wp.array(dtype=V3), outer_ab: wp.array(dtype=wp.types.matrix((3, 3), wtype)),
                    outer_ac: wp.array(dtype=M32)):
        i = wp.tid()
        cr[i] = wp.cross(a[i], b[i])
        outer_ab[i] = wp.outer(a[i], b[i])
        outer_ac[i] = wp.outer(a[i], c[i])

    rng = np.random.default_rng(1)
    A, B, C = (operands(rng, (N, n), np_dtype) for n in (3, 3, 2))
    cr = wp.zeros(N, dtype=V3)
    oab = wp.zeros(N, dtype=wp.types.matrix((3, 3), wtype))
    oac = wp.zeros(N, dtype=M32)
    wp.launch(cross_outer, dim=N, inputs=[wp.array(A, dtype=V3), wp.array(B, dtype=V3), wp.array(C, dtype=V2),
                                          cr, oab, oac])
    a, b, c = (x.astype(np.float64) for x in (A, B, C))
    close(cr.numpy(), np.cross(a, b), 4 * tol)
    close(oab.numpy(), np.einsum("ni,nj->nij", a, b), 2 * tol)
    close(oac.numpy(), np.einsum("ni,nj->nij", a, c), 2 * tol)


# -- integer vectors ---------------------------------------------------------------------------------
@pytest.mark.parametrize("wtype,np_dtype", [(wp.int32, np.int32), (wp.int64, np.int64), (wp.int16, np.int16)])
def test_integer_vectors(wtype, np_dtype):
    V = wp.types.vector(3, wtype)

    @wp.kernel
    def int_vec(
        a: wp.array(dtype=V), b: wp.array(dtype=V), out: wp.array2d(dtype=V), sc: wp.array2d(dtype=wtype)
    ):
        i = wp.tid()
        x = a[i]
        y = b[i]
        out[i, 0] = x + y
        out[i, 1] = x - y
        out[i, 2] = x * wtype(3)
        out[i, 3] = 2 * x
        out[i, 4] = x / wtype(2)
        out[i, 5] = wp.cw_div(x, y)
        out[i, 6] = wp.cw_mul(x, y)
        out[i, 7] = -x
        out[i, 8] = wp.cross(x, y)
        out[i, 9] = wp.abs(x)
        out[i, 10] = wp.sign(x)
        out[i, 11] = wp.min(x, y)
        out[i, 12] = wp.max(x, y)
        out[i, 13] = x % y
        sc[i, 0] = wp.dot(x, y)
        sc[i, 1] = wp.length_sq(x)
        sc[i, 2] = wtype(wp.argmax(x))
        sc[i, 3] = wp.max(x)
        sc[i, 4] = wtype(x == y)

    rng = np.random.default_rng(2)
    A = rng.integers(-20, 20, size=(N, 3)).astype(np_dtype)
    B = rng.integers(-20, 20, size=(N, 3)).astype(np_dtype)
    B[0] = A[0]
    B[1, 0] = 0  # division by zero gives 0
    out = wp.zeros((N, 14), dtype=V)
    sc = wp.zeros((N, 5), dtype=wtype)
    wp.launch(int_vec, dim=N, inputs=[wp.array(A, dtype=V), wp.array(B, dtype=V), out, sc])
    a, b = A.astype(np.int64), B.astype(np.int64)
    safe_b = np.where(b == 0, 1, b)
    quotient = np.where(b == 0, 0, np.trunc(a / safe_b)).astype(np.int64)
    remainder = np.where(b == 0, 0, np.fmod(a, safe_b))
    expected = [
        a + b,
        a - b,
        a * 3,
        2 * a,
        np.trunc(a / 2).astype(np.int64),
        quotient,
        a * b,
        -a,
        np.cross(a, b),
        np.abs(a),
        np.where(a < 0, -1, 1),
        np.minimum(a, b),
        np.maximum(a, b),
        remainder,
    ]
    got = out.numpy()
    for j, exp in enumerate(expected):
        np.testing.assert_array_equal(got[:, j], exp, err_msg=f"column {j}")
    s = sc.numpy()
    np.testing.assert_array_equal(s[:, 0], np.sum(a * b, axis=1))
    np.testing.assert_array_equal(s[:, 1], np.sum(a * a, axis=1))
    np.testing.assert_array_equal(s[:, 2], np.argmax(a, axis=1))
    np.testing.assert_array_equal(s[:, 3], a.max(axis=1))
    assert list(s[:, 4]) == [1] + [0] * (N - 1)


# -- quaternions and transforms ----------------------------------------------------------------------
def hamilton(p, q):
    x1, y1, z1, w1 = np.moveaxis(p, -1, 0)
    x2, y2, z2, w2 = np.moveaxis(q, -1, 0)
    return np.stack([
        w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
        w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
        w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
        w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
    ], axis=-1)


def rotate(q, v):
    u, w = q[..., :3], q[..., 3:]
    return (
        v * (2.0 * w * w - 1.0) + np.cross(u, v) * w * 2.0 + u * np.sum(u * v, axis=-1, keepdims=True) * 2.0
    )


@pytest.mark.parametrize("wtype,np_dtype,tol", FLOATS)
def test_quaternion_operators(wtype, np_dtype, tol):
    Q = wp.types.quaternion(wtype)

    @wp.kernel
    def quat_ops(a: wp.array(dtype=Q), b: wp.array(dtype=Q), s: wp.array(dtype=wtype),
                 out: wp.array2d(dtype=Q), sc: wp.array2d(dtype=wtype)):
        i = wp.tid()
        p = a[i]
        q = b[i]
        out[i, 0] = p + q
        out[i, 1] = p - q
        out[i, 2] = p * q
        out[i, 3] = p * s[i]
        out[i, 4] = s[i] * p
        out[i, 5] = p / s[i]
        out[i, 6] = -p
        out[i, 7] = wp.normalize(p)
        out[i, 8] = wp.lerp(p, q, s[i])
        sc[i, 0] = wp.dot(p, q)
        sc[i, 1] = wp.length(p)
        sc[i, 2] = wp.length_sq(p)
        sc[i, 3] = wtype(p == q)
        sc[i, 4] = wtype(len(p))

    rng = np.random.default_rng(3)
    A, B = operands(rng, (N, 4), np_dtype), operands(rng, (N, 4), np_dtype)
    B[0] = A[0]
    s = operands(rng, N, np_dtype)
    out = wp.zeros((N, 9), dtype=Q)
    sc = wp.zeros((N, 5), dtype=wtype)
    wp.launch(
        quat_ops,
        dim=N,
        inputs=[wp.array(A, dtype=Q), wp.array(B, dtype=Q), wp.array(s, dtype=wtype), out, sc],
    )
    a, b, k = A.astype(np.float64), B.astype(np.float64), s.astype(np.float64)[:, None]
    expected = [
        a + b,
        a - b,
        hamilton(a, b),
        a * k,
        k * a,
        a / k,
        -a,
        a / np.linalg.norm(a, axis=1, keepdims=True),
        a * (1 - k) + b * k,
    ]
    for j, exp in enumerate(expected):
        close(out.numpy()[:, j], exp, 4 * tol)
    r = sc.numpy().astype(np.float64)
    close(r[:, 0], np.sum(a * b, axis=1), 4 * tol)
    close(r[:, 1], np.linalg.norm(a, axis=1), 2 * tol)
    close(r[:, 2], np.sum(a * a, axis=1), 4 * tol)
    assert list(r[:, 3]) == [1] + [0] * (N - 1)
    assert np.all(r[:, 4] == 4)


@pytest.mark.parametrize("wtype,np_dtype,tol", FLOATS[1:])
def test_transform_operators(wtype, np_dtype, tol):
    T = wp.types.transformation(wtype)

    @wp.kernel
    def xform_ops(
        a: wp.array(dtype=T), b: wp.array(dtype=T), out: wp.array2d(dtype=T), n: wp.array(dtype=int)
    ):
        i = wp.tid()
        out[i, 0] = a[i] * b[i]
        out[i, 1] = a[i] + b[i]
        out[i, 2] = a[i] - b[i]
        out[i, 3] = 2.0 * a[i]
        out[i, 4] = -a[i]
        n[i] = len(a[i])

    rng = np.random.default_rng(4)
    A, B = rng.standard_normal((N, 7)), rng.standard_normal((N, 7))
    A[:, 3:] /= np.linalg.norm(A[:, 3:], axis=1, keepdims=True)
    B[:, 3:] /= np.linalg.norm(B[:, 3:], axis=1, keepdims=True)
    A, B = A.astype(np_dtype), B.astype(np_dtype)
    out = wp.zeros((N, 5), dtype=T)
    n = wp.zeros(N, dtype=int)
    wp.launch(xform_ops, dim=N, inputs=[wp.array(A, dtype=T), wp.array(B, dtype=T), out, n])
    a, b = A.astype(np.float64), B.astype(np.float64)
    composed = np.concatenate([rotate(a[:, 3:], b[:, :3]) + a[:, :3], hamilton(a[:, 3:], b[:, 3:])], axis=1)
    got = out.numpy()
    close(got[:, 0], composed, 8 * tol)
    close(got[:, 1], a + b, 2 * tol)
    close(got[:, 2], a - b, 2 * tol)
    close(got[:, 3], 2 * a, 2 * tol)
    close(got[:, 4], -a, 2 * tol)
    assert np.all(n.numpy() == 7)


# -- select / where / classification ------------------------------------------------------------------
def test_select_where_and_classification():
    @wp.kernel
    def sel(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.mat22),
            flags: wp.array(dtype=wp.int32), out: wp.array2d(dtype=wp.vec3), outm: wp.array(dtype=wp.mat22),
            cls: wp.array2d(dtype=wp.int32)):
        i = wp.tid()
        c = flags[i]
        out[i, 0] = wp.select(c, a[i], b[i])
        out[i, 1] = wp.where(c, a[i], b[i])
        out[i, 2] = wp.where(c != 0, a[i], b[i])
        outm[i] = wp.where(c > 0, m[i], wp.mat22(0.0, 0.0, 0.0, 0.0))
        cls[i, 0] = wp.int32(wp.isnan(a[i]))
        cls[i, 1] = wp.int32(wp.isinf(a[i]))
        cls[i, 2] = wp.int32(wp.isfinite(a[i]))
        cls[i, 3] = wp.int32(wp.isnan(m[i]))
        cls[i, 4] = wp.int32(wp.isfinite(m[i]))
        q = wp.quat(a[i][0], 0.0, 0.0, 1.0)
        cls[i, 5] = wp.int32(wp.isfinite(q))

    A = np.array([[1, 2, 3], [np.nan, 0, 0], [0, -np.inf, 0], [4, 5, 6]], dtype=np.float32)
    B = -np.arange(12, dtype=np.float32).reshape(4, 3)
    M = np.arange(16, dtype=np.float32).reshape(4, 2, 2)
    M[2, 1, 1] = np.nan
    flags = np.array([1, 0, 7, 0], dtype=np.int32)
    out = wp.zeros((4, 3), dtype=wp.vec3)
    outm = wp.zeros(4, dtype=wp.mat22)
    cls = wp.zeros((4, 6), dtype=wp.int32)
    wp.launch(
        sel,
        dim=4,
        inputs=[
            wp.array(A, dtype=wp.vec3),
            wp.array(B, dtype=wp.vec3),
            wp.array(M, dtype=wp.mat22),
            wp.array(flags),
            out,
            outm,
            cls,
        ],
    )
    got = out.numpy()
    on = (flags != 0)[:, None]
    np.testing.assert_array_equal(got[:, 0], np.where(on, B, A))  # select(cond, if_false, if_true)
    np.testing.assert_array_equal(got[:, 1], np.where(on, A, B))
    np.testing.assert_array_equal(got[:, 2], np.where(on, A, B))
    np.testing.assert_array_equal(outm.numpy(), np.where(on[:, :, None], M, 0.0))
    c = cls.numpy()
    assert list(c[:, 0]) == [0, 1, 0, 0]
    assert list(c[:, 1]) == [0, 0, 1, 0]
    assert list(c[:, 2]) == [1, 0, 0, 1]
    assert list(c[:, 3]) == [0, 0, 1, 0]
    assert list(c[:, 4]) == [1, 1, 0, 1]
    assert list(c[:, 5]) == [1, 0, 1, 1]


# -- anonymous vectors ----------------------------------------------------------------------------------
def test_anonymous_vector_constructors():
    vec5d = wp.types.vector(5, wp.float64)

    @wp.kernel
    def anon(out: wp.array2d(dtype=vec5d), lens: wp.array(dtype=int), small: wp.array(dtype=wp.vec3h),
             ints: wp.array(dtype=wp.vec2i)):
        v = vector(dtype=wp.float64, length=5)
        out[0, 0] = v
        out[0, 1] = vector(wp.float64(1.5), length=5)
        out[0, 2] = vector(
            wp.float64(1.0), wp.float64(2.0), wp.float64(3.0), wp.float64(4.0), wp.float64(5.0)
        )
        w = vector(1.0, 2.0, 3.0, 4.0, 5.0, dtype=wp.float64)
        out[0, 3] = w + out[0, 2]
        lens[0] = len(v)
        small[0] = vector(wp.float16(0.5), wp.float16(1.0), wp.float16(2.0))
        ints[0] = vector(3, 4)

    out = wp.zeros((1, 4), dtype=vec5d)
    lens = wp.zeros(1, dtype=int)
    small = wp.zeros(1, dtype=wp.vec3h)
    ints = wp.zeros(1, dtype=wp.vec2i)
    wp.launch(anon, dim=1, inputs=[out, lens, small, ints])
    got = out.numpy()[0]
    np.testing.assert_array_equal(got[0], np.zeros(5))
    np.testing.assert_array_equal(got[1], np.full(5, 1.5))
    np.testing.assert_array_equal(got[2], np.arange(1, 6))
    np.testing.assert_array_equal(got[3], 2 * np.arange(1, 6))
    assert lens.numpy()[0] == 5
    np.testing.assert_array_equal(small.numpy()[0], [0.5, 1.0, 2.0])
    np.testing.assert_array_equal(ints.numpy()[0], [3, 4])


def test_vector_python_scope_type_factory():
    assert vector(length=3, dtype=wp.float32) is wp.vec3
    assert vector(length=5, dtype=wp.float64) is wp.types.vector(5, wp.float64)
    v = vector(1.0, 2.0, 3.0)
    assert type(v) is wp.vec3 and v == wp.vec3(1.0, 2.0, 3.0)


def test_wp_vector_export_is_this_constructor():
    if not hasattr(wp, "vector"):
        pytest.skip("wp.vector is not exported yet (warp-builtins plugin exports)")
    assert wp.vector is vector


# -- strict typing -------------------------------------------------------------------------------------------
def _bad_kernels():
    @wp.kernel
    def add_f_d(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3d)):
        a[0] = a[0] + b[0]

    @wp.kernel
    def dot_f_d(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3d)):
        x = wp.dot(a[0], b[0])

    @wp.kernel
    def scale_by_f64(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3d)):
        a[0] = a[0] * wp.float64(2.0)

    @wp.kernel
    def add_len_mismatch(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3d)):
        x = a[0] + wp.vec2(1.0, 2.0)

    @wp.kernel
    def cross_2d(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3d)):
        x = wp.cross(wp.vec2(1.0, 2.0), wp.vec2(1.0, 2.0))

    @wp.kernel
    def length_of_int(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3d)):
        x = wp.length(wp.vec3i(1, 2, 3))

    @wp.kernel
    def vec_times_vec(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3d)):
        x = a[0] * a[0]

    @wp.kernel
    def int_times_float_vec(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3d)):
        x = 2 * a[0]

    return [add_f_d, dot_f_d, scale_by_f64, add_len_mismatch, cross_2d, length_of_int, vec_times_vec,
            int_times_float_vec]


@pytest.mark.parametrize("kernel", _bad_kernels(), ids=lambda k: k.name)
def test_strict_typing_errors(kernel):
    with pytest.raises(wp.WarpCodegenTypeError):
        wp.launch(kernel, dim=1, inputs=[wp.zeros(1, dtype=wp.vec3), wp.zeros(1, dtype=wp.vec3d)])


def test_vec3f_plus_vec3d_error_names_the_types():
    bad = _bad_kernels()[0]
    with pytest.raises(wp.WarpCodegenTypeError, match="vec3f.*vec3d"):
        wp.launch(bad, dim=1, inputs=[wp.zeros(1, dtype=wp.vec3), wp.zeros(1, dtype=wp.vec3d)])


def test_registered_builtins_have_docs_and_groups():
    names = [
        "argmax",
        "argmin",
        "cross",
        "cw_div",
        "cw_mul",
        "dot",
        "length",
        "length_sq",
        "normalize",
        "outer",
        "norm_huber",
        "norm_l1",
        "norm_l2",
        "norm_pseudo_huber",
        "smooth_normalize",
    ]
    for name in names:
        builtin = builtin_registry.get(name)
        assert builtin is not None, name
        assert builtin.group == "Vector Math", name
        assert all(o.doc for o in builtin.overloads), name
