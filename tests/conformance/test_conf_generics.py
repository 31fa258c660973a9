"""Conformance: the Generics page of Warp's documentation (generic kernels and functions, type
inference at launch, explicit instantiation with wp.overload, type operators)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import warp as wp


@wp.kernel
def scale(x: wp.array(dtype=Any), s: Any):
    i = wp.tid()
    x[i] = s * x[i]


def test_generic_kernel_instantiated_per_type():
    data = [1, 2, 3, 4, 5, 6, 7, 8, 9]
    n = len(data)
    x16 = wp.array(data, dtype=wp.float16)
    x32 = wp.array(data, dtype=wp.float32)
    x64 = wp.array(data, dtype=wp.float64)
    wp.launch(scale, dim=n, inputs=[x16, wp.float16(3)])
    wp.launch(scale, dim=n, inputs=[x32, wp.float32(3)])
    wp.launch(scale, dim=n, inputs=[x64, wp.float64(3)])
    expected = 3.0 * np.array(data)
    for x, t in ((x16, np.float16), (x32, np.float32), (x64, np.float64)):
        assert x.numpy().dtype == t
        np.testing.assert_array_equal(x.numpy(), expected)
    assert str(x32) == "[ 3.  6.  9. 12. 15. 18. 21. 24. 27.]"


def test_type_inference_of_python_scalars():
    """Python ints are int32 and floats float32 when a generic parameter is inferred."""
    xi = wp.array([1, 2], dtype=int)
    wp.launch(scale, dim=2, inputs=[xi, 3])
    assert xi.numpy().tolist() == [3, 6]
    xf = wp.array([1.5, 2.0], dtype=float)
    wp.launch(scale, dim=2, inputs=[xf, 0.5])
    assert xf.numpy().tolist() == [0.75, 1.0]
    with pytest.raises(wp.WarpCodegenTypeError, match="mul"):  # float64 array, float32 scalar: no overload
        wp.launch(scale, dim=2, inputs=[wp.array([1.0, 2.0], dtype=wp.float64), 0.5])


@wp.kernel
def scale_vec(x: wp.array(dtype=Any), m: Any):
    i = wp.tid()
    x[i] = m * x[i]


def test_vectors_and_matrices_passed_as_warp_types():
    v = wp.array([wp.vec3f(1.0, 2.0, 3.0)], dtype=wp.vec3f)
    wp.launch(scale, dim=1, inputs=[v, 2.0])
    assert v.numpy().tolist() == [[2.0, 4.0, 6.0]]
    h = wp.array([wp.vec2h(1.0, 2.0)], dtype=wp.vec2h)
    wp.launch(scale_vec, dim=1, inputs=[h, wp.mat22h([[1.0, 0.0], [0.0, 2.0]])])
    assert h.numpy().tolist() == [[1.0, 4.0]] and h.numpy().dtype == np.float16


@wp.kernel
def scale_explicit(x: wp.array(dtype=Any), s: Any):
    i = wp.tid()
    x[i] = s * x[i]


# explicit instantiation: list of types, dict of generic names, and the decorator form
wp.overload(scale_explicit, [wp.array(dtype=wp.float16), wp.float16])
wp.overload(scale_explicit, {"x": wp.array(dtype=wp.float32), "s": wp.float32})


@wp.overload
def scale_explicit(x: wp.array(dtype=wp.float64), s: wp.float64):  # noqa: F811
    ...


def test_explicit_instantiation():
    for t, np_t in ((wp.float16, np.float16), (wp.float32, np.float32), (wp.float64, np.float64)):
        x = wp.array([1.0, 2.0], dtype=t)
        wp.launch(scale_explicit, dim=2, inputs=[x, t(4.0)])
        assert x.numpy().tolist() == [4.0, 8.0] and x.numpy().dtype == np_t


@wp.func
def square(x: Any):
    return x * x


@wp.kernel
def square_kernel(i: wp.array(dtype=Any), o: wp.array(dtype=Any)):
    tid = wp.tid()
    o[tid] = square(i[tid])


wp.overload(square_kernel, [wp.array(dtype=int), wp.array(dtype=int)])
wp.overload(square_kernel, [wp.array(dtype=float), wp.array(dtype=float)])


def test_generic_functions():
    ai, oi = wp.array([2, -3], dtype=int), wp.zeros(2, dtype=int)
    wp.launch(square_kernel, dim=2, inputs=[ai, oi])
    assert oi.numpy().tolist() == [4, 9]
    af, of = wp.array([1.5, 0.5], dtype=float), wp.zeros(2, dtype=float)
    wp.launch(square_kernel, dim=2, inputs=[af, of])
    assert of.numpy().tolist() == [2.25, 0.25]
    # implicit instantiation for a type not listed above
    ad, od = wp.array([3.0], dtype=wp.float64), wp.zeros(1, dtype=wp.float64)
    wp.launch(square_kernel, dim=1, inputs=[ad, od])
    assert od.numpy().tolist() == [9.0]


@wp.func
def add_one(x: int):
    return x + 1


@wp.func
def add_one(x: float):  # noqa: F811 - a second overload of the same user function
    return x + 1.0


@wp.kernel
def overloads(a: wp.array(dtype=float), b: wp.array(dtype=int)):
    a[0] = add_one(a[0])
    b[0] = add_one(b[0])


def test_user_function_overloads_by_signature():
    a, b = wp.array([1.5], dtype=float), wp.array([1], dtype=int)
    wp.launch(overloads, dim=1, inputs=[a, b])
    assert a.numpy().tolist() == [2.5] and b.numpy().tolist() == [2]


@wp.kernel
def triple_kernel(input: wp.array(dtype=Any), output: wp.array(dtype=Any)):
    tid = wp.tid()
    output[tid] = input.dtype(3) * input[tid]


@wp.func
def triple(x: Any):
    return type(x)(3) * x


@wp.kernel
def triple_type_kernel(a: wp.array(dtype=Any)):
    i = wp.tid()
    a[i] = triple(a[i])


def test_type_operators():
    for t, np_t in ((wp.float64, np.float64), (wp.int16, np.int16), (wp.uint8, np.uint8)):
        a = wp.array([1, 2], dtype=t)
        o = wp.zeros(2, dtype=t)
        wp.launch(triple_kernel, dim=2, inputs=[a, o])
        assert o.numpy().tolist() == [3, 6] and o.numpy().dtype == np_t
        wp.launch(triple_type_kernel, dim=2, inputs=[a])
        assert a.numpy().tolist() == [3, 6]


@wp.kernel
def generic_vector_length(
    v: wp.array(dtype=wp.types.vector(length=Any, dtype=Any)), out: wp.array(dtype=Any)
):
    i = wp.tid()
    out[i] = wp.length(v[i])


@wp.kernel
def generic_matrix_trace(
    m: wp.array(dtype=wp.types.matrix(shape=(Any, Any), dtype=Any)), out: wp.array(dtype=Any)
):
    i = wp.tid()
    out[i] = wp.trace(m[i])


def test_generic_composite_annotations():
    out = wp.zeros(1, dtype=float)
    wp.launch(generic_vector_length, dim=1, inputs=[wp.array([wp.vec2(3.0, 4.0)], dtype=wp.vec2), out])
    assert out.numpy().tolist() == [5.0]
    out4 = wp.zeros(1, dtype=wp.float64)
    wp.launch(generic_vector_length, dim=1, inputs=[wp.array([wp.vec4d(1, 1, 1, 1)], dtype=wp.vec4d), out4])
    assert out4.numpy().tolist() == [2.0]
    outd = wp.zeros(1, dtype=wp.float64)
    m = wp.array([wp.mat33d(1, 0, 0, 0, 2, 0, 0, 0, 3)], dtype=wp.mat33d)
    wp.launch(generic_matrix_trace, dim=1, inputs=[m, outd])
    assert outd.numpy().tolist() == [6.0]


@wp.kernel
def float_only(x: wp.array(dtype=wp.Float), s: wp.Float):
    i = wp.tid()
    x[i] = x[i] * s


def test_constrained_generic_annotations():
    x = wp.array([1.0, 2.0], dtype=wp.float64)
    wp.launch(float_only, dim=2, inputs=[x, wp.float64(2.0)])
    assert x.numpy().tolist() == [2.0, 4.0]
    with pytest.raises(TypeError, match="argument 'x'"):  # an int array does not match Float
        wp.launch(float_only, dim=2, inputs=[wp.array([1, 2], dtype=int), 2])
