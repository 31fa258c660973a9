"""Transform construction as NVIDIA Warp 1.19 has it, in Python scope and in kernels: the
identity without arguments, a scalar fill, ``(p, q)`` and ``p=``/``q=`` (q defaults to the
identity rotation), copies; errors naming the bad argument; ``t1 * t2`` composes; ``t.p``/``t.q``
assignable. Also the output-parameter form of ``wp.quat_to_axis_angle`` and keyword arguments
to registry builtins in kernels."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp


def _rotate(q, x):
    v, w = np.asarray(q[:3]), q[3]
    return x * (2 * w * w - 1) + np.cross(v, x) * 2 * w + v * 2 * np.dot(v, x)


def test_python_scope_forms_and_errors():
    c = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    for T in (wp.transformh, wp.transformf, wp.transformd):
        assert list(T()) == [0.0] * 6 + [1.0]
        assert list(T(1.5)) == [1.5] * 7 and list(T(np.float32(1.5))) == [1.5] * 7
        assert list(T((1.0, 2.0, 3.0))) == [1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 1.0]
        assert list(T(p=(1.0, 2.0, 3.0), q=(4.0, 5.0, 6.0, 7.0))) == c
        assert list(T(wp.transformd(*c))) == c
        with pytest.raises(TypeError, match="expected a scalar value, got object"):
            T(object())
        with pytest.raises(TypeError, match="Invalid argument 'q' in transformation constructor"):
            T((1.0, 2.0, 3.0), 1.0)
        with pytest.raises(TypeError, match="^multiple values for argument 'q'$"):
            T(*c, q=(0.0, 0.0, 0.0, 1.0))
        with pytest.raises(TypeError, match="^got an unexpected keyword argument 'pos'$"):
            T(*c, pos=(1.0, 2.0, 3.0))


class _ArrayLike:
    """An object speaking only the NumPy array protocol (as framework tensors do)."""

    def __init__(self, values):
        self.values = values

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.values, dtype=dtype)


def test_python_scope_array_likes_as_p_and_q():
    p, q = [1.0, 2.0, 3.0], [0.0, 0.0, 0.6, 0.8]
    assert list(wp.transform(_ArrayLike(p), _ArrayLike(q))) == pytest.approx(p + q)
    assert list(wp.transform(p=_ArrayLike(p))) == pytest.approx(p + [0.0, 0.0, 0.0, 1.0])
    assert list(wp.transform(_ArrayLike(p))) == pytest.approx(p + [0.0, 0.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="argument 'q' in transformation constructor: expected 4 values"):
        wp.transform(_ArrayLike(p), _ArrayLike(p))


def test_python_scope_composition_and_setters():
    a = np.array([1.0, 2.0, 3.0, 0.1, 0.2, 0.3, 0.9])
    b = np.array([-1.0, 0.5, 2.0, 0.3, -0.1, 0.2, 0.8])
    t = wp.transformd(*a) * wp.transformd(*b)
    qa, qb = a[3:], b[3:]
    q = np.array([
        qa[3] * qb[0] + qa[0] * qb[3] + qa[1] * qb[2] - qa[2] * qb[1],
        qa[3] * qb[1] - qa[0] * qb[2] + qa[1] * qb[3] + qa[2] * qb[0],
        qa[3] * qb[2] + qa[0] * qb[1] - qa[1] * qb[0] + qa[2] * qb[3],
        qa[3] * qb[3] - qa[0] * qb[0] - qa[1] * qb[1] - qa[2] * qb[2],
    ])
    np.testing.assert_allclose(list(t), [*(a[:3] + _rotate(qa, b[:3])), *q])
    u = wp.transform()
    u.p = wp.vec3(1.0, 2.0, 3.0)
    u.q = wp.quat(0.0, 0.0, 1.0, 0.0)
    assert list(u) == [1.0, 2.0, 3.0, 0.0, 0.0, 1.0, 0.0]


@wp.kernel(module="unique")
def _kernel_forms(out: wp.array(dtype=wp.transform), outd: wp.array(dtype=wp.transformd)):
    out[0] = wp.transform(p=wp.vec3(1.0, 2.0, 3.0))
    out[1] = wp.transform()
    out[2] = wp.transform(1.5)
    out[3] = wp.transform(wp.vec3(1.0, 2.0, 3.0), q=wp.quat(4.0, 5.0, 6.0, 7.0))
    out[4] = wp.types.transformation(out[3])
    outd[0] = wp.transformd(wp.float64(2.5))


def test_kernel_forms():
    out = wp.zeros(5, dtype=wp.transform)
    outd = wp.zeros(1, dtype=wp.transformd)
    wp.launch(_kernel_forms, 1, outputs=[out, outd])
    expected = [[1, 2, 3, 0, 0, 0, 1], [0] * 7, [1.5] * 7, [1, 2, 3, 4, 5, 6, 7]]  # kernel transform(): 0
    expected.append(expected[-1])
    np.testing.assert_array_equal(out.numpy(), np.array(expected, dtype=np.float32))
    np.testing.assert_array_equal(outd.numpy(), np.full((1, 7), 2.5))


def test_kernel_errors():
    def arity():
        wp.transform(1.0, 2.0)

    def dtypes():
        wp.transformd(wp.transform(1.0))

    for body, message in (
        (arity, "incompatible number of values given (2) when constructing a transform; expected 0, 1, or 7"),
        (dtypes, "requires matching source and target dtypes, got `float32` and `float64`"),
    ):
        with pytest.raises(RuntimeError) as info:
            wp.launch(wp.Kernel(body, module="unique"), dim=1)
        assert str(info.value).endswith(message)


@wp.kernel(module="unique")
def _axis_angle_out(
    qs: wp.array(dtype=wp.quat), axes: wp.array(dtype=wp.vec3), angles: wp.array(dtype=float)
):
    i = wp.tid()
    axis = wp.vec3()
    angle = float(0.0)
    wp.quat_to_axis_angle(qs[i], axis, angle)
    axes[i] = axis
    angles[i] = wp.pow(x=angle, y=2.0)
    wp.expect_near(angle, angle, tolerance=0.0)


def test_quat_to_axis_angle_output_parameters_and_gradient():
    half = 0.6
    axis = np.array([0.0, 0.6, 0.8])
    qs = wp.array([[*(axis * np.sin(half)), np.cos(half)]], dtype=wp.quat, requires_grad=True)
    axes = wp.zeros(1, dtype=wp.vec3, requires_grad=True)
    angles = wp.zeros(1, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(_axis_angle_out, 1, inputs=[qs], outputs=[axes, angles])
    np.testing.assert_allclose(axes.numpy()[0], axis, atol=1e-6)
    np.testing.assert_allclose(angles.numpy()[0], (2 * half) ** 2, rtol=1e-6)
    tape.backward(grads={angles: wp.ones_like(angles)})
    # d(angle^2)/dw with angle = 2 atan2(|v|, w): -4 angle |v| / (|v|^2 + w^2)
    q = qs.numpy()[0].astype(np.float64)
    expected_w = -4.0 * (2 * half) * np.linalg.norm(q[:3]) / np.dot(q, q)
    np.testing.assert_allclose(qs.grad.numpy()[0][3], expected_w, rtol=1e-4)


@wp.kernel(module="unique")
def _near_composites(out: wp.array(dtype=int)):
    q = wp.quat(0.1, 0.2, 0.3, 0.9)
    m = wp.mat22(1.0, 2.0, 3.0, 4.0)
    wp.expect_near(q, wp.quat(0.1, 0.2, 0.3, 0.9005), tolerance=1e-3)
    wp.expect_near(m, wp.mat22(1.0, 2.0, 3.0, 4.0005), 1e-3)
    out[0] = 1


def test_expect_near_of_quaternions_and_matrices(capfd):
    out = wp.zeros(1, dtype=int)
    wp.launch(_near_composites, 1, outputs=[out])
    wp.synchronize()
    assert out.numpy()[0] == 1 and "Expect failed" not in capfd.readouterr().out
    wp.expect_near(wp.quat(0.0, 0.0, 0.0, 1.0), wp.quat(0.0, 0.0, 0.5, 1.0), 1e-3)
    assert capfd.readouterr().out.count("Expect failed") == 1


def test_transformation_takes_p_and_q_by_keyword():
    @wp.kernel
    def by_keyword(
        vs: wp.array(dtype=wp.vec3), qs: wp.array(dtype=wp.quat), out: wp.array(dtype=wp.transform)
    ):
        out[0] = wp.transformation(p=vs[0], q=qs[0])
        out[1] = wp.transformation(vs[0], q=qs[0])
        out[2] = wp.transformation(q=qs[0], p=vs[0], dtype=float)

    vs = wp.array([wp.vec3(2.0, 3.0, 4.0)], dtype=wp.vec3)
    qs = wp.array([wp.quat(5.0, 6.0, 7.0, 8.0)], dtype=wp.quat)
    out = wp.zeros(3, dtype=wp.transform)
    wp.launch(by_keyword, dim=1, inputs=[vs, qs, out])
    np.testing.assert_array_equal(out.numpy(), [[2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]] * 3)
    t = wp.transformation(p=wp.vec3(1.0, 2.0, 3.0), q=wp.quat(0.0, 0.0, 0.0, 1.0))
    assert list(t) == [1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 1.0]

    @wp.kernel
    def only_p(vs: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.transform)):
        out[0] = wp.transformation(p=vs[0])

    with pytest.raises(wp.WarpCodegenError, match="needs both p and q"):
        wp.launch(only_p, dim=1, inputs=[vs, out])
