"""Gradients through composite slices, slice assignment and atomic component updates of arrays
(``a[i].x += v``), checked against finite differences and closed forms."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
from adutil import F, adjoint_grads, check_gradients, f64

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")


@wp.kernel
def slices(p: wp.array(dtype=wp.vec4d), m: wp.array(dtype=wp.mat33d), out: wp.array(dtype=F)):
    i = wp.tid()
    v = p[i]
    a = m[i]
    w = v[1:]
    col = a[:, 1]
    sub = a[1:, :2]
    w[::2] = wp.vec2d(v[0] * v[3], sub[1, 0])
    out[i] = w[0] * col[2] + w[1] * w[2] + sub[0, 1] * v[::-1][0]


def test_gradients_through_slices():
    rng = np.random.default_rng(3)
    pv, mv = rng.normal(size=(4, 4)), rng.normal(size=(4, 3, 3))
    p, m, out = wp.array(pv, dtype=wp.vec4d), wp.array(mv, dtype=wp.mat33d), wp.zeros(4, dtype=F)
    check_gradients(slices, 4, [p, m], [out])


@wp.kernel
def component_accumulate(x: wp.array(dtype=F), acc: wp.array(dtype=wp.vec3d),
                         macc: wp.array(dtype=wp.mat22d)):
    i = wp.tid()
    acc[0].y += x[i] * x[i]
    acc[0][2] -= F(3.0) * x[i]
    macc[0][1, 0] += x[i]
    macc[0][0] += wp.vec2d(x[i], F(2.0) * x[i])


def test_gradients_of_atomic_component_updates(force_parallel):
    xv = np.linspace(-1.0, 1.0, 50)
    x, acc, macc = f64(xv), wp.zeros(1, dtype=wp.vec3d), wp.zeros(1, dtype=wp.mat22d)
    check_gradients(component_accumulate, 50, [x], [acc, macc])
    (g,) = adjoint_grads(component_accumulate, 50, [x], [acc, macc],
                         {acc: [[10.0, 20.0, 30.0]], macc: [[[1.0, 2.0], [3.0, 4.0]]]})
    np.testing.assert_allclose(g, 20.0 * 2 * xv - 30.0 * 3.0 + 3.0 + 1.0 + 2.0 * 2.0)
