"""Kernel-local arrays: ``wp.zeros(shape, dtype)`` / ``wp.empty`` inside kernels (NVIDIA Warp's
``fixedarray``) and array views over an address, ``wp.array(ptr=..., shape=..., dtype=...)``.

Values are compared with NumPy computations of the same data; errors by type, message, kernel
name and source line.
"""

import numpy as np
import pytest

import warp as wp


def line_of(text):
    """Line number of the unique line of this file containing ``text``."""
    with open(__file__) as f:
        hits = [n for n, line in enumerate(f, 1) if text in line]
    assert len(hits) == 1, (text, hits)
    return hits[0]


@wp.func
def fill_ramp(a: wp.array(dtype=float), start: float):
    for i in range(a.shape[0]):
        a[i] = start + float(i)


@wp.func
def total(a: wp.array(dtype=float)) -> float:
    s = float(0.0)
    for i in range(len(a)):
        s += a[i]
    return s


@wp.kernel
def local_1d(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    t = wp.tid()
    buf = wp.zeros(shape=6, dtype=float)
    fill_ramp(buf, x[t])  # a @wp.func writes the caller's elements
    buf[-1] = buf[-1] * 10.0  # negative index from the end
    buf[2] += 0.5
    out[t] = total(buf)


def test_zeros_1d_filled_by_func_and_summed():
    x = np.array([0.0, 1.5, -2.0, 7.0], dtype=np.float32)
    out = wp.zeros(4, dtype=float)
    wp.launch(local_1d, dim=4, inputs=[wp.array(x, dtype=float), out])
    ref = []
    for v in x:
        buf = v + np.arange(6, dtype=np.float32)
        buf[-1] *= 10.0
        buf[2] += 0.5
        ref.append(buf.sum())
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-6)


@wp.kernel
def local_2d_vectors(out: wp.array2d(dtype=wp.vec3), shape_out: wp.array(dtype=int)):
    t = wp.tid()
    m = wp.zeros((2, 3), dtype=wp.vec3)
    for i in range(2):
        for j in range(3):
            m[i, j] = wp.vec3(float(t), float(i), float(j))
    m[1, 2].y += 5.0  # component update of an element
    row = m[1]  # a row view of the local array
    row[0] = row[0] * 2.0
    for i in range(2):
        for j in range(3):
            out[t * 2 + i, j] = m[i, j]
    shape_out[0] = m.shape[0]
    shape_out[1] = m.shape[1]
    shape_out[2] = len(m)


@pytest.mark.needs_plugin("builtins")
def test_zeros_2d_of_vectors_row_views_and_shape():
    out = wp.zeros((6, 3), dtype=wp.vec3)
    shape_out = wp.zeros(3, dtype=int)
    wp.launch(local_2d_vectors, dim=3, inputs=[out, shape_out])
    ref = np.zeros((6, 3, 3), dtype=np.float32)
    for t in range(3):
        m = np.zeros((2, 3, 3), dtype=np.float32)
        for i in range(2):
            for j in range(3):
                m[i, j] = (t, i, j)
        m[1, 2, 1] += 5.0
        m[1, 0] *= 2.0
        ref[2 * t : 2 * t + 2] = m
    np.testing.assert_array_equal(out.numpy(), ref)
    assert shape_out.numpy().tolist() == [2, 3, 2]


@wp.kernel
def rezeroed_in_loop(out: wp.array(dtype=int)):
    t = wp.tid()
    acc = int(0)
    for it in range(3 + t):  # a runtime loop: each iteration gets fresh zeros
        h = wp.zeros(4, dtype=int)
        h[it % 4] += it + 1
        for k in range(4):
            acc += h[k] * (k + 1)
    out[t] = acc


def test_zeros_in_a_loop_is_zero_each_iteration():
    out = wp.zeros(3, dtype=int)
    wp.launch(rezeroed_in_loop, dim=3, inputs=[out])
    ref = [sum((it + 1) * (it % 4 + 1) for it in range(3 + t)) for t in range(3)]
    assert out.numpy().tolist() == ref


@wp.kernel
def histogram(values: wp.array(dtype=int), out: wp.array2d(dtype=int)):
    t = wp.tid()
    h = wp.empty(8, dtype=int)  # uninitialized: every element written before it is read
    for b in range(8):
        h[b] = 0
    for i in range(values.shape[0]):
        v = values[i] + t
        h[v % 8] += 1
    for b in range(8):
        out[t, b] = h[b]


def test_empty_then_written_histogram_matches_numpy():
    vals = np.array([0, 3, 3, 5, 7, 7, 7, 12, 1], dtype=np.int32)
    out = wp.zeros((4, 8), dtype=int)
    wp.launch(histogram, dim=4, inputs=[wp.array(vals, dtype=int), out])
    ref = np.stack([np.bincount((vals + t) % 8, minlength=8) for t in range(4)])
    np.testing.assert_array_equal(out.numpy(), ref)


N_CONST = wp.constant(5)


@wp.kernel
def constant_shapes(out: wp.array(dtype=float)):
    a = wp.zeros(N_CONST, dtype=wp.float64)
    b = wp.zeros(shape=(N_CONST, 2), dtype=float)
    a[4] = wp.float64(2.5)
    b[4, 1] = 1.5
    wp.atomic_add(b, 4, 1, 1.0)  # atomics work on local arrays too
    out[0] = float(a[4]) + b[4, 1] + float(a.shape[0] + b.shape[1])


def test_shape_from_wp_constant_and_atomics():
    out = wp.zeros(1, dtype=float)
    wp.launch(constant_shapes, dim=1, inputs=[out])
    assert out.numpy()[0] == pytest.approx(2.5 + 2.5 + 7.0)


def test_local_array_ptr_is_the_address_of_its_first_element():
    @wp.kernel
    def ptrs(out: wp.array(dtype=wp.uint64)):
        a = wp.zeros(4, dtype=wp.int32)
        a[2] = 42
        out[0] = a.ptr
        view = wp.array(ptr=a.ptr + wp.uint64(8), shape=(2,), dtype=wp.int32)
        out[1] = wp.uint64(view[0])  # a[2] seen through a view over its address

    out = wp.zeros(2, dtype=wp.uint64)
    wp.launch(ptrs, dim=1, inputs=[out])
    assert out.numpy()[0] != 0
    assert out.numpy()[1] == 42


@wp.kernel
def view_from_ptr(src: wp.array(dtype=float), n: int, rows: int, out: wp.array(dtype=float)):
    t = wp.tid()
    flat = wp.array(ptr=src.ptr, shape=n, dtype=float)
    grid = wp.array(ptr=src.ptr, shape=(rows, n // rows), dtype=float)
    r = t // (n // rows)
    c = t % (n // rows)
    out[t] = flat[t] + 100.0 * grid[r, c] + 1000.0 * float(grid.shape[1])
    grid[r, c] = -grid[r, c]  # writes reach the original memory


def test_array_from_ptr_views_the_same_memory():
    data = np.arange(12, dtype=np.float32)
    src = wp.array(data, dtype=float)
    out = wp.zeros(12, dtype=float)
    wp.launch(view_from_ptr, dim=12, inputs=[src, 12, 3, out])
    np.testing.assert_allclose(out.numpy(), data + 100.0 * data + 4000.0)
    np.testing.assert_array_equal(src.numpy(), -data)


@wp.kernel
def vec_view_from_address(addr: wp.uint64, out: wp.array(dtype=float)):
    t = wp.tid()
    v = wp.array(ptr=addr, shape=(2, 2), dtype=wp.vec2)
    out[t] = v[t // 2, t % 2][1]


def test_array_from_python_address_of_vectors():
    data = np.arange(8, dtype=np.float32).reshape(4, 2)
    src = wp.array(data, dtype=wp.vec2)
    out = wp.zeros(4, dtype=float)
    wp.launch(vec_view_from_address, dim=4, inputs=[wp.uint64(src.ptr), out])
    np.testing.assert_array_equal(out.numpy(), data[:, 1])


def test_local_array_bounds_checked_in_debug_mode(debug_mode):
    @wp.kernel
    def overflow(k: int, out: wp.array(dtype=float)):
        a = wp.zeros(3, dtype=float)
        a[k] = 1.0
        out[0] = a[0]

    out = wp.zeros(1, dtype=float)
    wp.launch(overflow, dim=1, inputs=[0, out])
    assert out.numpy()[0] == 1.0
    with pytest.raises(IndexError, match=r"overflow[\s\S]*\(3\)"):
        wp.launch(overflow, dim=1, inputs=[3, out])


# -- errors -------------------------------------------------------------------------------------


def test_runtime_shape_is_a_located_error():
    @wp.kernel
    def dynamic_shape(n: int, out: wp.array(dtype=float)):
        a = wp.zeros(n, dtype=float)  # DYNAMIC-SHAPE-MARKER
        out[0] = a[0]

    with pytest.raises(wp.WarpCodegenValueError) as info:
        wp.launch(dynamic_shape, dim=1, inputs=[3, wp.zeros(1, dtype=float)])
    msg = str(info.value)
    assert "must be a compile-time constant" in msg and "'n'" in msg
    assert "dynamic_shape" in msg
    assert f"{__file__}:{line_of('# DYNAMIC-SHAPE-' + 'MARKER')}" in msg


def test_bad_dtype_and_shapes_are_errors():
    @wp.kernel
    def bad_dtype(out: wp.array(dtype=float)):
        a = wp.zeros(3, dtype=out)
        out[0] = 0.0

    with pytest.raises(wp.WarpCodegenTypeError, match=r"dtype of wp.zeros\(\) must be a warp data type"):
        wp.launch(bad_dtype, dim=1, inputs=[wp.zeros(1, dtype=float)])

    @wp.kernel
    def zero_size(out: wp.array(dtype=float)):
        a = wp.zeros((2, 0), dtype=float)
        out[0] = 0.0

    with pytest.raises(wp.WarpCodegenValueError, match=r"must be positive, got \(2, 0\)"):
        wp.launch(zero_size, dim=1, inputs=[wp.zeros(1, dtype=float)])

    @wp.kernel
    def too_big(out: wp.array(dtype=float)):
        a = wp.zeros((1024, 1024), dtype=float)
        out[0] = a[0, 0]

    with pytest.raises(wp.WarpCodegenValueError, match="limited to 1048576 bytes"):
        wp.launch(too_big, dim=1, inputs=[wp.zeros(1, dtype=float)])


def test_returning_a_local_array_from_a_func_is_an_error():
    @wp.func
    def make() -> wp.array(dtype=float):
        a = wp.zeros(4, dtype=float)
        return a  # RETURN-LOCAL-MARKER

    @wp.kernel
    def uses_make(out: wp.array(dtype=float)):
        out[0] = make()[0]

    with pytest.raises(wp.WarpCodegenTypeError) as info:
        wp.launch(uses_make, dim=1, inputs=[wp.zeros(1, dtype=float)])
    msg = str(info.value)
    assert "cannot be returned from a function" in msg
    assert f"{__file__}:{line_of('# RETURN-LOCAL-' + 'MARKER')}" in msg


def test_array_from_ptr_needs_uint64_address():
    @wp.kernel
    def int_address(p: int, out: wp.array(dtype=float)):
        v = wp.array(ptr=p, shape=(1,), dtype=float)
        out[0] = v[0]

    with pytest.raises(wp.WarpCodegenTypeError, match="must be a uint64 address, got int32"):
        wp.launch(int_address, dim=1, inputs=[0, wp.zeros(1, dtype=float)])

    @wp.kernel
    def missing_shape(p: wp.uint64, out: wp.array(dtype=float)):
        v = wp.array(ptr=p, dtype=float)
        out[0] = v[0]

    with pytest.raises(wp.WarpCodegenTypeError, match=r"wp.array\(\) is missing argument 'shape'"):
        wp.launch(missing_shape, dim=1, inputs=[wp.uint64(0), wp.zeros(1, dtype=float)])


@wp.struct
class Body:
    pos: wp.vec3
    mass: float


@wp.func
def grid_sum(n: int) -> float:
    tmp = wp.zeros(shape=(2, 3), dtype=float)  # created inside a @wp.func
    for i in range(2):
        for j in range(3):
            tmp[i, j] = float(n * i + j)
    s = float(0.0)
    for i in range(2):
        for j in range(3):
            s += tmp[i, j]
    return s


@wp.kernel
def struct_elements(out: wp.array(dtype=float)):
    t = wp.tid()
    bodies = wp.zeros(4, dtype=Body)
    b = Body()
    b.mass = 2.0
    b.pos = wp.vec3(1.0, 2.0, 3.0)
    bodies[1] = b
    bodies[2].mass = 5.0
    out[t] = bodies[1].pos[2] + bodies[2].mass * 10.0 + bodies[0].mass + grid_sum(t) * 100.0


def test_struct_elements_and_arrays_made_in_a_func():
    out = wp.zeros(3, dtype=float)
    wp.launch(struct_elements, dim=3, inputs=[out])
    grid = [sum(float(t * i + j) for i in range(2) for j in range(3)) for t in range(3)]
    np.testing.assert_allclose(out.numpy(), [3.0 + 50.0 + 0.0 + 100.0 * g for g in grid])


@wp.kernel
def rebound_in_branches_and_loops(out: wp.array(dtype=float), n: int):
    t = wp.tid()
    a = wp.zeros(4, dtype=float)
    a[0] = 5.0
    if t > 1:
        a = wp.zeros(4, dtype=float)  # a new array in one branch
        a[0] = 1.0
    b = wp.zeros(3, dtype=float)
    for i in range(n):  # a runtime loop rebinding b: the last iteration's array is seen after it
        b = wp.zeros(3, dtype=float)
        b[i % 3] = float(i)
    out[t] = a[0] + 10.0 * b[0] + 100.0 * b[1] + 1000.0 * b[2]


def test_local_arrays_rebound_in_branches_and_runtime_loops():
    out = wp.zeros(4, dtype=float)
    n = 5
    wp.launch(rebound_in_branches_and_loops, dim=4, inputs=[out, n])
    b = np.zeros(3)
    b[(n - 1) % 3] = n - 1
    last = 10.0 * b[0] + 100.0 * b[1] + 1000.0 * b[2]
    np.testing.assert_allclose(out.numpy(), [5.0 + last, 5.0 + last, 1.0 + last, 1.0 + last])


def test_rebinding_to_another_shape_in_a_loop_is_an_error():
    @wp.kernel
    def reshaped(out: wp.array(dtype=float), n: int):
        b = wp.zeros(3, dtype=float)
        for i in range(n):
            b = wp.zeros(4, dtype=float)
        out[0] = b[0]

    with pytest.raises(wp.WarpCodegenTypeError, match="variable 'b' has type fixedarray"):
        wp.launch(reshaped, dim=1, inputs=[wp.zeros(1, dtype=float), 2])
