"""Generic kernels and functions (``typing.Any``, ``wp.Scalar``/``Float``/``Int``, generic arrays,
vectors and matrices), instances per argument types at launch, explicit ``wp.overload``, and the
type-dependent constructs of generic code (``type(x)``, ``a.dtype``)."""

import glob
import os
from typing import Any

import numpy as np
import pytest

import warp as wp


@wp.kernel
def scale(x: wp.array(dtype=Any), s: Any):
    i = wp.tid()
    x[i] = s * x[i]


def test_generic_kernel_from_the_docs():
    data = [1, 2, 3, 4, 5, 6, 7, 8, 9]
    n = len(data)
    x16 = wp.array(data, dtype=wp.float16)
    x32 = wp.array(data, dtype=wp.float32)
    x64 = wp.array(data, dtype=wp.float64)
    wp.launch(scale, dim=n, inputs=[x16, wp.float16(3)])
    wp.launch(scale, dim=n, inputs=[x32, wp.float32(3)])
    wp.launch(scale, dim=n, inputs=[x64, wp.float64(3)])
    expected = 3.0 * np.array(data)
    for arr, np_type in ((x16, np.float16), (x32, np.float32), (x64, np.float64)):
        assert arr.numpy().dtype == np_type
        np.testing.assert_array_equal(arr.numpy(), expected.astype(np_type))
    assert scale.is_generic
    assert len([k for k in scale.overloads if k[0].dtype in (wp.float16, wp.float32, wp.float64)]) >= 3


def test_python_scalars_are_int32_and_float32():
    @wp.kernel
    def record(x: Any, y: Any, out_i: wp.array(dtype=wp.int32), out_f: wp.array(dtype=wp.float32)):
        out_i[0] = x
        out_f[0] = y

    oi = wp.zeros(1, dtype=wp.int32)
    of = wp.zeros(1, dtype=wp.float32)
    wp.launch(record, dim=1, inputs=[7, 2.5, oi, of])
    assert oi.numpy()[0] == 7 and of.numpy()[0] == 2.5
    inst = record.get_overload(
        [wp.int32, wp.float32, wp.array(dtype=wp.int32).array_type, wp.array(dtype=wp.float32).array_type]
    )
    assert inst is not None and inst.arg_types[:2] == [wp.int32, wp.float32]


def test_mismatched_python_int_is_a_type_error_at_compile_time():
    x16 = wp.array([1.0, 2.0], dtype=wp.float16)
    with pytest.raises(
        wp.WarpCodegenTypeError, match="no overload of 'mul' accepts arguments \\(int32, float16\\)"
    ):
        wp.launch(scale, dim=2, inputs=[x16, 3])
    # the failed instance is not kept: loading the module afterwards does not trip over it
    assert not any(k[0].dtype is wp.float16 and k[1] is wp.int32 for k in scale.overloads)


def test_uninferable_argument_names_the_parameter():
    x = wp.zeros(3, dtype=float)
    with pytest.raises(TypeError, match=r"kernel 'scale', argument 's': cannot infer a type .* from list"):
        wp.launch(scale, dim=3, inputs=[x, [1.0, 2.0]])
    with pytest.raises(
        TypeError,
        match=r"argument 'x': expected array\(dtype=Any, ndim=1\), got "
        r"array\(dtype=float32, ndim=2\)",
    ):
        wp.launch(scale, dim=3, inputs=[wp.zeros((3, 2), dtype=float), 1.0])


def test_scalar_float_int_placeholders():
    @wp.kernel
    def axpy(a: wp.Float, x: wp.array(dtype=wp.Float), y: wp.array(dtype=wp.Float)):
        i = wp.tid()
        y[i] = a * x[i] + y[i]

    @wp.kernel
    def count_odd(x: wp.array(dtype=wp.Int), n: wp.array(dtype=wp.Int)):
        i = wp.tid()
        if x[i] % type(x[i])(2) == type(x[i])(1):
            wp.atomic_add(n, 0, type(x[i])(1))

    @wp.kernel
    def total(x: wp.array(dtype=wp.types.Scalar), out: wp.array(dtype=wp.types.Scalar)):
        wp.atomic_add(out, 0, x[wp.tid()])

    for dt, np_dt in ((wp.float32, np.float32), (wp.float64, np.float64)):
        x = wp.array(np.arange(5, dtype=np_dt))
        y = wp.array(np.ones(5, dtype=np_dt))
        wp.launch(axpy, dim=5, inputs=[dt(2.0), x, y])
        np.testing.assert_array_equal(y.numpy(), 2 * np.arange(5, dtype=np_dt) + 1)
    for dt, np_dt in ((wp.int32, np.int32), (wp.int64, np.int64), (wp.uint32, np.uint32)):
        x = wp.array(np.arange(11, dtype=np_dt))
        n = wp.zeros(1, dtype=dt)
        wp.launch(count_odd, dim=11, inputs=[x, n])
        assert n.numpy()[0] == 5
    for dt in (wp.int32, wp.float64):
        out = wp.zeros(1, dtype=dt)
        wp.launch(total, dim=4, inputs=[wp.array([1, 2, 3, 4], dtype=dt), out])
        assert out.numpy()[0] == 10

    with pytest.raises(TypeError, match=r"argument 'a': expected Float, got int32"):
        wp.launch(axpy, dim=1, inputs=[1, wp.zeros(1, dtype=float), wp.zeros(1, dtype=float)])
    with pytest.raises(
        TypeError, match=r"argument 'x': expected array\(dtype=Int, ndim=1\), got array\(dtype=float32"
    ):
        wp.launch(count_odd, dim=1, inputs=[wp.zeros(1, dtype=float), wp.zeros(1, dtype=int)])
    with pytest.raises(TypeError, match=r"expected array\(dtype=Scalar, ndim=1\), got array\(dtype=bool"):
        wp.launch(total, dim=1, inputs=[wp.zeros(1, dtype=wp.bool), wp.zeros(1, dtype=wp.bool)])


@pytest.mark.needs_plugin("builtins")
def test_generic_vectors_and_matrices():
    @wp.kernel
    def lengths(v: wp.array(dtype=wp.vector(length=Any, dtype=wp.Float)), out: wp.array(dtype=Any)):
        i = wp.tid()
        out[i] = wp.length(v[i])

    @wp.kernel
    def traces(m: wp.array(dtype=wp.matrix(shape=(Any, Any), dtype=Any)), out: wp.array(dtype=Any)):
        i = wp.tid()
        out[i] = wp.trace(m[i])

    rng = np.random.default_rng(1)
    for n, dt, np_dt in (
        (3, wp.float32, np.float32),
        (5, wp.float64, np.float64),
        (2, wp.float16, np.float16),
    ):
        vals = rng.uniform(-2, 2, size=(4, n)).astype(np_dt)
        v = wp.array(vals, dtype=wp.vector(length=n, dtype=dt))
        out = wp.zeros(4, dtype=dt)
        wp.launch(lengths, dim=4, inputs=[v, out])
        tol = 2e-3 if np_dt == np.float16 else 1e-6
        np.testing.assert_allclose(out.numpy(), np.linalg.norm(vals.astype(np.float64), axis=1), rtol=tol)
    for shape, dt, np_dt in (
        ((3, 3), wp.float32, np.float32),
        ((4, 4), wp.float64, np.float64),
        ((2, 2), wp.int32, np.int32),
    ):
        vals = rng.integers(-5, 5, size=(3, *shape)).astype(np_dt)
        m = wp.array(vals, dtype=wp.matrix(shape=shape, dtype=dt))
        out = wp.zeros(3, dtype=dt)
        wp.launch(traces, dim=3, inputs=[m, out])
        np.testing.assert_array_equal(out.numpy(), np.trace(vals, axis1=1, axis2=2))
    with pytest.raises(
        TypeError, match=r"argument 'v': expected array\(dtype=vector\(length=Any, dtype=Float\)"
    ):
        wp.launch(lengths, dim=1, inputs=[wp.zeros(1, dtype=wp.vec3i), wp.zeros(1, dtype=int)])


@pytest.mark.needs_plugin("builtins")
def test_generic_value_parameters_take_warp_composites():
    @wp.kernel
    def fill(v: wp.vector(length=3, dtype=Any), out: wp.array(dtype=Any)):
        i = wp.tid()
        out[i] = v * type(v[0])(i)

    out = wp.zeros(3, dtype=wp.vec3d)
    wp.launch(fill, dim=3, inputs=[wp.vec3d(1.0, 2.0, 3.0), out])
    np.testing.assert_array_equal(out.numpy(), np.outer(np.arange(3), [1.0, 2.0, 3.0]))
    with pytest.raises(
        TypeError,
        match="cannot infer a type for generic parameter vector\\(length=3, dtype=Any\\) from tuple",
    ):
        wp.launch(fill, dim=3, inputs=[(1.0, 2.0, 3.0), out])


def test_generic_2d_array_and_numpy_inputs():
    @wp.kernel
    def row_sums(m: wp.array2d(dtype=Any), out: wp.array(dtype=Any)):
        i = wp.tid()
        s = m.dtype(0)
        for j in range(m.shape[1]):
            s += m[i, j]
        out[i] = s

    data = np.arange(12, dtype=np.int64).reshape(3, 4)
    out = np.zeros(3, dtype=np.int64)
    wp.launch(row_sums, dim=3, inputs=[data, out])  # NumPy arrays: wrapped zero-copy, dtype inferred
    np.testing.assert_array_equal(out, data.sum(axis=1))


def test_explicit_overloads_list_dict_and_decorator():
    @wp.kernel
    def add_const(x: wp.array(dtype=Any), c: Any):
        i = wp.tid()
        x[i] = x[i] + c

    inst = wp.overload(add_const, [wp.array(dtype=wp.float64), wp.float64])
    assert inst.arg_types[1] is wp.float64 and not inst.is_generic
    inst2 = wp.overload(add_const, {"x": wp.array(dtype=wp.int16), "c": wp.int16})

    @wp.overload
    def add_const(x: wp.array(dtype=wp.uint8), c: wp.uint8):  # noqa: F811 - declares an instance
        ...

    assert add_const.is_generic  # the decorator form keeps the name on the generic kernel
    assert len(add_const.overloads) == 3

    # launching the instance directly, and the generic kernel with matching arguments
    a = wp.array([1.0, 2.0], dtype=wp.float64)
    wp.launch(inst, dim=2, inputs=[a, 0.5])
    np.testing.assert_array_equal(a.numpy(), [1.5, 2.5])
    b = wp.array([1, 2], dtype=wp.int16)
    wp.launch(inst2, dim=2, inputs=[b, 3])
    wp.launch(add_const, dim=2, inputs=[b, wp.int16(10)])
    np.testing.assert_array_equal(b.numpy(), [14, 15])
    c = wp.array([250, 1], dtype=wp.uint8)
    wp.launch(add_const, dim=2, inputs=[c, wp.uint8(10)])
    np.testing.assert_array_equal(c.numpy(), [4, 11])  # wraps around like uint8
    assert len(add_const.overloads) == 3  # the launches reused the declared instances

    with pytest.raises(TypeError, match="is not a concrete type"):
        wp.overload(add_const, [wp.array(dtype=float), Any])
    with pytest.raises(
        TypeError,
        match="parameter 'x' is array\\(dtype=Any, ndim=1\\), which "
        "array\\(dtype=float32, ndim=2\\) does not match",
    ):
        wp.overload(add_const, [wp.array2d(dtype=float), float])
    with pytest.raises(TypeError, match="has no parameter 'y'"):
        wp.overload(add_const, {"y": float})
    with pytest.raises(TypeError, match="has 2 parameters"):
        wp.overload(add_const, [float])
    with pytest.raises(TypeError, match="is not generic"):
        wp.overload(concrete_kernel, [wp.array(dtype=float)])


@wp.kernel
def concrete_kernel(x: wp.array(dtype=float)):
    x[wp.tid()] = 1.0


def test_overload_decorator_without_generic_kernel_is_an_error():
    with pytest.raises(wp.WarpCodegenError, match="no generic kernel named 'nothing_here'"):

        @wp.overload
        def nothing_here(x: wp.array(dtype=float)): ...


@wp.func
def describe(x: Any):
    return 0


@wp.func
def describe(x: float):  # noqa: F811 - overload with a concrete type
    return 1


@wp.func
def describe(x: wp.types.vector(length=Any, dtype=Any)):  # noqa: F811 - generic vector overload (wp.types: core)
    return 100 + len(x)


@wp.func
def describe(x: wp.vec3):  # noqa: F811 - concrete vector overload, defined after the generic one
    return 3


@pytest.mark.needs_plugin("builtins")
def test_function_overloads_prefer_concrete_then_generic_in_order():
    @wp.kernel
    def k(out: wp.array(dtype=int)):
        out[0] = describe(1.0)
        out[1] = describe(wp.int64(1))
        out[2] = describe(wp.vec3(1.0, 2.0, 3.0))
        out[3] = describe(wp.vec4d())
        out[4] = describe(wp.float64(1.0))

    out = wp.zeros(5, dtype=int)
    wp.launch(k, dim=1, inputs=[out])
    # concrete overloads win; among generic ones the first that accepts (Any) wins
    assert out.numpy().tolist() == [1, 0, 3, 0, 0]


@wp.func
def vec_only(x: wp.types.vector(length=Any, dtype=Any)):  # wp.types: defined without warp-builtins too
    return 100 + len(x)


@pytest.mark.needs_plugin("builtins")
def test_generic_function_with_vector_length_any():
    @wp.kernel
    def k(out: wp.array(dtype=int)):
        out[0] = vec_only(wp.vec2())
        out[1] = vec_only(wp.vector(length=7, dtype=wp.float64))

    out = wp.zeros(2, dtype=int)
    wp.launch(k, dim=1, inputs=[out])
    assert out.numpy().tolist() == [102, 107]


@wp.func
def zero_like(x: Any):
    return type(x)(0)


@wp.func
def sum_generic(a: wp.array(dtype=Any)):
    s = a.dtype(0)
    for i in range(a.shape[0]):
        s = s + a[i]
    return s


def test_type_of_values_and_array_dtype_in_generic_functions():
    @wp.kernel
    def k(a: wp.array(dtype=Any), out: wp.array(dtype=Any), flags: wp.array(dtype=int)):
        out[0] = sum_generic(a) + zero_like(a[0])
        if type(a[0]) == wp.float64:  # noqa: E721 - kernel code: a compile-time type comparison
            flags[0] = 64
        elif a.dtype is wp.float32:
            flags[0] = 32
        else:
            flags[0] = 1
        if wp.float16 != a.dtype:
            flags[1] = 1

    for dt, flag in ((wp.float64, 64), (wp.float32, 32), (wp.int8, 1)):
        a = wp.array([1, 2, 3, 4], dtype=dt)
        out = wp.zeros(1, dtype=dt)
        flags = wp.zeros(2, dtype=int)
        wp.launch(k, dim=1, inputs=[a, out, flags])
        assert out.numpy()[0] == 10
        assert flags.numpy().tolist() == [flag, 1]


def test_each_instance_has_its_own_cache_entry(tmp_path, capsys, monkeypatch):
    saved = (wp.config.kernel_cache_dir, wp.config.quiet)
    wp.config.kernel_cache_dir = str(tmp_path)
    wp.config.quiet = False
    monkeypatch.setattr(wp.config, "verbose", True)  # a line for each kernel instance, not only the module
    try:

        @wp.kernel
        def twice(x: wp.array(dtype=Any)):
            i = wp.tid()
            x[i] = x[i] + x[i]

        a32 = wp.array([1.0, 2.0], dtype=wp.float32)
        a64 = wp.array([1.0, 2.0], dtype=wp.float64)
        wp.launch(twice, dim=2, inputs=[a32])
        wp.launch(twice, dim=2, inputs=[a64])
        wp.launch(twice, dim=2, inputs=[a64])
        assert len(glob.glob(os.path.join(str(tmp_path), "*.wpk"))) == 2
        first = capsys.readouterr().out
        assert first.count(": cache miss, compiling") == 2
        twice.unload()  # drop loaded code: the next launches load both instances from the disk cache
        wp.launch(twice, dim=2, inputs=[a32])
        wp.launch(twice, dim=2, inputs=[a64])
        assert capsys.readouterr().out.count(": cache hit") == 2
        np.testing.assert_array_equal(a32.numpy(), [4.0, 8.0])
        np.testing.assert_array_equal(a64.numpy(), [8.0, 16.0])
    finally:
        wp.config.kernel_cache_dir, wp.config.quiet = saved


@pytest.mark.needs_plugin("autodiff")
def test_generic_kernel_adjoint_launch():
    @wp.kernel
    def square(x: wp.array(dtype=Any), y: wp.array(dtype=Any)):
        i = wp.tid()
        y[i] = x[i] * x[i]

    for dt, np_dt in ((wp.float32, np.float32), (wp.float64, np.float64)):
        x = wp.array(np.array([1.0, -2.0, 3.0], dtype=np_dt), requires_grad=True)
        y = wp.zeros(3, dtype=dt, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(square, dim=3, inputs=[x], outputs=[y])
        tape.backward(grads={y: wp.array(np.ones(3, dtype=np_dt))})
        np.testing.assert_allclose(x.grad.numpy(), 2.0 * x.numpy())


@wp.func
def generic_return(x: Any) -> Any:
    return x + x


def test_generic_return_annotation_is_inferred():
    @wp.kernel
    def k(a: wp.array(dtype=Any)):
        i = wp.tid()
        a[i] = generic_return(a[i])

    for dt in (wp.float16, wp.int64):
        a = wp.array([1, 2], dtype=dt)
        wp.launch(k, dim=2, inputs=[a])
        np.testing.assert_array_equal(a.numpy(), [2, 4])


def test_launch_signature_cache_follows_argument_types():
    @wp.kernel
    def store(a: wp.array(dtype=Any), v: Any):
        a[wp.tid()] = v

    f32 = wp.zeros(1, dtype=wp.float32)
    i32 = wp.zeros(1, dtype=wp.int32)
    wp.launch(store, dim=1, inputs=[f32, 1.5])
    wp.launch(store, dim=1, inputs=[i32, 7])
    wp.launch(store, dim=1, inputs=[f32, wp.float32(2.5)])
    wp.launch(store, dim=1, inputs=[f32, np.float32(3.5)])  # NumPy scalars: inferred each time
    assert f32.numpy()[0] == 3.5 and i32.numpy()[0] == 7
    with pytest.raises(TypeError, match="argument 'v': cannot infer a type"):
        wp.launch(store, dim=1, inputs=[i32, "text"])
    with pytest.raises(TypeError, match="takes 2 arguments"):
        wp.launch(store, dim=1, inputs=[i32])


# -- type attributes of composite types in generic kernels --------------------------------------


@wp.kernel
def scaled_copy_kernel(a: wp.array(dtype=Any)):
    zero = type(a[0])()
    copy = type(a).dtype(a[0]) * a.dtype.dtype(2.0)
    copy += zero
    a[0] = copy


@wp.kernel
def identity_trace_kernel(a: Any, out: wp.array(dtype=Any)):
    v = wp.types.vector(length=3, dtype=type(a))
    m = wp.identity(n=v.length, dtype=v.dtype) * a
    out[0] = wp.trace(m)
    out[1] = type(a)(v.length)


@pytest.mark.needs_plugin("builtins")
def test_composite_type_dtype_and_length_in_kernels():
    x = wp.array([[1.0, 2.0, 3.0]], dtype=wp.vec3f, device="cpu")
    wp.launch(scaled_copy_kernel, dim=1, inputs=[x], device="cpu")
    np.testing.assert_allclose(x.numpy(), [[2.0, 4.0, 6.0]])
    m = wp.array([np.eye(2)], dtype=wp.mat22d, device="cpu")
    wp.launch(scaled_copy_kernel, dim=1, inputs=[m], device="cpu")
    np.testing.assert_allclose(m.numpy(), [2.0 * np.eye(2)])
    out = wp.zeros(2, dtype=wp.float64, device="cpu")
    wp.launch(identity_trace_kernel, dim=1, inputs=[wp.float64(1.5), out], device="cpu")
    np.testing.assert_allclose(out.numpy(), [4.5, 3.0])


@pytest.mark.needs_plugin("builtins")
def test_type_factory_with_runtime_keyword_is_an_error():
    @wp.kernel
    def bad(n: int, out: wp.array(dtype=float)):
        v = wp.types.vector(length=n, dtype=float)
        out[0] = float(v.length)

    with pytest.raises(wp.WarpCodegenValueError, match="length must be a positive compile-time integer"):
        wp.launch(bad, dim=1, inputs=[3, wp.zeros(1, dtype=float, device="cpu")], device="cpu")


# -- wp.overload stubs whose name no longer names the kernel -------------------------------------


def test_overload_stub_found_by_qualified_name():
    def stubbed(x: Any, out: wp.array(dtype=float)):
        out[0] = float(x) * 2.0

    generic = wp.kernel(stubbed)

    def stubbed(x: float, out: wp.array(dtype=float)) -> type(None): ...  # noqa: F811 - the stub

    assert wp.overload(stubbed) is generic
    assert len(generic.overloads) == 1
    out = wp.zeros(1, dtype=float, device="cpu")
    wp.launch(generic, dim=1, inputs=[1.5, out], device="cpu")
    assert out.numpy()[0] == 3.0


def test_overload_stub_errors():
    def returning(x: Any):
        return

    wp.kernel(returning)

    def returning(x: float) -> float: ...  # noqa: F811 - the stub

    with pytest.raises(TypeError, match=r"Return annotations are not allowed on @wp\.overload stubs"):
        wp.overload(returning)

    def shared(x: Any):
        return

    wp.kernel(name="shared_a")(shared)
    wp.kernel(name="shared_b")(shared)

    def shared(x: float): ...  # noqa: F811 - the stub

    with pytest.raises(RuntimeError, match="Ambiguous kernel lookup"):
        wp.overload(shared)
