"""The type factories of ``warp.types`` as generic constructors in kernels: ``wp.types.vector``,
``wp.types.matrix``, ``wp.types.quaternion`` and ``wp.types.transformation`` called in a kernel
build values (as ``wp.vector`` & co. do), and their errors name what is wrong."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp


@wp.kernel(module="unique")
def _generic(a: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float32)):
    v = wp.types.vector(a[0], a[1], a[2])  # float64 inferred
    w = wp.types.vector(v, dtype=wp.float32)  # converted
    f = wp.types.vector(wp.float32(2.0), length=4)  # filled
    m = wp.types.matrix(1.0, 2.0, 3.0, 4.0, shape=(2, 2), dtype=wp.float32)
    q = wp.types.quaternion(0.0, 0.0, 0.0, 1.0, dtype=wp.float32)
    t = wp.types.transformation(wp.vec3(1.0, 2.0, 3.0), q, dtype=wp.float32)
    out[0] = w[0] + w[1] + w[2]
    out[1] = f[3]
    out[2] = m[1, 0]
    out[3] = wp.transform_point(t, wp.vec3(0.0, 0.0, 0.0))[2]


def test_type_factories_construct_in_kernels():
    a = np.array([0.5, 1.25, 2.0])
    out = wp.zeros(4, dtype=wp.float32)
    wp.launch(_generic, dim=1, inputs=[wp.array(a, dtype=wp.float64), out])
    np.testing.assert_allclose(out.numpy(), [a.sum(), 2.0, 3.0, 3.0], rtol=1e-6)


def _compile_error(body) -> str:
    k = wp.Kernel(body, module="unique")
    with pytest.raises(RuntimeError) as info:
        wp.launch(k, dim=1, inputs=[])
    return str(info.value)


def test_generic_vector_errors():
    def no_length():
        wp.types.vector()

    def mixed():
        wp.types.vector(1.0, 2)

    def count():
        wp.types.vector(1.0, 2.0, length=5)

    assert _compile_error(no_length).endswith(
        "the `length` argument must be specified when zero-initializing a vector")
    assert _compile_error(mixed).endswith(
        "all values given when constructing a vector must have the same type")
    assert _compile_error(count).endswith(
        "incompatible number of values given (2) when constructing a vector of length 5")


def test_copy_construct_size_mismatch_names_both_sizes():
    def anon_vec():
        wp.types.vector(wp.types.vector(length=2, dtype=float), length=3, dtype=float)

    def vec():
        wp.vec3(wp.vec2(1.0, 2.0))

    def anon_mat():
        wp.types.matrix(wp.types.matrix(shape=(1, 2), dtype=float), shape=(3, 4), dtype=float)

    def mat():
        wp.mat33(wp.mat22(1.0, 2.0, 3.0, 4.0))

    warp_wording = "incompatible vector of length 3 given when copy constructing a vector of length 2"
    message = _compile_error(anon_vec)
    assert "in 'anon_vec' at " in message
    assert "cannot convert a vector of length 2 to a vector of length 3" in message
    # NVIDIA Warp's wording closes the message: the constructed size first, then the source's
    assert message.endswith(warp_wording)
    message = _compile_error(vec)
    assert "cannot convert vec2f to vec3f (different shapes)" in message
    assert message.endswith(warp_wording)
    assert _compile_error(anon_mat).endswith(
        "incompatible matrix of shape (3, 4) given when copy constructing a matrix of shape (1, 2)")
    assert _compile_error(mat).endswith(
        "incompatible matrix of shape (3, 3) given when copy constructing a matrix of shape (2, 2)")


def test_component_type_error_ends_with_the_expected_type():
    def wrong(x: wp.float64):
        wp.vec2(x, x)

    k = wp.Kernel(wrong, module="unique")
    with pytest.raises(wp.WarpCodegenTypeError) as info:
        wp.launch(k, dim=1, inputs=[wp.float64(1.0)])
    assert str(info.value).endswith("expected to be of the type `float32`")


def test_expect_eq_of_different_types_says_why():
    def body():
        wp.expect_neq(wp.vec3f(0.0, 0.0, 0.0), wp.vec2f(0.0, 0.0))

    assert _compile_error(body).endswith("Can't test equality for objects with different types")
