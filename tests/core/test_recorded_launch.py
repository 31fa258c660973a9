"""wp.launch(..., record_cmd=True) returns a wp.Launch that replays the launch with new parameters."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp

wp.config.quiet = True


@wp.kernel
def axpy(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32), a: wp.float32):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.kernel
def fill_index(out: wp.array2d(dtype=wp.int32), offset: wp.int32):
    i, j = wp.tid()
    out[i, j] = i * 100 + j + offset


def test_record_cmd_returns_a_launch_and_does_not_run():
    x = wp.array(np.arange(4, dtype=np.float32))
    y = wp.zeros(4, dtype=wp.float32)
    cmd = wp.launch(axpy, dim=4, inputs=[x, y, 2.0], record_cmd=True)
    assert isinstance(cmd, wp.Launch)
    assert np.array_equal(y.numpy(), np.zeros(4))  # nothing ran yet
    cmd.launch()
    assert np.array_equal(y.numpy(), 2.0 * np.arange(4))
    cmd.launch()  # replays with the same arguments
    assert np.array_equal(y.numpy(), 4.0 * np.arange(4))


def test_set_param_at_index_by_name_and_set_params():
    x = wp.array(np.arange(4, dtype=np.float32))
    y = wp.zeros(4, dtype=wp.float32)
    cmd = wp.launch(axpy, dim=4, inputs=[x, y, 1.0], record_cmd=True)
    cmd.set_param_at_index(2, 10.0)
    cmd.launch()
    assert np.array_equal(y.numpy(), 10.0 * np.arange(4))
    y2 = wp.zeros(4, dtype=wp.float32)
    cmd.set_param_by_name("y", y2)
    cmd.set_param_by_name("a", -1.0)
    cmd.launch()
    assert np.array_equal(y2.numpy(), -np.arange(4.0))
    assert np.array_equal(y.numpy(), 10.0 * np.arange(4))  # the old output is untouched
    x3 = wp.array(np.ones(4, dtype=np.float32))
    y3 = wp.full(4, 5.0, dtype=wp.float32)
    cmd.set_params([x3, y3, 3.0])
    cmd.launch()
    assert np.array_equal(y3.numpy(), np.full(4, 8.0))


def test_set_dim_changes_the_grid():
    out = wp.full((3, 4), -1, dtype=wp.int32)
    cmd = wp.launch(fill_index, dim=(1, 1), inputs=[out, 0], record_cmd=True)
    cmd.set_dim((2, 3))
    assert cmd.bounds == (2, 3)
    cmd.launch()
    expected = np.full((3, 4), -1)
    expected[:2, :3] = np.arange(2)[:, None] * 100 + np.arange(3)[None, :]
    assert np.array_equal(out.numpy(), expected)
    cmd.set_param_at_index(1, 7)
    cmd.set_dim((3, 4))
    cmd.launch()
    assert np.array_equal(out.numpy(), np.arange(3)[:, None] * 100 + np.arange(4)[None, :] + 7)


def test_bad_parameters_are_clear_errors():
    x = wp.zeros(4, dtype=wp.float32)
    cmd = wp.launch(axpy, dim=4, inputs=[x, x, 1.0], record_cmd=True)
    with pytest.raises(TypeError, match="kernel 'axpy', argument 'x': expected an array of float32"):
        cmd.set_param_at_index(0, wp.zeros(4, dtype=wp.int32))
    with pytest.raises(KeyError, match="kernel 'axpy' has no parameter 'b'"):
        cmd.set_param_by_name("b", 1.0)
    with pytest.raises(IndexError, match="kernel 'axpy' has 3 parameters"):
        cmd.set_param_at_index(3, 1.0)
    with pytest.raises(TypeError, match="passed 2 arguments but kernel requires 3"):
        cmd.set_params([x, x])
    with pytest.raises(ValueError, match="must not be negative|negative"):
        cmd.set_dim(-1)


def test_launch_keywords_warp_accepts():
    x = wp.array(np.arange(4, dtype=np.float32))
    y = wp.zeros(4, dtype=wp.float32)
    wp.launch(axpy, dim=4, inputs=[x, y, 1.0], block_dim=64, max_blocks=2, record_tape=False, stream=None)
    assert np.array_equal(y.numpy(), np.arange(4.0))


@wp.kernel
def scaled(x: wp.array(dtype=wp.float32), a: wp.float32, out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    out[i] = a * x[i]


@pytest.mark.needs_plugin("autodiff")
def test_recorded_adjoint_launch():
    x = wp.array(np.arange(4, dtype=np.float32))
    out = wp.zeros(4, dtype=wp.float32)
    adj_x, adj_out = wp.zeros(4, dtype=wp.float32), wp.ones(4, dtype=wp.float32)
    cmd = wp.launch(scaled, dim=4, inputs=[x, 3.0], outputs=[out], adj_inputs=[adj_x, 0.0],
                    adj_outputs=[adj_out], adjoint=True, record_cmd=True)
    cmd.launch()
    assert np.array_equal(adj_x.numpy(), np.full(4, 3.0))  # d(a * x)/dx * adj_out
    # a seed the caller gives (not out's own .grad) is read and left in place, as in wp.launch
    assert np.array_equal(adj_out.numpy(), np.ones(4))
    cmd.set_param_at_index(1, 5.0)
    adj_x2 = wp.zeros(4, dtype=wp.float32)
    cmd.set_param_by_name("x", adj_x2, adjoint=True)
    cmd.launch()
    assert np.array_equal(adj_x.numpy(), np.full(4, 3.0))  # the old adjoint array is untouched
    assert np.array_equal(adj_x2.numpy(), np.full(4, 5.0))
    assert np.array_equal(adj_out.numpy(), np.ones(4))
    # the output's own gradient, set as its adjoint, is consumed (as by a tape)
    owned = wp.zeros(4, dtype=wp.float32, requires_grad=True)
    cmd.set_param_by_name("out", owned)
    cmd.set_param_by_name("out", owned.grad, adjoint=True)
    owned.grad.fill_(1.0)
    cmd.launch()
    assert np.array_equal(adj_x2.numpy(), np.full(4, 10.0))
    assert np.array_equal(owned.grad.numpy(), np.zeros(4))
    with pytest.raises(ValueError, match="forward launch; it has no adjoint parameters"):
        wp.launch(scaled, dim=4, inputs=[x, 1.0, out], record_cmd=True).set_param_at_index(0, x, adjoint=True)


@wp.kernel
def composite_params(v: wp.vec3, m: wp.mat22, q: wp.quat, n: wp.int32, t: wp.transform,
                     out: wp.array(dtype=wp.float32)):
    out[0] = v[0] + v[1] + v[2]
    out[1] = m[0, 0] + m[0, 1] + m[1, 0] + m[1, 1]
    out[2] = q[0] + q[1] + q[2] + q[3]
    out[3] = wp.float32(n)
    out[4] = t[0] + t[1] + t[2] + t[3] + t[4] + t[5] + t[6]


def test_launch_built_directly_zero_initializes_unset_parameters():
    out = wp.full(5, -1.0, dtype=wp.float32)
    cmd = wp.Launch(composite_params, "cpu")
    assert [np.array(p).reshape(-1).tolist() for p in cmd.params[:3]] == [[0.0] * 3, [0.0] * 4, [0.0] * 4]
    assert cmd.params[3] == 0
    assert list(cmd.params[4]) == [0.0] * 7  # all zeros (wp.transform() would be the identity)
    cmd.set_param_by_name("out", out)
    cmd.set_dim(1)
    cmd.launch()
    np.testing.assert_array_equal(out.numpy(), np.zeros(5))
    cmd.set_param_by_name("v", wp.vec3(1.0, 2.0, 3.0))
    cmd.launch()
    np.testing.assert_array_equal(out.numpy(), [6.0, 0.0, 0.0, 0.0, 0.0])


@pytest.mark.needs_plugin("autodiff")
def test_adjoint_launch_built_directly_zero_initializes_adjoints():
    adj = wp.Launch(composite_params, "cpu", adjoint=True)
    assert len(adj.params) == 12
    assert all(not np.any(np.array(p)) for p in adj.params[6:11])
