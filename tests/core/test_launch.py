"""wp.launch: argument validation, NumPy / __array_interface__ arguments (zero-copy), scalar
argument conversion, concurrent launches from several Python threads, zero-size launches."""

import threading

import numpy as np
import pytest

import warp as wp


@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float, n: int):
    i = wp.tid()
    if i < n:
        y[i] = a * x[i] + y[i]


@wp.kernel
def fill_2d(m: wp.array2d(dtype=wp.float64), v: wp.float64):
    i, j = wp.tid()
    m[i, j] = v + wp.float64(i * 10 + j)


@wp.kernel
def add_one_int(a: wp.array(dtype=int)):
    i = wp.tid()
    a[i] = a[i] + 1


def test_launch_basic_and_outputs_keyword():
    x = wp.array(np.arange(6, dtype=np.float32), dtype=float)
    y = wp.ones(6, dtype=float)
    wp.launch(saxpy, dim=6, inputs=[x, y, 2.0, 4], device="cpu")
    np.testing.assert_array_equal(y.numpy(), [1, 3, 5, 7, 1, 1])
    # trailing parameters may be passed as outputs=[...]
    wp.launch(saxpy, dim=6, inputs=[x, y, 1.0], outputs=[6])
    np.testing.assert_array_equal(y.numpy(), [1, 4, 7, 10, 5, 6])


def test_kernel_without_parameters():
    @wp.kernel
    def no_params():
        i = wp.tid()
        if i > 1000000:
            print("never")

    wp.launch(no_params, dim=4, inputs=[])
    wp.launch(no_params, dim=4)


# -- argument validation -----------------------------------------------------------------------------

def test_wrong_argument_count():
    x = wp.zeros(4, dtype=float)
    with pytest.raises(TypeError, match="saxpy") as info:
        wp.launch(saxpy, dim=4, inputs=[x, x])
    msg = str(info.value)
    assert "'a'" in msg or " a" in msg
    assert "n" in msg
    assert "missing" in msg
    with pytest.raises(TypeError, match="saxpy"):
        wp.launch(saxpy, dim=4, inputs=[x, x, 1.0, 4, 5])
    with pytest.raises(TypeError, match="saxpy"):
        wp.launch(saxpy, dim=4, inputs=[])


def test_wrong_scalar_type():
    x = wp.zeros(4, dtype=float)
    with pytest.raises(TypeError, match="'n'") as info:
        wp.launch(saxpy, dim=4, inputs=[x, x, 1.0, 2.5])
    assert "saxpy" in str(info.value)
    with pytest.raises(TypeError, match="'a'"):
        wp.launch(saxpy, dim=4, inputs=[x, x, "1.0", 4])
    with pytest.raises(TypeError, match="'n'"):
        wp.launch(saxpy, dim=4, inputs=[x, x, 1.0, None])
    with pytest.raises(TypeError, match="'a'"):
        wp.launch(saxpy, dim=4, inputs=[x, x, x, 4])


def test_wrong_array_dtype_or_ndim():
    f = wp.zeros(4, dtype=float)
    with pytest.raises(TypeError, match="'x'") as info:
        wp.launch(saxpy, dim=4, inputs=[wp.zeros(4, dtype=wp.float64), f, 1.0, 4])
    assert "saxpy" in str(info.value)
    with pytest.raises(TypeError, match="'y'"):
        wp.launch(saxpy, dim=4, inputs=[f, wp.zeros(4, dtype=int), 1.0, 4])
    with pytest.raises(TypeError, match="'y'"):
        wp.launch(saxpy, dim=4, inputs=[f, wp.zeros((2, 2), dtype=float), 1.0, 4])
    with pytest.raises(TypeError, match="'m'"):
        wp.launch(fill_2d, dim=(2, 2), inputs=[wp.zeros(4, dtype=wp.float64), 1.0])
    with pytest.raises(TypeError, match="'m'"):
        wp.launch(fill_2d, dim=(2, 2), inputs=[wp.zeros((2, 2), dtype=float), 1.0])
    with pytest.raises(TypeError, match="'x'"):
        wp.launch(saxpy, dim=4, inputs=[3.0, f, 1.0, 4])
    # a good launch after the failures still works
    wp.launch(saxpy, dim=4, inputs=[wp.ones(4, dtype=float), f, 3.0, 4])
    np.testing.assert_array_equal(f.numpy(), [3, 3, 3, 3])


def test_scalar_argument_conversions():
    x = wp.array([1.0, 2.0, 3.0], dtype=float)
    y = wp.zeros(3, dtype=float)
    wp.launch(saxpy, dim=3, inputs=[x, y, np.float32(2.0), np.int64(2)])
    wp.launch(saxpy, dim=3, inputs=[x, y, 1, np.int32(3)])  # an int is fine for a float parameter
    wp.launch(saxpy, dim=3, inputs=[x, y, np.float64(0.5), 3])
    np.testing.assert_array_equal(y.numpy(), [3.5, 7.0, 4.5])
    m = wp.zeros((2, 3), dtype=wp.float64)
    wp.launch(fill_2d, dim=(2, 3), inputs=[m, 0.1])
    np.testing.assert_array_equal(m.numpy(), 0.1 + np.array([[0, 1, 2], [10, 11, 12]], dtype=np.float64))


# -- NumPy and __array_interface__ arguments ----------------------------------------------------------

class InterfaceOnly:
    """An object exposing memory only through ``__array_interface__``."""

    def __init__(self, arr):
        self._arr = arr
        self.__array_interface__ = arr.__array_interface__


def test_numpy_arrays_are_zero_copy_arguments():
    x = np.arange(5, dtype=np.float32)
    y = np.ones(5, dtype=np.float32)
    wp.launch(saxpy, dim=5, inputs=[x, y, 3.0, 5])
    np.testing.assert_array_equal(y, 3 * np.arange(5) + 1)
    m = np.zeros((2, 4), dtype=np.float64)
    wp.launch(fill_2d, dim=(2, 4), inputs=[m, 0.5])
    np.testing.assert_array_equal(m, 0.5 + np.array([[0, 1, 2, 3], [10, 11, 12, 13]]))
    ints = np.array([1, 2, 3], dtype=np.int32)
    wp.launch(add_one_int, dim=3, inputs=[ints])
    assert ints.tolist() == [2, 3, 4]


def test_array_interface_objects_are_zero_copy_arguments():
    backing = np.zeros(4, dtype=np.float32)
    x = InterfaceOnly(np.arange(4, dtype=np.float32))
    y = InterfaceOnly(backing)
    wp.launch(saxpy, dim=4, inputs=[x, y, 2.0, 4])
    np.testing.assert_array_equal(backing, [0, 2, 4, 6])
    backing2 = np.zeros((3, 2), dtype=np.float64)
    wp.launch(fill_2d, dim=(3, 2), inputs=[InterfaceOnly(backing2), 1.0])
    np.testing.assert_array_equal(backing2, 1.0 + np.array([[0, 1], [10, 11], [20, 21]]))


def test_numpy_array_with_wrong_dtype_or_ndim_is_rejected():
    """A NumPy array of another dtype must not be silently copied (kernel writes would be lost)."""
    data = np.zeros(4, dtype=np.float64)
    with pytest.raises(TypeError, match="'x'") as info:
        wp.launch(saxpy, dim=4, inputs=[data, np.zeros(4, dtype=np.float32), 1.0, 4])
    assert "saxpy" in str(info.value)
    with pytest.raises(TypeError, match="'y'"):
        wp.launch(saxpy, dim=4, inputs=[np.zeros(4, dtype=np.float32), data, 1.0, 4])
    with pytest.raises(TypeError, match="'a'"):
        wp.launch(add_one_int, dim=4, inputs=[np.zeros(4, dtype=np.int64)])
    with pytest.raises(TypeError, match="'y'"):
        wp.launch(
            saxpy, dim=4, inputs=[np.zeros(4, dtype=np.float32), np.zeros((2, 2), dtype=np.float32), 1.0, 4]
        )
    with pytest.raises(TypeError, match="'m'"):
        wp.launch(fill_2d, dim=(2, 2), inputs=[InterfaceOnly(np.zeros((2, 2), dtype=np.float32)), 1.0])


def test_warp_array_wrapping_numpy_without_copy():
    data = np.zeros(4, dtype=np.int32)
    a = wp.array(data, dtype=int, copy=False)
    wp.launch(add_one_int, dim=4, inputs=[a])
    assert data.tolist() == [1, 1, 1, 1]
    b = wp.array(data, dtype=int)  # a copy: kernel writes do not reach `data`
    wp.launch(add_one_int, dim=4, inputs=[b])
    assert data.tolist() == [1, 1, 1, 1]
    assert b.numpy().tolist() == [2, 2, 2, 2]


# -- concurrency and sizes -----------------------------------------------------------------------------

def test_concurrent_launches_from_python_threads():
    @wp.kernel
    def threaded(x: wp.array(dtype=float), out: wp.array(dtype=float), k: float):
        i = wp.tid()
        out[i] = x[i] * k + float(i)

    n_threads, n, reps = 8, 20_000, 20
    errors = []
    barrier = threading.Barrier(n_threads)

    def worker(t):
        try:
            x = wp.array(np.full(n, t, dtype=np.float32), dtype=float)
            out = wp.zeros(n, dtype=float)
            barrier.wait()  # the first launches (and the compile) happen at the same time
            for r in range(reps):
                wp.launch(threaded, dim=n, inputs=[x, out, float(r)])
                expected = np.float32(t) * np.float32(r) + np.arange(n, dtype=np.float32)
                if not np.array_equal(out.numpy(), expected):
                    errors.append(f"thread {t} rep {r}: wrong results")
                    return
        except Exception as e:  # pragma: no cover - reported below
            errors.append(f"thread {t}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(n_threads)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []


def test_concurrent_launches_with_parallel_execution(force_parallel):
    n_threads, n = 4, 100_000
    arrays = [wp.zeros(n, dtype=int) for _ in range(n_threads)]
    errors = []

    def worker(a):
        try:
            for _ in range(10):
                wp.launch(add_one_int, dim=n, inputs=[a])
        except Exception as e:  # pragma: no cover
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(a,)) for a in arrays]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    for a in arrays:
        assert (a.numpy() == 10).all()


def test_zero_size_launches_do_nothing():
    y = wp.full(3, 7.0, dtype=float)
    wp.launch(saxpy, dim=0, inputs=[y, y, 1.0, 3])
    wp.launch(fill_2d, dim=(0, 4), inputs=[wp.full((1, 1), 2.0, dtype=wp.float64), 1.0])
    wp.launch(saxpy, dim=0, inputs=[wp.zeros(0, dtype=float), wp.zeros(0, dtype=float), 1.0, 0])
    np.testing.assert_array_equal(y.numpy(), [7.0, 7.0, 7.0])


def test_same_kernel_with_different_array_shapes():
    for n in (1, 5, 33, 1000):
        a = wp.zeros(n, dtype=int)
        wp.launch(add_one_int, dim=n, inputs=[a])
        wp.launch(add_one_int, dim=n // 2, inputs=[a])
        assert a.numpy().tolist() == [2] * (n // 2) + [1] * (n - n // 2)


@wp.kernel
def _store_narrow_floats(x: wp.float32, h: wp.float16, out: wp.array(dtype=wp.float64)):
    out[0] = wp.float64(x)
    out[1] = wp.float64(h)


def test_python_floats_beyond_a_float_parameters_range_become_inf():
    """As NVIDIA Warp (a C float cast): no raw OverflowError from packing."""
    out = wp.zeros(2, dtype=wp.float64)
    for sign in (1.0, -1.0):
        wp.launch(_store_narrow_floats, dim=1, inputs=[sign * 1e300, sign * 1e10, out])
        assert out.numpy().tolist() == [sign * np.inf, sign * np.inf]
    wp.launch(_store_narrow_floats, dim=1, inputs=[3.0e38, 65504.0, out])
    assert out.numpy().tolist() == [float(np.float32(3.0e38)), 65504.0]


# -- composite and struct arguments: single values and None ---------------------------------------


@wp.kernel
def takes_vec3(v: wp.vec3, out: wp.array(dtype=float)):
    out[0] = v[0] + v[1] + v[2]


@wp.struct
class LaunchParams:
    a: float


@wp.kernel
def takes_struct(p: LaunchParams, out: wp.array(dtype=float)):
    out[0] = p.a


def test_single_value_for_composite_parameter_is_rejected():
    out = wp.zeros(1, dtype=float, device="cpu")
    for value in (123, 1.5, wp.float32(1.5), wp.int32(2)):
        with pytest.raises(RuntimeError, match=r"argument 'v' expects vec3f but got a single value"):
            wp.launch(takes_vec3, dim=1, inputs=[value, out], device="cpu")
    with pytest.raises(ValueError, match=r"Failed to convert argument for param v to vec3f"):
        wp.launch(takes_vec3, dim=1, inputs=[None, out], device="cpu")
    for value in ((1.0, 2.0, 3.0), [1.0, 2.0, 3.0], np.array([1.0, 2.0, 3.0]), wp.vec3(1.0, 2.0, 3.0)):
        wp.launch(takes_vec3, dim=1, inputs=[value, out], device="cpu")
        assert out.numpy()[0] == 6.0
    with pytest.warns(DeprecationWarning, match=r"`float32` for the `vec3f`.*deprecated"):
        wp.launch(takes_vec3, dim=1, inputs=[np.float32(2.0), out], device="cpu")
    assert out.numpy()[0] == 6.0


def test_none_for_struct_parameter_is_rejected():
    out = wp.zeros(1, dtype=float, device="cpu")
    with pytest.raises(RuntimeError, match=r"argument 'p' expects LaunchParams but got None"):
        wp.launch(takes_struct, dim=1, inputs=[None, out], device="cpu")
    with pytest.raises(TypeError, match=r"argument 'p' expects LaunchParams but got int"):
        wp.launch(takes_struct, dim=1, inputs=[3, out], device="cpu")
