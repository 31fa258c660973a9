"""Kernel language: wp.constant (module globals and class attributes) and print()."""

import numpy as np
import pytest

import warp as wp

TYPE_SPHERE = wp.constant(0)
TYPE_CUBE = wp.constant(1)
TYPE_CAPSULE = wp.constant(2)
SCALE = wp.constant(2.5)
COUNT = wp.constant(6)
BIG_COUNT = wp.constant(40)
SMALL_U8 = wp.constant(wp.uint8(250))
HALF64 = wp.constant(wp.float64(0.1))


class Params:
    X = wp.constant(2)
    GAIN = wp.constant(0.75)


class Outer:
    class Inner:
        Y = wp.constant(-7)


def test_module_and_class_constants():
    @wp.kernel
    def use_constants(x: wp.array(dtype=float), out: wp.array2d(dtype=float), iout: wp.array2d(dtype=int),
                      u8: wp.array(dtype=wp.uint8), f64: wp.array(dtype=wp.float64)):
        i = wp.tid()
        out[i, 0] = x[i] * SCALE
        out[i, 1] = x[i] * Params.GAIN + SCALE
        iout[i, 0] = i * Params.X + TYPE_CAPSULE
        iout[i, 1] = Outer.Inner.Y * i
        s = 0
        for k in range(COUNT):
            s += k
        iout[i, 2] = s
        t = 0
        for k in range(BIG_COUNT):
            t += k * Params.X
        iout[i, 3] = t
        iout[i, 4] = int(i == TYPE_CUBE)
        u8[i] = SMALL_U8 + wp.uint8(i * 3)
        f64[i] = HALF64 * wp.float64(i)

    n = 4
    xs = np.array([0.5, -1.0, 2.0, 4.25], dtype=np.float32)
    out, iout = wp.zeros((n, 2), dtype=float), wp.zeros((n, 5), dtype=int)
    u8, f64 = wp.zeros(n, dtype=wp.uint8), wp.zeros(n, dtype=wp.float64)
    wp.launch(use_constants, dim=n, inputs=[wp.array(xs, dtype=float), out, iout, u8, f64])
    f = np.float32
    np.testing.assert_array_equal(out.numpy()[:, 0], xs * f(2.5))
    np.testing.assert_array_equal(out.numpy()[:, 1], xs * f(0.75) + f(2.5))
    for i in range(n):
        assert iout.numpy()[i].tolist() == [i * 2 + 2, -7 * i, sum(range(6)), 2 * sum(range(40)), int(i == 1)]
    assert u8.numpy().tolist() == [(250 + 3 * i) % 256 for i in range(n)]
    assert f64.numpy().tolist() == [0.1 * i for i in range(n)]


def test_constants_select_branches_and_print(capfd):
    """The example of the runtime reference: constants compared against array values, print()."""

    @wp.kernel
    def collide(geometry: wp.array(dtype=int)):
        t = geometry[wp.tid()]
        if t == TYPE_SPHERE:
            print("sphere")
        if t == TYPE_CUBE:
            print("cube")
        if t == TYPE_CAPSULE:
            print("capsule")

    capfd.readouterr()
    wp.launch(collide, dim=3, inputs=[wp.array([2, 0, 1], dtype=int)])
    out = capfd.readouterr().out
    assert out.splitlines() == ["capsule", "sphere", "cube"]


def test_print_values(capfd):
    @wp.kernel
    def printer(i: int, x: float, big: wp.int64, u: wp.uint8, d: wp.float64, neg: int):
        print("value", i, x)
        print(big, u)
        print("d =", d, "neg", neg)

    capfd.readouterr()
    wp.launch(printer, dim=1, inputs=[3, 1.5, 2**40 + 3, 200, 0.25, -17])
    out = capfd.readouterr().out
    assert out.splitlines() == ["value 3 1.5", f"{2**40 + 3} 200", "d = 0.25 neg -17"]


def test_print_from_several_threads(capfd):
    @wp.kernel
    def print_tid(offset: int):
        i = wp.tid()
        print("thread", i + offset)

    capfd.readouterr()
    wp.launch(print_tid, dim=5, inputs=[10])
    out = capfd.readouterr().out
    assert sorted(out.splitlines()) == [f"thread {i}" for i in range(10, 15)]


def test_printf_formats_like_c(capfd):
    @wp.kernel
    def k(x: float):
        i = wp.tid()
        wp.printf("i=%d x=%.2f ok=%d\n", i, x * float(i), i > 0)

    wp.launch(k, dim=1, inputs=[1.5], device="cpu")
    wp.launch(k, dim=(1,), inputs=[2.0])
    out = capfd.readouterr().out
    assert out.count("i=0 x=0.00 ok=0") == 2


def test_printf_needs_a_literal_format():
    @wp.kernel
    def k(x: float):
        fmt = 1
        wp.printf(fmt, x)

    with pytest.raises(wp.WarpCodegenTypeError, match="format of wp.printf must be a string literal"):
        wp.launch(k, dim=1, inputs=[1.0])


def test_float64_constructor_keeps_literal_precision():
    # wp.float64(<python float>) converts the literal's exact value, not a float32 rounding of it
    @wp.kernel
    def f64_literals(out: wp.array(dtype=wp.float64)):
        out[0] = out[0] + wp.float64(3.141592653589793)
        out[1] = wp.float64(wp.PI) + wp.float64(1.0)
        x = 0.1  # a name bound to a literal converts from the literal's value (as in Warp)
        out[2] = wp.float64(x)
        y = wp.float32(0.1)  # a typed float32 value keeps its float32 value
        out[3] = wp.float64(y)

    out = wp.zeros(4, dtype=wp.float64)
    wp.launch(f64_literals, dim=1, inputs=[out])
    got = out.numpy()
    assert got[0] == np.pi
    assert got[1] == np.pi + 1.0
    assert got[2] == 0.1
    assert got[3] == np.float64(np.float32(0.1))


def test_printf_takes_at_most_32_values(capfd):
    @wp.kernel
    def thirty_two():
        wp.printf(
            "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
            "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d\n",
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
            16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
        )  # fmt: skip

    @wp.kernel
    def thirty_three():
        wp.printf(
            "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
            "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d\n",
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
            16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,
        )  # fmt: skip

    wp.launch(thirty_two, dim=1)
    assert capfd.readouterr().out.strip() == " ".join(str(i) for i in range(32))
    with pytest.raises(RuntimeError, match=r"variadic arguments that can be passed to `printf` is 32$"):
        wp.launch(thirty_three, dim=1)
