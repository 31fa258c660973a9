"""A recording ``wp.Tape`` differentiates ``wp.copy``, ``wp.clone`` and ``array.assign``: the
destination window's gradient is added to the source window's and consumed (the copy is the
last write there). References are worked out by hand from the chain rule."""

import numpy as np

import warp as wp


@wp.kernel
def _scale(x: wp.array(dtype=float), y: wp.array(dtype=float), c: float):
    i = wp.tid()
    y[i] = c * x[i]


@wp.kernel
def _weighted_sum(x: wp.array(dtype=float), w: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, w[i] * x[i])


def _vec(values, grad=True):
    return wp.array(np.asarray(values, dtype=np.float32), dtype=float, requires_grad=grad)


def test_clone_and_kernel_paths_accumulate():
    x = _vec([1.0, 2.0, 3.0, 4.0])
    w = _vec([1.0, -2.0, 0.5, 3.0], grad=False)
    y = wp.zeros_like(x)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        c = wp.clone(x)
        wp.launch(_scale, dim=4, inputs=[x, y, 3.0])
        wp.launch(_weighted_sum, dim=4, inputs=[y, w, loss])
        wp.launch(_weighted_sum, dim=4, inputs=[c, w, loss])
    tape.backward(loss)
    np.testing.assert_allclose(x.grad.numpy(), 4.0 * w.numpy())  # d/dx (3 w.x + w.x)


def test_copy_is_the_last_write_and_consumes_the_gradient():
    x = _vec(np.ones(4))
    s = _vec([5.0, 6.0, 7.0, 8.0])
    y = wp.zeros(4, dtype=float, requires_grad=True)
    w = _vec([1.0, 2.0, 3.0, 4.0], grad=False)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_scale, dim=4, inputs=[x, y, 2.0])  # overwritten below: no gradient
        wp.copy(y, s, dest_offset=1, src_offset=0, count=2)  # y[1:3] = s[0:2]
        wp.launch(_weighted_sum, dim=4, inputs=[y, w, loss])
    tape.backward(loss)
    np.testing.assert_allclose(s.grad.numpy(), [2.0, 3.0, 0.0, 0.0])
    np.testing.assert_allclose(x.grad.numpy(), [2.0 * 1.0, 0.0, 0.0, 2.0 * 4.0])
    assert y.numpy().tolist() == [2.0, 5.0, 6.0, 2.0]


def test_copy_between_strided_views_routes_gradients_to_the_window():
    base = wp.array(np.arange(12, dtype=np.float32).reshape(3, 4), requires_grad=True)
    col = base[:, 2]  # strided 1-d view
    dst = wp.zeros(2, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.copy(dst, col, src_offset=1, count=2)
    np.testing.assert_array_equal(dst.numpy(), [6.0, 10.0])
    tape.backward(grads={dst: wp.array(np.array([10.0, 20.0], dtype=np.float32))})
    expected = np.zeros((3, 4), dtype=np.float32)
    expected[1:, 2] = [10.0, 20.0]
    np.testing.assert_array_equal(base.grad.numpy(), expected)


def test_assign_of_an_array_is_differentiated():
    x = _vec([1.0, 2.0, 3.0])
    dst = wp.zeros(3, dtype=float, requires_grad=True)
    w = _vec([2.0, 0.0, -1.0], grad=False)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        dst.assign(x)
        wp.launch(_weighted_sum, dim=3, inputs=[dst, w, loss])
    tape.backward(loss)
    np.testing.assert_allclose(x.grad.numpy(), w.numpy())


def test_copy_keeps_the_overwritten_values_an_earlier_adjoint_needs():
    @wp.kernel
    def square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = x[i] * x[i]

    x = _vec([1.0, 2.0, 3.0])
    y = wp.zeros(3, dtype=float, requires_grad=True)
    other = _vec([9.0, 9.0, 9.0])
    tape = wp.Tape()
    with tape:
        wp.launch(square, dim=3, inputs=[x, y])
        wp.copy(x, other)  # overwrites x, which square's adjoint reads
    tape.backward(grads={y: wp.array(np.ones(3, dtype=np.float32))})
    np.testing.assert_allclose(y.numpy(), [1.0, 4.0, 9.0])
    # x's gradient: consumed by the copy (x was overwritten), then 2*x_old from square
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0, 6.0])
