"""The Jacobian recipes of the documentation: row by row with tape.backward(grads=...) and
tape.zero(), and the batched block-diagonal variant over parallel environments."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp

#: every test runs on each device (tests/conftest.py: cpu, cuda:N or the stand-in's cuda:0)
pytestmark = pytest.mark.usefixtures("on_device")

INPUT_DIM, OUTPUT_DIM = 3, 4


@wp.kernel
def dynamics(q: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
    """One environment per thread: out = f(q) for f: R^3 -> R^4."""
    env = wp.tid()
    a = q[env * 3 + 0]
    b = q[env * 3 + 1]
    c = q[env * 3 + 2]
    out[env * 4 + 0] = a * b
    out[env * 4 + 1] = b * b * c
    out[env * 4 + 2] = a - c / (1.0 + b * b)
    out[env * 4 + 3] = 2.0 * a + 3.0 * b - c


def analytic_jacobian(q):
    a, b, c = q
    d = 1.0 + b * b
    return np.array([
        [b, a, 0.0],
        [0.0, 2 * b * c, b * b],
        [1.0, 2 * b * c / d**2, -1.0 / d],
        [2.0, 3.0, -1.0],
    ])


def launch_kernels_to_be_differentiated(input_buffer, num_envs=1):
    output_buffer = wp.zeros(num_envs * OUTPUT_DIM, dtype=wp.float32, requires_grad=True)
    wp.launch(dynamics, dim=num_envs, inputs=[input_buffer], outputs=[output_buffer])
    return output_buffer


def test_row_by_row_jacobian():
    q = np.array([0.7, -1.3, 2.1], dtype=np.float32)
    input_buffer = wp.array(q, dtype=wp.float32, requires_grad=True)
    output_dim, input_dim = OUTPUT_DIM, INPUT_DIM
    # as in the documentation
    jacobian = np.empty((output_dim, input_dim), dtype=np.float32)
    tape = wp.Tape()
    with tape:
        output_buffer = launch_kernels_to_be_differentiated(input_buffer)
    for output_index in range(output_dim):
        select_index = np.zeros(output_dim)
        select_index[output_index] = 1.0
        e = wp.array(select_index, dtype=wp.float32)
        tape.backward(grads={output_buffer: e})
        q_grad_i = tape.gradients[input_buffer]
        jacobian[output_index, :] = q_grad_i.numpy()
        tape.zero()
    np.testing.assert_allclose(jacobian, analytic_jacobian(q.astype(np.float64)), rtol=1e-5, atol=1e-6)


def test_batched_block_diagonal_jacobians():
    num_envs = 5
    rng = np.random.default_rng(3)
    qs = rng.normal(size=(num_envs, INPUT_DIM)).astype(np.float32)
    input_buffer = wp.array(qs.reshape(-1), dtype=wp.float32, requires_grad=True)
    output_dim, input_dim = OUTPUT_DIM, INPUT_DIM
    jacobians = np.empty((num_envs, output_dim, input_dim), dtype=np.float32)
    tape = wp.Tape()
    with tape:
        output_buffer = launch_kernels_to_be_differentiated(input_buffer, num_envs)
    for output_index in range(output_dim):
        select_index = np.zeros(output_dim)
        select_index[output_index] = 1.0
        e = wp.array(np.tile(select_index, num_envs), dtype=wp.float32)
        tape.backward(grads={output_buffer: e})
        q_grad_i = tape.gradients[input_buffer]
        jacobians[:, output_index, :] = q_grad_i.numpy().reshape(num_envs, input_dim)
        tape.zero()
    for env in range(num_envs):
        np.testing.assert_allclose(jacobians[env], analytic_jacobian(qs[env].astype(np.float64)), rtol=1e-5,
                                   atol=1e-5)


def test_autograd_jacobian_helpers_agree():
    q = wp.array(np.array([0.7, -1.3, 2.1, 0.2, 0.4, -0.9]), dtype=wp.float32, requires_grad=True)
    out = wp.zeros(8, dtype=wp.float32, requires_grad=True)
    jac = wp.autograd.jacobian(dynamics, 2, inputs=[q], outputs=[out])
    jac_fd = wp.autograd.jacobian_fd(dynamics, 2, inputs=[q], outputs=[out], eps=1e-3)
    j, j_fd = jac[(0, 0)].numpy(), jac_fd[(0, 0)].numpy()
    assert j.shape == (8, 6)
    np.testing.assert_allclose(j, j_fd, atol=2e-2)
    np.testing.assert_allclose(
        j[:4, :3], analytic_jacobian(q.numpy()[:3].astype(np.float64)), rtol=1e-5, atol=1e-6
    )
    assert not np.any(j[:4, 3:]) and not np.any(j[4:, :3])  # block diagonal
