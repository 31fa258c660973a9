"""Utility builtins of Warp's reference: the Python builtins in kernels (``wp.print``,
``wp.range``), the in-place updates (``wp.add_inplace(v, i, x)`` is ``v[i] += x``, ...), and the
error for the code-generation helpers this implementation leaves out."""

import numpy as np

import pytest

import warp as wp


@wp.kernel
def wp_range_loops(n: int, out: wp.array(dtype=int)):
    s = int(0)
    for i in wp.range(n):
        s += i
    for i in wp.range(1, 7, 2):
        s += 100 * i
    for i in wp.reversed(wp.range(3)):
        s = s * 10 + i
    out[0] = s


def test_wp_range_and_wp_reversed_are_range_and_reversed():
    out = wp.zeros(1, dtype=int)
    wp.launch(wp_range_loops, dim=1, inputs=[5, out])
    s = sum(range(5)) + 100 * sum(range(1, 7, 2))
    for i in reversed(range(3)):
        s = s * 10 + i
    assert out.numpy()[0] == s


def test_wp_print_prints_like_print(capfd):
    @wp.kernel
    def prints(x: float):
        wp.print(x)
        wp.print(wp.vec2(1.0, 2.5))

    wp.launch(prints, dim=1, inputs=[0.25])
    wp.synchronize()
    out = capfd.readouterr().out
    assert out.splitlines()[-2:] == ["0.25", "1 2.5 "]


@wp.struct
class Holder:
    v: wp.vec3


@wp.kernel
def inplace_updates(a: wp.array(dtype=wp.vec3), out: wp.array(dtype=float), bits: wp.array(dtype=wp.vec2i)):
    t = wp.tid()
    v = wp.vec3(1.0, 2.0, 3.0)
    wp.add_inplace(v, 0, 10.0)
    wp.sub_inplace(v, 2, 1.0)
    m = wp.mat22()
    wp.assign_inplace(m, 1, 0, 5.0)
    wp.add_inplace(m, 0, wp.vec2(1.0, 2.0))  # a whole row
    wp.add_inplace(a[t], 1, 100.0)  # an array element: atomic, as a[t][1] += 100.0
    wp.assign_inplace(a[t], 2, float(t))
    h = Holder()
    wp.assign_inplace(h.v, 2, 7.0)
    b = wp.vec2i(12, 10)
    wp.bit_and_inplace(b, 0, 6)
    wp.bit_or_inplace(b, 1, 5)
    wp.bit_xor_inplace(b, 1, 1)
    bits[t] = b
    out[t] = v[0] + v[2] * 100.0 + m[1, 0] * 1000.0 + h.v[2] * 10000.0 + m[0, 1] * 100000.0


@pytest.mark.needs_plugin("builtins")
def test_inplace_builtins_update_their_first_argument():
    n = 3
    a0 = np.arange(3 * n, dtype=np.float32).reshape(n, 3)
    a = wp.array(a0, dtype=wp.vec3)
    out = wp.zeros(n, dtype=float)
    bits = wp.zeros(n, dtype=wp.vec2i)
    wp.launch(inplace_updates, dim=n, inputs=[a, out, bits])
    ref_a = a0.copy()
    ref_a[:, 1] += 100.0
    ref_a[:, 2] = np.arange(n)
    np.testing.assert_array_equal(a.numpy(), ref_a)
    v = np.array([1.0 + 10.0, 2.0, 3.0 - 1.0])
    expected = v[0] + v[2] * 100.0 + 5.0 * 1000.0 + 7.0 * 10000.0 + 2.0 * 100000.0
    np.testing.assert_allclose(out.numpy(), [expected] * n)
    assert bits.numpy().tolist() == [[12 & 6, (10 | 5) ^ 1]] * n


@wp.kernel
def inplace_in_runtime_loop(n: int, out: wp.array(dtype=wp.vec3)):
    v = wp.vec3()
    h = Holder()
    for i in range(n):  # the updated variables are carried from iteration to iteration
        wp.add_inplace(v, i % 3, 1.0)
        wp.sub_inplace(h.v, 0, 2.0)
    out[0] = v
    out[1] = h.v


def test_inplace_updates_carry_through_runtime_loops():
    out = wp.zeros(2, dtype=wp.vec3)
    wp.launch(inplace_in_runtime_loop, dim=1, inputs=[7, out])
    counts = np.bincount(np.arange(7) % 3, minlength=3)
    np.testing.assert_array_equal(out.numpy(), [counts, [-14.0, 0.0, 0.0]])


def test_inplace_builtin_needs_an_updatable_first_argument():
    @wp.kernel
    def on_a_call(out: wp.array(dtype=float)):
        wp.add_inplace(wp.vec3(), 0, 1.0)

    with pytest.raises(
        wp.WarpCodegenTypeError, match="must be a variable, a struct field or an array element"
    ):
        wp.launch(on_a_call, dim=1, inputs=[wp.zeros(1, dtype=float)])


@wp.kernel
def uses_transform_add_inplace(out: wp.array(dtype=float)):
    t = wp.transform_identity()
    wp.transform_add_inplace(t, wp.vec3(1.0, 2.0, 3.0))


@wp.kernel
def uses_address(out: wp.array(dtype=float)):
    p = wp.address(out, 0)


@wp.kernel
def uses_indexref(out: wp.array(dtype=float)):
    p = wp.indexref(wp.vec3(), 0)


@pytest.mark.parametrize(
    "kernel,name",
    [
        pytest.param(uses_transform_add_inplace, "transform_add_inplace",
                     marks=pytest.mark.needs_plugin("builtins")),  # wp.transform_identity
        (uses_address, "address"),
        (uses_indexref, "indexref"),
    ],
)
def test_codegen_helpers_are_named_as_not_provided(kernel, name):
    with pytest.raises(wp.WarpCodegenNameError) as info:
        wp.launch(kernel, dim=1, inputs=[wp.zeros(1, dtype=float)])
    msg = str(info.value)
    assert f"'wp.{name}' is a kernel builtin of NVIDIA Warp that this implementation does not provide" in msg
    assert "coming-from-warp.md" in msg
    assert f"uses_{name}" in msg
