"""Quaternion builtins in kernels, float32 and float64, checked against SciPy's Rotation."""

import functools

import numpy as np
import pytest
from scipy.spatial.transform import Rotation, Slerp

import warp as wp

from composite_helpers import np_float

DTYPES = [wp.float32, wp.float64]
TOL = {wp.float32: 2e-5, wp.float64: 1e-11}
N = 64


def _types(dtype):
    return wp.types.quaternion(dtype), wp.types.vector(3, dtype), wp.types.matrix((3, 3), dtype)


def random_quats(n, seed=0):
    q = Rotation.random(n, random_state=seed).as_quat()
    q[q[:, 3] < 0] *= -1
    return q


def same_rotation(a, b, tol):
    """Quaternions equal up to sign."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    d = np.minimum(np.abs(a - b).max(axis=-1), np.abs(a + b).max(axis=-1))
    return d.max() <= tol


# ---------------------------------------------------------------------------------- kernels


def _make_kernels(dtype):
    quat_t, vec3_t, mat33_t = _types(dtype)
    mat44_t = wp.types.matrix((4, 4), dtype)

    @wp.kernel
    def rotate(q: wp.array(dtype=quat_t), v: wp.array(dtype=vec3_t), out: wp.array(dtype=vec3_t),
               out_inv: wp.array(dtype=vec3_t), qinv: wp.array(dtype=quat_t)):
        i = wp.tid()
        out[i] = wp.quat_rotate(q[i], v[i])
        out_inv[i] = wp.quat_rotate_inv(q[i], v[i])
        qinv[i] = wp.quat_inverse(q[i])

    @wp.kernel
    def matrices(q: wp.array(dtype=quat_t), m: wp.array(dtype=mat33_t), back: wp.array(dtype=quat_t),
                 m4: wp.array(dtype=mat44_t), back4: wp.array(dtype=quat_t)):
        i = wp.tid()
        r = wp.quat_to_matrix(q[i])
        m[i] = r
        back[i] = wp.quat_from_matrix(r)
        back4[i] = wp.quat_from_matrix(m4[i])

    @wp.kernel
    def axis_angle(axis: wp.array(dtype=vec3_t), angle: wp.array(dtype=dtype), q: wp.array(dtype=quat_t),
                   axis_out: wp.array(dtype=vec3_t), angle_out: wp.array(dtype=dtype)):
        i = wp.tid()
        qa = wp.quat_from_axis_angle(axis[i], angle[i])
        q[i] = qa
        a, theta = wp.quat_to_axis_angle(qa)
        axis_out[i] = a
        angle_out[i] = theta

    @wp.kernel
    def slerp(
        a: wp.array(dtype=quat_t),
        b: wp.array(dtype=quat_t),
        t: wp.array(dtype=dtype),
        out: wp.array(dtype=quat_t),
    ):
        i = wp.tid()
        out[i] = wp.quat_slerp(a[i], b[i], t[i])

    @wp.kernel
    def rpy(angles: wp.array(dtype=vec3_t), q: wp.array(dtype=quat_t), back: wp.array(dtype=vec3_t)):
        i = wp.tid()
        e = angles[i]
        qr = wp.quat_rpy(e[0], e[1], e[2])
        q[i] = qr
        back[i] = wp.quat_to_rpy(qr)

    @wp.kernel
    def euler(angles: wp.array(dtype=vec3_t), axes: wp.array(dtype=wp.vec3i), q: wp.array(dtype=quat_t),
              back: wp.array(dtype=vec3_t)):
        i = wp.tid()
        ax = axes[i]
        qe = wp.quat_from_euler(angles[i], ax[0], ax[1], ax[2])
        q[i] = qe
        back[i] = wp.quat_to_euler(qe, ax[0], ax[1], ax[2])

    @wp.kernel
    def twist(axis: wp.array(dtype=vec3_t), q: wp.array(dtype=quat_t), out: wp.array(dtype=quat_t),
              angle: wp.array(dtype=dtype), signed: wp.array(dtype=dtype)):
        i = wp.tid()
        out[i] = wp.quat_twist(axis[i], q[i])
        angle[i] = wp.quat_twist_angle(axis[i], q[i])
        signed[i] = wp.quat_twist_angle_signed(axis[i], q[i])

    return dict(
        rotate=rotate,
        matrices=matrices,
        axis_angle=axis_angle,
        slerp=slerp,
        rpy=rpy,
        euler=euler,
        twist=twist,
    )


#: the kernels of one float type, made on first use
kernels = functools.cache(_make_kernels)


def arr(data, dtype):
    return wp.array(np.ascontiguousarray(data), dtype=dtype)


# ---------------------------------------------------------------------------------- tests


@pytest.mark.parametrize("dtype", DTYPES)
def test_rotate_and_inverse(dtype):
    quat_t, vec3_t, _ = _types(dtype)
    q = random_quats(N, 1)
    v = np.random.default_rng(1).normal(size=(N, 3))
    out, out_inv, qinv = (wp.zeros(N, dtype=t) for t in (vec3_t, vec3_t, quat_t))
    wp.launch(
        kernels(dtype)["rotate"],
        dim=N,
        inputs=[arr(q.astype(np_float(dtype)), quat_t), arr(v.astype(np_float(dtype)), vec3_t), out, out_inv,
                qinv],
    )
    rot = Rotation.from_quat(q)
    tol = TOL[dtype] * 10
    np.testing.assert_allclose(out.numpy(), rot.apply(v), atol=tol)
    np.testing.assert_allclose(out_inv.numpy(), rot.inv().apply(v), atol=tol)
    np.testing.assert_allclose(qinv.numpy(), q * [-1, -1, -1, 1], atol=tol)


@pytest.mark.parametrize("dtype", DTYPES)
def test_matrix_conversions(dtype):
    quat_t, vec3_t, mat33_t = _types(dtype)
    mat44_t = wp.types.matrix((4, 4), dtype)
    # random rotations plus rotations by ~180 degrees about each axis (trace < 0 branches)
    q = np.concatenate([random_quats(N, 2), Rotation.from_rotvec(np.diag([3.1, 3.1, 3.1])).as_quat(),
                        Rotation.from_rotvec([[0.3, 3.0, 0.2], [0.1, 0.2, -3.1]]).as_quat()])
    n = len(q)
    m4 = np.zeros((n, 4, 4))
    m4[:, :3, :3] = Rotation.from_quat(q).as_matrix()
    m4[:, :3, 3] = 5.0
    m4[:, 3, 3] = 1.0
    m, back, back4 = wp.zeros(n, dtype=mat33_t), wp.zeros(n, dtype=quat_t), wp.zeros(n, dtype=quat_t)
    npd = np_float(dtype)
    wp.launch(
        kernels(dtype)["matrices"],
        dim=n,
        inputs=[arr(q.astype(npd), quat_t), m, back, arr(m4.astype(npd), mat44_t), back4],
    )
    tol = TOL[dtype] * 10
    np.testing.assert_allclose(m.numpy(), Rotation.from_quat(q).as_matrix(), atol=tol)
    assert same_rotation(back.numpy(), q, tol)
    assert same_rotation(back4.numpy(), q, tol)
    np.testing.assert_allclose(np.linalg.norm(back.numpy(), axis=1), 1.0, atol=tol)


@pytest.mark.parametrize("dtype", DTYPES)
def test_axis_angle(dtype):
    quat_t, vec3_t, _ = _types(dtype)
    rng = np.random.default_rng(3)
    axis = rng.normal(size=(N, 3))
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    angle = rng.uniform(-3.0, 3.0, N)
    angle[0] = 0.0
    npd = np_float(dtype)
    q, axis_out, angle_out = wp.zeros(N, dtype=quat_t), wp.zeros(N, dtype=vec3_t), wp.zeros(N, dtype=dtype)
    wp.launch(kernels(dtype)["axis_angle"], dim=N,
              inputs=[arr(axis.astype(npd), vec3_t), arr(angle.astype(npd), dtype), q, axis_out, angle_out])
    tol = TOL[dtype] * 10
    rotvec = axis * angle[:, None]
    assert same_rotation(q.numpy(), Rotation.from_rotvec(rotvec).as_quat(), tol)
    # angle in [0, pi], axis flipped to match
    np.testing.assert_allclose(angle_out.numpy(), np.abs(angle), atol=tol * 10)
    got = axis_out.numpy() * angle_out.numpy()[:, None]
    np.testing.assert_allclose(got, rotvec, atol=tol * 10)
    np.testing.assert_array_equal(axis_out.numpy()[0], 0.0)  # identity: zero axis, zero angle


@pytest.mark.parametrize("dtype", DTYPES)
def test_slerp(dtype):
    quat_t, _, _ = _types(dtype)
    a, b = random_quats(N, 4), random_quats(N, 5)
    t = np.random.default_rng(4).uniform(0, 1, N)
    out = wp.zeros(N, dtype=quat_t)
    npd = np_float(dtype)
    wp.launch(
        kernels(dtype)["slerp"],
        dim=N,
        inputs=[arr(a.astype(npd), quat_t), arr(b.astype(npd), quat_t), arr(t.astype(npd), dtype), out],
    )
    expected = np.array([Slerp([0, 1], Rotation.from_quat([a[i], b[i]]))(t[i]).as_quat() for i in range(N)])
    assert same_rotation(out.numpy(), expected, TOL[dtype] * 50)


@pytest.mark.parametrize("dtype", DTYPES)
def test_rpy(dtype):
    quat_t, vec3_t, _ = _types(dtype)
    rng = np.random.default_rng(6)
    e = np.stack([rng.uniform(-3, 3, N), rng.uniform(-1.5, 1.5, N), rng.uniform(-3, 3, N)], axis=1)
    q, back = wp.zeros(N, dtype=quat_t), wp.zeros(N, dtype=vec3_t)
    wp.launch(kernels(dtype)["rpy"], dim=N, inputs=[arr(e.astype(np_float(dtype)), vec3_t), q, back])
    expected = Rotation.from_euler("ZYX", e[:, ::-1]).as_quat()  # yaw, then pitch, then roll
    tol = TOL[dtype] * 10
    assert same_rotation(q.numpy(), expected, tol)
    np.testing.assert_allclose(back.numpy(), e, atol=tol * 10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axes", [(0, 1, 2), (2, 1, 0), (1, 2, 0), (0, 1, 0), (2, 0, 2), (1, 0, 1)])
def test_euler(dtype, axes):
    quat_t, vec3_t, _ = _types(dtype)
    rng = np.random.default_rng(7)
    proper = axes[0] == axes[2]
    e = np.stack([rng.uniform(-3, 3, N),
                  rng.uniform(0.05, 3.1, N) if proper else rng.uniform(-1.5, 1.5, N),
                  rng.uniform(-3, 3, N)], axis=1)
    q, back = wp.zeros(N, dtype=quat_t), wp.zeros(N, dtype=vec3_t)
    ax = wp.array(np.tile(np.array(axes, np.int32), (N, 1)), dtype=wp.vec3i)
    # e holds each axis's angle in that axis's component (a proper sequence's third angle in the
    # component neither axis names): e above lists the angles in rotation order, so scatter them
    i, j, k = axes
    slots = [i, j, 3 - i - j if proper else k]
    e_by_axis = np.empty_like(e)
    e_by_axis[:, slots] = e
    wp.launch(kernels(dtype)["euler"], dim=N,
              inputs=[arr(e_by_axis.astype(np_float(dtype)), vec3_t), ax, q, back])
    seq = "".join("xyz"[a] for a in axes)  # extrinsic: about the fixed axes i, then j, then k
    tol = TOL[dtype] * 10
    assert same_rotation(q.numpy(), Rotation.from_euler(seq, e).as_quat(), tol)
    np.testing.assert_allclose(
        back.numpy()[:, slots], Rotation.from_quat(q.numpy().astype(np.float64)).as_euler(seq), atol=tol * 100
    )


def test_euler_matches_warps_values():
    # NVIDIA Warp's quat_from_euler((0.4, -0.2, 0.3), 2, 1, 0) and a single-axis decomposition
    quat_t, vec3_t, _ = _types(wp.float32)
    e = np.array([[0.4, -0.2, 0.3], [0.2, 0.0, 0.0]], dtype=np.float32)
    q, back = wp.zeros(2, dtype=quat_t), wp.zeros(2, dtype=vec3_t)
    ax = wp.array(np.array([[2, 1, 0], [2, 1, 0]], np.int32), dtype=wp.vec3i)
    wp.launch(kernels(wp.float32)["euler"], dim=2, inputs=[arr(e, vec3_t), ax, q, back])
    assert same_rotation(q.numpy()[:1], np.array([[0.18083558, -0.12628517, 0.12611651, 0.96718415]]), 1e-6)
    # a rotation about x alone decomposes into (angle, 0, 0): the x angle sits in component 0
    np.testing.assert_allclose(back.numpy(), e, atol=1e-6)


def test_euler_gimbal_lock_round_trip():
    quat_t, vec3_t, _ = _types(wp.float64)
    e = np.array([[0.3, np.pi / 2, -0.4], [0.7, -np.pi / 2, 0.2], [0.5, 0.0, 0.1]])
    n = len(e)
    q, back = wp.zeros(n, dtype=quat_t), wp.zeros(n, dtype=vec3_t)
    ax = wp.array(np.tile(np.array([0, 1, 2], np.int32), (n, 1)), dtype=wp.vec3i)
    wp.launch(kernels(wp.float64)["euler"], dim=n, inputs=[arr(e, vec3_t), ax, q, back])
    again = Rotation.from_euler("xyz", back.numpy()).as_quat()
    assert same_rotation(again, q.numpy(), 1e-6)


@pytest.mark.parametrize("dtype", DTYPES)
def test_twist(dtype):
    quat_t, vec3_t, _ = _types(dtype)
    rng = np.random.default_rng(8)
    axis = rng.normal(size=(N, 3)) * 2.0  # not normalized on purpose
    q = random_quats(N, 9)
    out, angle, signed = wp.zeros(N, dtype=quat_t), wp.zeros(N, dtype=dtype), wp.zeros(N, dtype=dtype)
    npd = np_float(dtype)
    wp.launch(
        kernels(dtype)["twist"],
        dim=N,
        inputs=[arr(axis.astype(npd), vec3_t), arr(q.astype(npd), quat_t), out, angle, signed],
    )
    n = axis / np.linalg.norm(axis, axis=1, keepdims=True)
    proj = n * np.sum(q[:, :3] * n, axis=1, keepdims=True)
    tw = np.concatenate([proj, q[:, 3:]], axis=1)
    tw /= np.linalg.norm(tw, axis=1, keepdims=True)
    tol = TOL[dtype] * 10
    np.testing.assert_allclose(out.numpy(), tw, atol=tol)
    # the swing (q * twist^-1) rotates about an axis perpendicular to the twist axis
    swing = Rotation.from_quat(q) * Rotation.from_quat(tw).inv()
    assert np.abs(np.sum(swing.as_rotvec() * n, axis=1)).max() < tol * 100
    # as in NVIDIA Warp: 2 atan2(twist . axis, twist_w), so q and -q give angles 2 pi apart
    expected = 2 * np.arctan2(np.sum(tw[:, :3] * n, axis=1), tw[:, 3])
    np.testing.assert_allclose(signed.numpy(), expected, atol=tol * 10)
    np.testing.assert_allclose(angle.numpy(), np.abs(expected), atol=tol * 10)


def test_identity_and_anonymous_constructors():
    @wp.kernel
    def build(outf: wp.array(dtype=wp.quatf), outd: wp.array(dtype=wp.quatd), outh: wp.array(dtype=wp.quath),
              v: wp.array(dtype=wp.vec3d)):
        outf[0] = wp.quat_identity()
        outd[0] = wp.quat_identity(dtype=wp.float64)
        outd[1] = wp.quaternion(v[0], wp.float64(4.0))
        outd[2] = wp.quaternion(1.0, 2.0, 3.0, 4.0, dtype=wp.float64)
        outd[3] = wp.quat_identity(wp.float64)
        outh[0] = wp.quaternion(wp.float16(0.0), wp.float16(0.0), wp.float16(0.0), wp.float16(1.0))
        outh[1] = wp.quaternion(wp.vec3h(wp.float16(1.0), wp.float16(2.0), wp.float16(3.0)), wp.float16(0.5))
        outf[1] = wp.quaternion(outd[2], dtype=wp.float32)
        outf[2] = wp.quaternion(dtype=wp.float32)
        outf[3] = wp.quaternion(1.0, 2.0, 3.0, 4.0)

    outf, outd, outh = wp.zeros(4, dtype=wp.quatf), wp.zeros(4, dtype=wp.quatd), wp.zeros(2, dtype=wp.quath)
    wp.launch(build, dim=1, inputs=[outf, outd, outh, wp.array([[1.0, 2.0, 3.0]], dtype=wp.vec3d)])
    np.testing.assert_array_equal(outf.numpy(), [[0, 0, 0, 1], [1, 2, 3, 4], [0, 0, 0, 0], [1, 2, 3, 4]])
    np.testing.assert_array_equal(outd.numpy(), [[0, 0, 0, 1], [1, 2, 3, 4], [1, 2, 3, 4], [0, 0, 0, 1]])
    np.testing.assert_array_equal(outh.numpy(), [[0, 0, 0, 1], [1, 2, 3, 0.5]])


def test_python_scope_special_forms():
    q = wp.quat_identity(dtype=wp.float64)
    assert type(q) is wp.quatd and q.tolist() == [0, 0, 0, 1]
    assert type(wp.quat_identity()) is wp.quatf
    assert wp.quaternion(1.0, 2.0, 3.0, 4.0).tolist() == [1, 2, 3, 4]
    h = wp.quaternion(wp.vec3h(1.0, 2.0, 3.0), 4.0)
    assert type(h) is wp.quath and h.tolist() == [1, 2, 3, 4]


def test_float16_rotation():
    @wp.kernel
    def rot(q: wp.array(dtype=wp.quath), v: wp.array(dtype=wp.vec3h), out: wp.array(dtype=wp.vec3h)):
        i = wp.tid()
        out[i] = wp.quat_rotate(q[i], v[i])

    q = random_quats(8, 11)
    v = np.random.default_rng(11).normal(size=(8, 3))
    out = wp.zeros(8, dtype=wp.vec3h)
    wp.launch(
        rot, dim=8, inputs=[arr(q.astype(np.float16), wp.quath), arr(v.astype(np.float16), wp.vec3h), out]
    )
    np.testing.assert_allclose(out.numpy(), Rotation.from_quat(q).apply(v), atol=2e-2)


def test_mixed_precision_is_a_type_error():
    @wp.kernel
    def bad(q: wp.array(dtype=wp.quatf), v: wp.array(dtype=wp.vec3d), out: wp.array(dtype=wp.vec3d)):
        out[0] = wp.quat_rotate(q[0], v[0])

    with pytest.raises(wp.WarpCodegenTypeError, match="quat_rotate"):
        wp.launch(
            bad,
            dim=1,
            inputs=[wp.zeros(1, dtype=wp.quatf), wp.zeros(1, dtype=wp.vec3d), wp.zeros(1, dtype=wp.vec3d)],
        )


@wp.kernel(module="unique")
def _twist_beyond_pi(out: wp.array(dtype=float)):
    axis = wp.vec3(0.0, 0.0, 1.0)
    q = wp.quat_from_axis_angle(axis, 4.0)
    out[0] = wp.quat_twist_angle_signed(axis, q)
    out[1] = wp.quat_twist_angle_signed(axis, -q)
    out[2] = wp.quat_twist_angle(axis, q)


def test_twist_angle_keeps_the_quaternion_cover():
    """q and -q are the same rotation; their twist angles are 2 pi apart (4 and 4 - 2 pi)."""
    out = wp.zeros(3, dtype=float)
    wp.launch(_twist_beyond_pi, 1, outputs=[out])
    np.testing.assert_allclose(out.numpy(), [4.0, 4.0 - 2.0 * np.pi, 4.0], rtol=1e-6)


@wp.kernel(module="unique")
def _scalar_quat_div(x: wp.array(dtype=wp.quat), y: wp.array(dtype=wp.quat)):
    i = wp.tid()
    y[i] = 1.0 / x[i]


def test_scalar_divided_by_quaternion_component_wise():
    q = np.array([1.0, 2.0, 4.0, 8.0])
    x = wp.array([q], dtype=wp.quat, requires_grad=True)
    y = wp.zeros(1, dtype=wp.quat, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(_scalar_quat_div, 1, inputs=[x], outputs=[y])
    tape.backward(grads={y: wp.ones_like(y)})
    np.testing.assert_allclose(y.numpy()[0], 1.0 / q)
    np.testing.assert_allclose(x.grad.numpy()[0], -1.0 / q**2)
