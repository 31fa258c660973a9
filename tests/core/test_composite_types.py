"""Vectors, matrices, quaternions and transforms: Python-scope values (construction, indexing,
arithmetic, equality, NumPy conversion, printing), arrays of them, and kernels reading and
writing their components."""

import numpy as np
import pytest

import warp as wp

wp.set_module_options({"enable_backward": False})  # forward behaviour only (gradients are tested elsewhere)


# -- Python scope: construction and component access --------------------------------------------------------
def test_vector_construction_forms():
    assert list(wp.vec3()) == [0.0, 0.0, 0.0]
    assert list(wp.vec3(2.0)) == [2.0, 2.0, 2.0]
    assert list(wp.vec3(1.0, 2.0, 3.0)) == [1.0, 2.0, 3.0]
    assert list(wp.vec3([1, 2, 3])) == [1.0, 2.0, 3.0]
    assert list(wp.vec3(np.array([1.0, 2.0, 3.0]))) == [1.0, 2.0, 3.0]
    assert list(wp.vec3i(1, 2, 3)) == [1, 2, 3]
    assert list(wp.vec4d(1, 2, 3, 4)) == [1.0, 2.0, 3.0, 4.0]
    with pytest.raises(ValueError):
        wp.vec3(1.0, 2.0)


def test_vector_component_access():
    v = wp.vec4(1.0, 2.0, 3.0, 4.0)
    assert (v.x, v.y, v.z, v.w) == (1.0, 2.0, 3.0, 4.0)
    assert v[0] == 1.0 and v[-1] == 4.0
    assert len(v) == 4
    v.x = 10.0
    v[2] = 30.0
    assert list(v) == [10.0, 2.0, 30.0, 4.0]
    assert type(wp.vec3i(1, 2, 3)[0]) is int
    assert type(wp.vec3(1, 2, 3)[0]) is float


def test_matrix_construction_and_indexing():
    m = wp.mat22(1.0, 2.0, 3.0, 4.0)
    assert m[0, 1] == 2.0 and m[1, 0] == 3.0
    row = m[1]
    assert type(row) is wp.vec2 and list(row) == [3.0, 4.0]
    assert m[0][1] == 2.0
    assert len(m) == 2
    m[1, 1] = 9.0
    m[0] = wp.vec2(7.0, 8.0)
    np.testing.assert_array_equal(np.array(m), [[7.0, 8.0], [3.0, 9.0]])
    np.testing.assert_array_equal(np.array(wp.mat33(np.eye(3))), np.eye(3))
    np.testing.assert_array_equal(np.array(wp.mat22([[1, 2], [3, 4]])), [[1, 2], [3, 4]])
    np.testing.assert_array_equal(np.array(wp.mat33()), np.zeros((3, 3)))
    np.testing.assert_array_equal(np.array(wp.mat33(1.5)), np.full((3, 3), 1.5))


def test_composite_type_properties():
    assert wp.vec3 is wp.vec3f and wp.mat33 is wp.mat33f and wp.quat is wp.quatf
    assert wp.types.vector(3, wp.float32) is wp.vec3
    assert wp.types.matrix((3, 3), wp.float64) is wp.mat33d
    assert wp.types.vector(length=5, dtype=wp.float64)._shape_ == (5,)
    assert wp.types.matrix(shape=(3, 2), dtype=wp.float16)._shape_ == (3, 2)
    assert wp.spatial_vector._shape_ == (6,) and wp.spatial_matrix._shape_ == (6, 6)
    assert wp.vec3._wp_scalar_type_ is wp.float32 and wp.vec3h._wp_scalar_type_ is wp.float16


def test_python_scope_arithmetic_and_equality():
    a, b = wp.vec3(1.0, 2.0, 3.0), wp.vec3(4.0, 5.0, 6.0)
    assert a + b == wp.vec3(5.0, 7.0, 9.0)
    assert b - a == wp.vec3(3.0, 3.0, 3.0)
    assert 2.0 * a == wp.vec3(2.0, 4.0, 6.0) and a * 2.0 == 2.0 * a
    assert a / 2.0 == wp.vec3(0.5, 1.0, 1.5)
    assert -a == wp.vec3(-1.0, -2.0, -3.0) and +a == a
    assert a == a and a != b and not (a == b)
    assert a == (1.0, 2.0, 3.0)
    m = wp.mat22(1.0, 2.0, 3.0, 4.0)
    assert m * wp.vec2(1.0, 1.0) == wp.vec2(3.0, 7.0)
    assert wp.vec2(1.0, 1.0) * m == wp.vec2(4.0, 6.0)
    np.testing.assert_array_equal(np.array(m @ m), np.array([[1, 2], [3, 4]]) @ np.array([[1, 2], [3, 4]]))
    assert m + m == 2.0 * m


def test_quaternions_and_transforms_in_python_scope():
    q = wp.quat(0.0, 0.0, 0.0, 1.0)
    assert q.w == 1.0 and q.x == 0.0
    r = wp.quat(1.0, 2.0, 3.0, 4.0)
    assert q * r == r and r * q == r  # identity for the Hamilton product, (i, j, k, w) layout
    i = wp.quat(1.0, 0.0, 0.0, 0.0)
    assert i * i == wp.quat(0.0, 0.0, 0.0, -1.0)
    t = wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat(0.0, 0.0, 0.0, 1.0))
    assert list(t) == [1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 1.0]
    assert t.p == wp.vec3(1.0, 2.0, 3.0) and t.q == wp.quat(0.0, 0.0, 0.0, 1.0)
    assert list(wp.transform()) == [0.0] * 6 + [1.0]  # the identity, as in NVIDIA Warp 1.19


def test_numpy_conversion_and_printing():
    v = wp.vec3(1.0, 2.0, 3.0)
    arr = np.array(v)
    assert arr.dtype == np.float32 and arr.tolist() == [1.0, 2.0, 3.0]
    assert np.asarray(wp.mat33d()).dtype == np.float64
    assert np.array(wp.mat22(1, 2, 3, 4), dtype=np.float64).shape == (2, 2)
    assert str(v) == "[1.0, 2.0, 3.0]"
    assert str(wp.vec2i(1, 2)) == "[1, 2]"
    assert str(wp.mat22(1.0, 2.0, 3.0, 4.0)) == "[[1.0, 2.0],\n [3.0, 4.0]]"


# -- arrays of composite types -------------------------------------------------------------------------------
def test_arrays_of_vectors_and_matrices():
    n = 7
    a = wp.array(np.zeros((n, 3)), dtype=wp.vec3)
    assert a.shape == (n,) and a.dtype is wp.vec3
    assert a.numpy().shape == (n, 3) and a.numpy().dtype == np.float32
    m = wp.zeros((4, 5), dtype=wp.mat33)
    assert m.shape == (4, 5) and m.numpy().shape == (4, 5, 3, 3)
    c = wp.array([wp.vec3(1.0, 2.0, 3.0), wp.vec3(4.0, 5.0, 6.0)], dtype=wp.vec3)
    np.testing.assert_array_equal(c.numpy(), [[1, 2, 3], [4, 5, 6]])
    d = wp.array([[1, 2, 3], [4, 5, 6]], dtype=wp.vec3d)
    assert d.numpy().dtype == np.float64 and d.shape == (2,)
    t = wp.zeros(3, dtype=wp.transform)
    assert t.numpy().shape == (3, 7)
    q = wp.zeros(3, dtype=wp.quatd)
    assert q.numpy().shape == (3, 4)


# -- kernels: reading and writing components -----------------------------------------------------------------
ORIGIN = wp.constant(wp.vec3(1.0, 2.0, 3.0))
SCALE = wp.mat22(2.0, 0.0, 0.0, 3.0)
AXES = wp.constant(wp.mat33(1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0))


@wp.kernel
def component_updates(v: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.mat33), rows: wp.array(dtype=wp.vec3),
                      s: wp.array(dtype=float)):
    i = wp.tid()
    x = v[i]
    x[0] += 1.0
    x.y = x.y * 2.0
    x[2] -= 0.5
    v[i] = x
    a = m[i]
    a[1, 2] = a[1, 2] + 10.0
    a[0] = wp.vec3(7.0, 8.0, 9.0)
    a[2, 0] += 1.0
    m[i] = a
    rows[i] = a[1]
    s[i] = a[1, 1] + a[0][2] + x.x


def test_kernel_component_updates():
    n = 4
    V = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
    M = np.arange(n * 9, dtype=np.float32).reshape(n, 3, 3)
    v, m = wp.array(V, dtype=wp.vec3), wp.array(M, dtype=wp.mat33)
    rows, s = wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=float)
    wp.launch(component_updates, dim=n, inputs=[v, m, rows, s])
    ev = V.copy()
    ev[:, 0] += 1.0
    ev[:, 1] *= 2.0
    ev[:, 2] -= 0.5
    em = M.copy()
    em[:, 1, 2] += 10.0
    em[:, 0] = [7.0, 8.0, 9.0]
    em[:, 2, 0] += 1.0
    np.testing.assert_array_equal(v.numpy(), ev)
    np.testing.assert_array_equal(m.numpy(), em)
    np.testing.assert_array_equal(rows.numpy(), em[:, 1])
    np.testing.assert_array_equal(s.numpy(), em[:, 1, 1] + em[:, 0, 2] + ev[:, 0])


@wp.kernel
def dynamic_indices(v: wp.array(dtype=wp.vec4), m: wp.array2d(dtype=wp.mat22), out: wp.array(dtype=float)):
    i = wp.tid()
    x = v[i]
    total = float(0.0)
    for k in range(4):
        total += x[k] * float(k)
    for r in range(2):
        for c in range(2):
            total += m[i, 1][r, c]
    x[i % 4] = total
    v[i] = x
    out[i] = total


def test_kernel_dynamic_component_indices_and_2d_arrays_of_matrices():
    n = 3
    V = np.arange(n * 4, dtype=np.float32).reshape(n, 4)
    M = np.arange(n * 2 * 4, dtype=np.float32).reshape(n, 2, 2, 2)
    v, m, out = wp.array(V, dtype=wp.vec4), wp.array(M, dtype=wp.mat22), wp.zeros(n, dtype=float)
    assert m.shape == (n, 2)
    wp.launch(dynamic_indices, dim=n, inputs=[v, m, out])
    expected = V @ np.arange(4) + M[:, 1].sum(axis=(1, 2))
    np.testing.assert_allclose(out.numpy(), expected)
    ev = V.copy()
    ev[np.arange(n), np.arange(n) % 4] = expected
    np.testing.assert_allclose(v.numpy(), ev)


@wp.kernel
def global_constants(out: wp.array(dtype=wp.vec3), outm: wp.array(dtype=wp.mat22), d: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = ORIGIN * float(i) + AXES[1]
    outm[i] = SCALE * float(i)
    d[i] = wp.dot(ORIGIN, ORIGIN) + SCALE[1, 1]


@pytest.mark.needs_plugin("builtins")
def test_global_vector_and_matrix_constants():
    n = 3
    out, outm, d = wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=wp.mat22), wp.zeros(n, dtype=float)
    wp.launch(global_constants, dim=n, inputs=[out, outm, d])
    np.testing.assert_array_equal(out.numpy(), np.outer(np.arange(n), [1, 2, 3]) + [0, 1, 0])
    np.testing.assert_array_equal(outm.numpy(), np.arange(n)[:, None, None] * np.array([[2, 0], [0, 3]]))
    np.testing.assert_array_equal(d.numpy(), np.full(n, 14.0 + 3.0))


@wp.kernel
def quat_transform_components(q: wp.array(dtype=wp.quat), t: wp.array(dtype=wp.transform),
                              out: wp.array2d(dtype=float), tq: wp.array(dtype=wp.transform)):
    i = wp.tid()
    a = q[i]
    out[i, 0] = a.w
    out[i, 1] = a.x + a[1] + a.z
    x = t[i]
    out[i, 2] = x[0] + x[6]
    x[1] = 5.0
    x[6] += 1.0
    tq[i] = x


def test_kernel_quaternion_and_transform_components():
    n = 2
    Q = np.arange(n * 4, dtype=np.float32).reshape(n, 4)
    T = np.arange(n * 7, dtype=np.float32).reshape(n, 7)
    q, t = wp.array(Q, dtype=wp.quat), wp.array(T, dtype=wp.transform)
    out, tq = wp.zeros((n, 3), dtype=float), wp.zeros(n, dtype=wp.transform)
    wp.launch(quat_transform_components, dim=n, inputs=[q, t, out, tq])
    np.testing.assert_array_equal(out.numpy()[:, 0], Q[:, 3])
    np.testing.assert_array_equal(out.numpy()[:, 1], Q[:, 0] + Q[:, 1] + Q[:, 2])
    np.testing.assert_array_equal(out.numpy()[:, 2], T[:, 0] + T[:, 6])
    et = T.copy()
    et[:, 1] = 5.0
    et[:, 6] += 1.0
    np.testing.assert_array_equal(tq.numpy(), et)


@wp.kernel
def constructors_in_kernels(
    out: wp.array(dtype=wp.vec3), outm: wp.array(dtype=wp.mat33), s: wp.array(dtype=float)
):
    i = wp.tid()
    f = float(i)
    a = wp.vec3(f, 2.0, 3.0)
    b = wp.vec3()
    c = wp.vec3(f)
    out[i] = a + b + c
    m = wp.mat33(a, c, wp.vec3(0.0, 0.0, 1.0))
    outm[i] = m
    d = wp.vec3d(a)
    s[i] = float(d[0]) + float(wp.vec2i(3, 4)[1])


@pytest.mark.needs_plugin("builtins")
@pytest.mark.filterwarnings("ignore:constructing mat33f from vectors:DeprecationWarning")
def test_constructors_in_kernels():
    n = 3
    out, outm, s = wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=wp.mat33), wp.zeros(n, dtype=float)
    wp.launch(constructors_in_kernels, dim=n, inputs=[out, outm, s])
    f = np.arange(n, dtype=np.float32)
    np.testing.assert_array_equal(out.numpy(), np.stack([2 * f, 2 + f, 3 + f], axis=1))
    # wp.mat33(a, c, e) in a kernel takes the vectors as columns, as NVIDIA Warp does
    expected = np.zeros((n, 3, 3), dtype=np.float32)
    expected[:, :, 0] = np.stack([f, np.full(n, 2.0), np.full(n, 3.0)], axis=1)
    expected[:, :, 1] = f[:, None]
    expected[:, :, 2] = [0, 0, 1]
    np.testing.assert_array_equal(outm.numpy(), expected)
    np.testing.assert_array_equal(s.numpy(), f + 4.0)


def test_component_type_errors_in_kernels():
    @wp.kernel
    def assign_double_component(v: wp.array(dtype=wp.vec3)):
        x = v[0]
        x[0] = wp.float64(1.0)

    @wp.kernel
    def constant_index_out_of_range(v: wp.array(dtype=wp.vec3)):
        x = v[0]
        y = x[3]

    for k in (assign_double_component, constant_index_out_of_range):
        with pytest.raises(wp.WarpCodegenError):
            wp.launch(k, dim=1, inputs=[wp.zeros(1, dtype=wp.vec3)])


def test_named_literal_keeps_full_precision_in_typed_constructors():
    # ``x = 0.1`` binds a float32 name; a float64 constructor converts it from its Python value
    # (as it does a literal), and the name itself is left as it was
    @wp.kernel
    def named_literals(values: wp.array(dtype=wp.float64), counts: wp.array(dtype=wp.int32)):
        x = 0.1
        n = 3
        d = wp.vec3d(x, 0.0, wp.float64(n))
        values[0] = d[0]
        values[1] = wp.float64(x)
        values[2] = d[2]
        f = wp.vec3f(4.0, 5.0, 6.0)
        counts[0] = n
        counts[1] = wp.int32(f[0:n][2])

    values, counts = wp.zeros(3, dtype=wp.float64), wp.zeros(2, dtype=wp.int32)
    wp.launch(named_literals, dim=1, inputs=[values, counts])
    np.testing.assert_array_equal(values.numpy(), np.array([0.1, 0.1, 3.0], dtype=np.float64))
    np.testing.assert_array_equal(counts.numpy(), [3, 6])


def test_named_float_constant_is_not_an_integer_component():
    @wp.kernel
    def float_into_int_vector(out: wp.array(dtype=wp.vec2i)):
        x = 1.5
        out[0] = wp.vec2i(x, 2)

    with pytest.raises(wp.WarpCodegenError, match=r"vec2i got a float32 component"):
        wp.launch(float_into_int_vector, dim=1, inputs=[wp.zeros(1, dtype=wp.vec2i)])


MAT32D = wp.types.matrix(shape=(3, 2), dtype=wp.float64)


def test_typed_constructors_take_keywords_restating_their_type():
    @wp.kernel
    def restated(out: wp.array(dtype=MAT32D), vout: wp.array(dtype=wp.vec3)):
        c = MAT32D(wp.float64(1.5))
        out[0] = MAT32D(c, shape=(3, 2), dtype=wp.float64)
        vout[0] = wp.vec3(1.0, 2.0, 3.0, length=3, dtype=float)

    out, vout = wp.zeros(1, dtype=MAT32D), wp.zeros(1, dtype=wp.vec3)
    wp.launch(restated, dim=1, inputs=[out, vout])
    np.testing.assert_array_equal(out.numpy()[0], np.full((3, 2), 1.5))
    np.testing.assert_array_equal(vout.numpy()[0], [1.0, 2.0, 3.0])


@wp.kernel(module="unique")
def _other_shape():
    c = MAT32D()
    d = MAT32D(c, shape=(2, 3))  # noqa: F841


@wp.kernel(module="unique")
def _other_dtype():
    c = MAT32D()
    d = MAT32D(c, dtype=wp.float32)  # noqa: F841


@wp.kernel(module="unique")
def _other_keyword():
    v = wp.vec3(1.0, shape=(3,))  # noqa: F841


@pytest.mark.parametrize(
    "kernel, message",
    [
        (
            _other_shape,
            r"matrix\(shape=\(3, 2\), dtype=float64\)\(\) got shape=\(2, 3\), "
            r"but the type's shape is \(3, 2\)",
        ),
        (_other_dtype, r"got dtype=float32, but the type's dtype is float64"),
        (_other_keyword, r"vec3f\(\) got an unexpected keyword argument 'shape'"),
    ],
)
def test_typed_constructor_keywords_must_match_the_type(kernel, message):
    with pytest.raises(wp.WarpCodegenError, match=message):
        wp.launch(kernel, dim=1, inputs=[])


def test_vector_component_names_beyond_the_length_are_not_attributes():
    v2 = wp.vec2(1.0, 2.0)
    assert (v2.x, v2.y) == (1.0, 2.0)
    assert not hasattr(v2, "z") and not hasattr(v2, "w")
    with pytest.raises(AttributeError, match="no attribute 'z'$"):
        v2.z = 9.0
    v3 = wp.vec3(1.0, 2.0, 3.0)
    for name in ("xy", "xyz", "foo"):
        with pytest.raises(AttributeError, match=f"no attribute '{name}'$"):
            getattr(v3, name)
    with pytest.raises(AttributeError, match="no attribute 'xy'$"):
        v3.xy = 9.0  # a swizzle name is not an ordinary attribute
    v3.z = 7.0
    v3.foo = 9  # other names are ordinary Python attributes
    assert v3.foo == 9 and list(v3) == [1.0, 2.0, 7.0]


# -- generic family names (Warp's _wp_generic_type_str_) ---------------------------------------------------
@pytest.mark.parametrize(
    ("t", "expected"),
    [
        (wp.vec3, "vec_t"),
        (wp.types.vector(5, wp.int8), "vec_t"),
        (wp.spatial_vector, "vec_t"),
        (wp.mat22, "mat_t"),
        (wp.types.matrix((2, 3), wp.float64), "mat_t"),
        (wp.quat, "quat_t"),
        (wp.transform, "transform_t"),
        (wp.types.vector(length=3, dtype=wp.types.Any), "vec_t"),
        (wp.types.matrix(shape=(2, 2), dtype=wp.types.Any), "mat_t"),
    ],
)
def test_generic_type_str_names_the_family(t, expected):
    assert t._wp_generic_type_str_ == expected


def test_inferred_full_dtype_reports_its_family():
    a = wp.full(3, [1.0, 2.0, 3.0, 4.0], device="cpu")
    assert a.dtype._wp_generic_type_str_ == "vec_t" and a.dtype._length_ == 4
    m = wp.full(2, [[1, 2, 3], [4, 5, 6]], device="cpu")
    assert m.dtype._wp_generic_type_str_ == "mat_t" and m.dtype._shape_ == (2, 3)
    np.testing.assert_array_equal(m.numpy(), np.tile(np.array([[1, 2, 3], [4, 5, 6]]), (2, 1, 1)))
