"""Out-argument forms of the decompositions (wp.svd3(A, U, sigma, V), wp.eig3(A, Q, d), ...)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import warp as wp
from warp.errors import WarpCodegenError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "autodiff"))
from adutil import check_gradients  # noqa: E402

F = wp.float64


@wp.kernel
def svd3_out(a: wp.array(dtype=wp.mat33d), us: wp.array(dtype=wp.mat33d), ss: wp.array(dtype=wp.vec3d),
             vs: wp.array(dtype=wp.mat33d)):
    i = wp.tid()
    U = wp.mat33d()
    sigma = wp.vec3d()
    V = wp.mat33d()
    wp.svd3(a[i], U, sigma, V)
    us[i] = U
    ss[i] = sigma
    vs[i] = V


@wp.kernel
def eig3_out(a: wp.array(dtype=wp.mat33d), qs: wp.array(dtype=wp.mat33d), ds: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    Q = wp.mat33d()
    d = wp.vec3d()
    wp.eig3(a[i], Q, d)
    qs[i] = Q
    ds[i] = d


@wp.kernel
def qr3_svd2_out(a: wp.array(dtype=wp.mat33d), b: wp.array(dtype=wp.mat22d), r: wp.array(dtype=wp.mat33d),
                 s: wp.array(dtype=wp.vec2d)):
    i = wp.tid()
    Q = wp.mat33d()
    R = wp.mat33d()
    wp.qr3(a[i], Q, R)
    U = wp.mat22d()
    sigma = wp.vec2d()
    V = wp.mat22d()
    wp.svd2(b[i], U, sigma, V)
    r[i] = R
    s[i] = sigma


@wp.kernel
def singular_value_sum(a: wp.array(dtype=wp.mat33d), n: int, out: wp.array(dtype=F)):
    i = wp.tid()
    U = wp.mat33d()
    sigma = wp.vec3d()
    V = wp.mat33d()
    for _k in range(n):  # the out arguments are loop-carried variables
        wp.svd3(a[i], U, sigma, V)
    out[i] = sigma[0] + F(2.0) * sigma[1] + F(3.0) * sigma[2] + U[0, 0] * V[0, 0]


RNG = np.random.default_rng(3)
A = RNG.normal(size=(5, 3, 3))


def test_svd3_out_arguments_match_numpy():
    a = wp.array(A, dtype=wp.mat33d)
    us, ss, vs = wp.zeros(5, dtype=wp.mat33d), wp.zeros(5, dtype=wp.vec3d), wp.zeros(5, dtype=wp.mat33d)
    wp.launch(svd3_out, 5, inputs=[a, us, ss, vs])
    U, s, V = us.numpy(), ss.numpy(), vs.numpy()
    # U and V are rotations here, so one singular value may carry the sign of det(A)
    expected = np.sort(np.linalg.svd(A, compute_uv=False), axis=1)
    np.testing.assert_allclose(np.sort(np.abs(s), axis=1), expected, rtol=1e-9)
    np.testing.assert_allclose(U @ (s[:, :, None] * np.transpose(V, (0, 2, 1))), A, atol=1e-9)


def test_eig3_out_arguments_match_numpy():
    sym = A + np.transpose(A, (0, 2, 1))
    a = wp.array(sym, dtype=wp.mat33d)
    qs, ds = wp.zeros(5, dtype=wp.mat33d), wp.zeros(5, dtype=wp.vec3d)
    wp.launch(eig3_out, 5, inputs=[a, qs, ds])
    np.testing.assert_allclose(np.sort(ds.numpy(), axis=1), np.linalg.eigvalsh(sym), rtol=1e-9, atol=1e-12)
    Q, d = qs.numpy(), ds.numpy()
    np.testing.assert_allclose(Q @ (d[:, :, None] * np.transpose(Q, (0, 2, 1))), sym, atol=1e-9)


def test_qr3_and_svd2_out_arguments():
    b_np = A[:, :2, :2]
    a, b = wp.array(A, dtype=wp.mat33d), wp.array(b_np, dtype=wp.mat22d)
    r, s = wp.zeros(5, dtype=wp.mat33d), wp.zeros(5, dtype=wp.vec2d)
    wp.launch(qr3_svd2_out, 5, inputs=[a, b, r, s])
    np.testing.assert_allclose(np.abs(np.diagonal(r.numpy(), axis1=1, axis2=2)),
                               np.abs(np.diagonal(np.linalg.qr(A)[1], axis1=1, axis2=2)), rtol=1e-9)
    np.testing.assert_allclose(np.sort(np.abs(s.numpy()), axis=1),
                               np.sort(np.linalg.svd(b_np, compute_uv=False), axis=1), rtol=1e-9)


def test_out_argument_form_is_differentiable_in_a_loop():
    a, out = wp.array(A, dtype=wp.mat33d), wp.zeros(5, dtype=F)
    check_gradients(singular_value_sum, 5, [a, 2], [out], eps=1e-7, tol=1e-5)


def test_out_argument_of_the_wrong_type_is_a_clear_error():
    @wp.kernel
    def wrong(a: wp.array(dtype=wp.mat33d)):
        U = wp.mat33f()
        sigma = wp.vec3d()
        V = wp.mat33d()
        wp.svd3(a[0], U, sigma, V)

    with pytest.raises(WarpCodegenError, match=r"no overload of 'svd3'"):
        wp.launch(wrong, 1, inputs=[wp.zeros(1, dtype=wp.mat33d)])


def test_out_argument_must_be_a_variable():
    @wp.kernel
    def not_a_name(a: wp.array(dtype=wp.mat33d), q: wp.array(dtype=wp.mat33d)):
        d = wp.vec3d()
        wp.eig3(a[0], q[0], d)

    with pytest.raises(
        WarpCodegenError, match=r"argument 'Q' of wp.eig3 is an output: pass a local variable"
    ):
        wp.launch(not_a_name, 1, inputs=[wp.zeros(1, dtype=wp.mat33d), wp.zeros(1, dtype=wp.mat33d)])
