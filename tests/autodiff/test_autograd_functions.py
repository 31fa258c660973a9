"""warp.autograd on Python functions that return their outputs, input restoration, kernels
without backward code, and Jacobian plots' metadata; each Jacobian compared with the analytic
derivative computed with NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
import warp.autograd as ag


@wp.kernel
def _scale(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = 3.0 * a[i] * a[i]


@wp.kernel
def _increment(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] + 1.0


@wp.kernel
def _square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]


@wp.kernel(enable_backward=False, module="unique")
def _no_backward(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = 2.0 * a[i]


def _returning(a):
    out = wp.zeros_like(a, requires_grad=True)
    wp.launch(_scale, dim=a.size, inputs=[a], outputs=[out])
    return out


def _mutating(x):
    wp.launch(_increment, dim=x.size, inputs=[x])
    y = wp.zeros_like(x)
    wp.launch(_square, dim=x.size, inputs=[x], outputs=[y])
    return y


@pytest.mark.parametrize("jac", [ag.jacobian, ag.jacobian_fd])
def test_function_returning_its_outputs(jac):
    values = np.array([1.0, -2.0, 0.5], dtype=np.float32)
    a = wp.array(values, dtype=float, requires_grad=True)
    jacobians = jac(_returning, inputs=[a])
    assert sorted(jacobians) == [(0, 0)]
    np.testing.assert_allclose(jacobians[(0, 0)].numpy(), np.diag(6.0 * values), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("jac", [ag.jacobian, ag.jacobian_fd])
def test_inputs_are_restored_for_every_evaluation_and_at_the_end(jac):
    x0 = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    x = wp.array(x0, dtype=float, requires_grad=True)
    jacobians = jac(_mutating, inputs=[x])  # y = (x + 1)^2, measured from x0 each time
    np.testing.assert_allclose(jacobians[(0, 0)].numpy(), np.diag(2.0 * (x0 + 1.0)), rtol=2e-3, atol=2e-2)
    np.testing.assert_array_equal(x.numpy(), x0)


def test_gradcheck_of_a_mutating_function_needs_restoration():
    x0 = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
    x = wp.array(x0, dtype=float, requires_grad=True)
    assert ag.gradcheck(_mutating, inputs=[x], raise_exception=False, show_summary=False)
    np.testing.assert_array_equal(x.numpy(), x0)
    drifting = wp.array(x0, dtype=float, requires_grad=True)
    assert not ag.gradcheck(_mutating, inputs=[drifting], restore_inputs=False, raise_exception=False,
                            show_summary=False)


@pytest.mark.parametrize("jac", [ag.jacobian, ag.jacobian_fd])
def test_inputs_are_restored_when_the_function_raises(jac):
    x0 = np.array([1.0, 2.0], dtype=np.float32)
    x = wp.array(x0, dtype=float, requires_grad=True)

    def raises(x):
        wp.launch(_increment, dim=x.size, inputs=[x])
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        jac(raises, inputs=[x])
    np.testing.assert_array_equal(x.numpy(), x0)


def test_kernels_without_backward_code():
    a = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    out = wp.zeros(2, dtype=float, requires_grad=True)
    with pytest.raises(ValueError, match="Kernel must have backward pass enabled to compute Jacobians"):
        ag.jacobian(_no_backward, dim=2, inputs=[a], outputs=[out])

    def pipeline(a):
        y = wp.zeros_like(a, requires_grad=True)
        wp.launch(_no_backward, dim=a.size, inputs=[a], outputs=[y])
        return y

    with pytest.raises(ValueError, match="_no_backward"):
        ag.jacobian(pipeline, inputs=[a])
    fd = ag.jacobian_fd(_no_backward, dim=2, inputs=[a], outputs=[out])  # forward launches only
    np.testing.assert_allclose(fd[(0, 0)].numpy(), 2.0 * np.eye(2), atol=1e-3)
    with wp.Tape() as tape:
        wp.launch(_no_backward, dim=2, inputs=[a], outputs=[out])
    assert ag.gradcheck_tape(tape, raise_exception=False, show_summary=False)  # nothing to check


def test_rows_and_columns_not_computed_are_nan():
    values = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    a = wp.array(values, dtype=float, requires_grad=True)
    out = wp.zeros(3, dtype=float, requires_grad=True)
    ad = ag.jacobian(_scale, dim=3, inputs=[a], outputs=[out], max_outputs_per_var=2)[(0, 0)].numpy()
    fd = ag.jacobian_fd(_scale, dim=3, inputs=[a], outputs=[out], max_inputs_per_var=1)[(0, 0)].numpy()
    np.testing.assert_allclose(ad[:2], np.diag(6.0 * values)[:2], rtol=1e-5)
    assert np.isnan(ad[2:]).all() and np.isnan(fd[:, 1:]).all()
    np.testing.assert_allclose(fd[:, :1], np.diag(6.0 * values)[:, :1], rtol=2e-2, atol=2e-2)


def test_src_alias_and_metadata_of_kernels_and_functions():
    from warp._src.autograd import FunctionMetadata

    assert FunctionMetadata is ag.FunctionMetadata
    a = wp.zeros(2, dtype=wp.vec3)
    out = wp.zeros(2, dtype=float)
    meta = FunctionMetadata.from_kernel(_scale, [a], [out])
    assert (meta.key, meta.input_labels, meta.output_labels) == (_scale.key, ["a"], ["out"])
    assert meta.input_dtypes == [wp.vec3] and meta.output_dtypes == [wp.float32]
    meta = FunctionMetadata.from_function(_returning, [a], [out])
    assert (meta.key, meta.input_labels, meta.output_labels) == ("_returning", ["a"], ["output_0"])


def test_jacobian_plot_rejects_incomplete_metadata_before_drawing():
    jac = {(0, 0): wp.array([[1.0]], dtype=float)}
    with pytest.raises(ValueError, match="inputs must be provided"):
        ag.jacobian_plot({}, _scale)
    assert ag.jacobian_plot({}, ag.FunctionMetadata(key="empty"), show_plot=False) is None
    cases = [
        (dict(input_labels=[], output_labels=["y"], input_dtypes=[], output_dtypes=[float]), "input index 0"),
        (dict(input_labels=[None], output_labels=["y"], input_dtypes=[wp.float32],
              output_dtypes=[wp.float32]), "input index 0: missing label"),
        (dict(input_labels=["a"], output_labels=["y"], input_dtypes=[None], output_dtypes=[wp.float32]),
         "missing array dtype"),
        (dict(input_labels=["a"], output_labels=[], input_dtypes=[wp.float32], output_dtypes=[]),
         "output index 0"),
    ]
    for fields, message in cases:
        with pytest.raises(ValueError, match=message):
            ag.jacobian_plot(jac, ag.FunctionMetadata(key="bad", **fields), show_plot=False)


def test_jacobian_plot_draws_one_cell_per_input_output_pair():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    a = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    b = wp.array(np.ones((2, 3), dtype=np.float32), dtype=wp.vec3, requires_grad=True)
    jacobians = {
        (0, 0): wp.array(np.eye(2), dtype=float),
        (1, 0): wp.array(np.ones((2, 6)), dtype=float),
    }
    meta = ag.FunctionMetadata(key="k", input_labels=["a", "b"], output_labels=["y"],
                               input_dtypes=[a.dtype, b.dtype], output_dtypes=[wp.float32])
    fig = ag.jacobian_plot(jacobians, meta, show_plot=False, show_colorbar=False)
    try:
        assert fig.get_suptitle() == "k kernel Jacobian"
        assert [ax.get_xlabel() for ax in fig.axes] == ["a", "b"]
        assert fig.axes[0].get_gridspec().get_width_ratios() == [2, 6]
        np.testing.assert_array_equal(fig.axes[1].images[0].get_array(), np.ones((2, 6)))
    finally:
        plt.close(fig)
