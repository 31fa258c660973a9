"""@wp.struct: Python-scope instances, kernel arguments, field reads/writes, arrays of structs."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp


@wp.struct
class Inner:
    v: wp.vec3
    flag: bool


@wp.struct
class Params:
    scale: float
    count: int
    data: wp.array(dtype=float)
    inner: Inner
    m: wp.mat22


@wp.func
def bumped(p: Params) -> Params:
    q = p
    q.scale = q.scale + 1.0
    return q


@wp.kernel
def use_params(p: Params, out: wp.array(dtype=float)):
    i = wp.tid()
    q = bumped(p)
    q.inner.v.y = 5.0
    value = q.scale * p.data[i] + float(p.count) + q.inner.v.y + p.inner.v.x + p.m[1, 0]
    if p.inner.flag:
        value = value + 1000.0
    out[i] = value


def make_params() -> Params:
    p = Params()
    p.scale = 2.0
    p.count = 3
    p.data = wp.array(np.arange(4, dtype=np.float32))
    p.inner.v = wp.vec3(1.0, 2.0, 3.0)
    p.inner.flag = True
    p.m = wp.mat22(0.0, 0.0, 7.0, 0.0)
    return p


def test_struct_argument_fields_and_nested_updates():
    out = wp.zeros(4, dtype=float)
    wp.launch(use_params, dim=4, inputs=[make_params(), out])
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(out.numpy(), 3.0 * x + 3 + 5 + 1 + 7 + 1000)


def test_python_scope_defaults_validation_and_repr():
    p = Params()
    assert p.scale == 0.0 and p.count == 0 and p.data is None and not p.inner.flag
    # default scalar fields are warp scalars of the field's type
    assert isinstance(p.scale, wp.float32) and isinstance(p.count, wp.int32)
    assert isinstance(p.inner.flag, wp.bool)
    assert p.inner.v == wp.vec3(0.0, 0.0, 0.0)
    with pytest.raises(AttributeError, match="no field 'nope'"):
        p.nope = 1
    with pytest.raises(TypeError, match="field 'data' of struct Params expects array"):
        p.data = wp.zeros(3, dtype=int)
    with pytest.raises(TypeError, match="field 'count' of struct Params expects int32"):
        p.count = 1.5
    p.count = 7
    assert "count=7" in repr(p)


@wp.struct
class Particle:
    pos: wp.vec3
    mass: float
    alive: bool


@wp.kernel
def integrate(ps: wp.array(dtype=Particle), dt: float):
    i = wp.tid()
    p = ps[i]
    p.pos = wp.vec3(p.pos[0] + dt, p.pos[1], p.pos[2])
    p.mass = p.mass * 2.0
    ps[i] = p
    ps[i].alive = i % 2 == 0


def test_arrays_of_structs_round_trip_through_numpy():
    parts = [Particle(pos=wp.vec3(float(i), 1.0, 2.0), mass=float(i) + 0.5) for i in range(5)]
    ps = wp.array(parts, dtype=Particle)
    assert ps.numpy().dtype.itemsize == Particle.numpy_dtype().itemsize == 20
    wp.launch(integrate, dim=5, inputs=[ps, 0.25])
    data = ps.numpy()
    np.testing.assert_allclose(data["pos"][:, 0], np.arange(5) + 0.25)
    np.testing.assert_allclose(data["pos"][:, 1:], np.tile([1.0, 2.0], (5, 1)))
    np.testing.assert_allclose(data["mass"], (np.arange(5) + 0.5) * 2.0)
    assert data["alive"].tolist() == [True, False, True, False, True]
    zeros = wp.zeros(3, dtype=Particle)
    assert zeros.numpy()["mass"].tolist() == [0.0, 0.0, 0.0]


@wp.kernel
def construct_in_kernel(out: wp.array(dtype=Particle)):
    i = wp.tid()
    p = Particle()
    p.mass = float(i)
    q = Particle(mass=2.0, alive=True)
    p.alive = q.alive
    out[i] = p


def test_struct_construction_in_kernels():
    out = wp.zeros(3, dtype=Particle)
    wp.launch(construct_in_kernel, dim=3, inputs=[out])
    assert out.numpy()["mass"].tolist() == [0.0, 1.0, 2.0]
    assert out.numpy()["alive"].tolist() == [True, True, True]


def test_struct_field_type_errors_are_located():
    @wp.kernel
    def bad(ps: wp.array(dtype=Particle)):
        p = ps[0]
        p.mass = 3
        p.mass = wp.int32(3)

    with pytest.raises(
        wp.WarpCodegenTypeError, match=r"field 'mass' of struct Particle is float32, got int32"
    ) as info:
        wp.launch(bad, dim=1, inputs=[wp.zeros(1, dtype=Particle)])
    assert "p.mass = wp.int32(3)" in str(info.value)


def test_struct_with_strided_array_field_uses_the_strided_path():
    base = wp.array(np.arange(8, dtype=np.float32))
    p = make_params()
    p.data = base[::2]
    out = wp.zeros(4, dtype=float)
    wp.launch(use_params, dim=4, inputs=[p, out])
    x = np.arange(0, 8, 2, dtype=np.float32)
    np.testing.assert_allclose(out.numpy(), 3.0 * x + 3 + 5 + 1 + 7 + 1000)


@wp.struct
class RangeFields:
    f: wp.float32
    h: wp.float16
    d: wp.float64
    i: wp.int32
    u: wp.uint8
    q: wp.int64


@wp.kernel
def read_range_fields(s: RangeFields, out: wp.array(dtype=wp.float64)):
    out[0] = wp.float64(s.f)
    out[1] = wp.float64(s.h)
    out[2] = s.d
    out[3] = wp.float64(s.i)
    out[4] = wp.float64(s.u)
    out[5] = wp.float64(s.q)


def test_float_fields_beyond_their_range_store_inf_like_value_arguments():
    s = RangeFields()
    s.f, s.h, s.d = 1e40, -1e10, 1e300
    s.i, s.u, s.q = -(2**31), 255, 2**63 - 1
    out = wp.zeros(6, dtype=wp.float64)
    wp.launch(read_range_fields, dim=1, inputs=[s, out])
    np.testing.assert_array_equal(out.numpy(), [np.inf, -np.inf, 1e300, -(2.0**31), 255.0, 2.0**63])
    s.f = 3.4e38  # the largest float32 values stay finite
    wp.launch(read_range_fields, dim=1, inputs=[s, out])
    assert out.numpy()[0] == np.float64(np.float32(3.4e38))


@pytest.mark.parametrize(
    "field,value", [("i", 2**40), ("i", 2**31), ("i", -(2**31) - 1), ("u", 256), ("u", -1), ("q", 2**63)]
)
def test_integer_fields_out_of_range_raise(field, value):
    s = RangeFields()
    with pytest.raises(
        ValueError, match=f"field '{field}' of struct RangeFields: value {value} is out of range"
    ):
        setattr(s, field, value)
    assert getattr(s, field) == 0


@wp.struct
class Positional:
    a: float
    v: wp.vec3
    n: int


@wp.func
def make_positional(x: float) -> Positional:
    return Positional(x, wp.vec3(1.0, 2.0, 3.0), n=4)


@wp.kernel
def positional_kernel(out: wp.array(dtype=float)):
    s = make_positional(2.5)
    t = Positional(1.5)
    out[0] = s.a + s.v[2] + float(s.n)
    out[1] = t.a + t.v[0] + float(t.n)


def test_positional_struct_constructor_in_kernel():
    out = wp.zeros(2, dtype=float, device="cpu")
    wp.launch(positional_kernel, dim=1, inputs=[out], device="cpu")
    np.testing.assert_allclose(out.numpy(), [2.5 + 3.0 + 4.0, 1.5])


def test_positional_struct_constructor_errors():
    @wp.kernel
    def too_many(out: wp.array(dtype=float)):
        s = Positional(1.0, wp.vec3(), 2, 3)
        out[0] = s.a

    with pytest.raises(wp.WarpCodegenTypeError, match=r"at most 3 positional arguments .*got 4"):
        wp.launch(too_many, dim=1, inputs=[wp.zeros(1, dtype=float, device="cpu")], device="cpu")

    @wp.kernel
    def twice(out: wp.array(dtype=float)):
        s = Positional(1.0, a=2.0)
        out[0] = s.a

    with pytest.raises(wp.WarpCodegenTypeError, match="multiple values for field 'a'"):
        wp.launch(twice, dim=1, inputs=[wp.zeros(1, dtype=float, device="cpu")], device="cpu")


@wp.struct
class EmptyRecord:
    pass


@wp.struct
class AfterEmpties:
    a: EmptyRecord
    b: EmptyRecord
    c: EmptyRecord
    z: int
    w: float


@wp.kernel
def empties_kernel(s: AfterEmpties, items: wp.array(dtype=AfterEmpties), out: wp.array(dtype=float)):
    out[0] = float(s.z) + s.w
    t = items[0]
    out[1] = float(t.z) + t.w
    t.z = t.z + 1
    items[1] = t


def test_empty_nested_structs_keep_later_fields_in_place():
    assert AfterEmpties._offsets_ == [0, 1, 2, 4, 8]
    s = AfterEmpties()
    s.z = 42
    s.w = 0.5
    items = wp.array([s, AfterEmpties()], dtype=AfterEmpties, device="cpu")
    out = wp.zeros(2, dtype=float, device="cpu")
    wp.launch(empties_kernel, dim=1, inputs=[s, items, out], device="cpu")
    np.testing.assert_allclose(out.numpy(), [42.5, 42.5])
    assert items.numpy()[1]["z"] == 43
    assert items.numpy()[1]["w"] == 0.5


def test_python_scope_composite_field_assignment_rules():
    @wp.struct
    class Fields:
        v: wp.vec3
        q: wp.quat

    s = Fields()
    for value in (3, 1.5, wp.float32(2.0)):
        with pytest.raises(TypeError, match=r"Struct field 'q' expects quatf but got a single value"):
            s.q = value
    with pytest.warns(DeprecationWarning, match=r"`float32` to the `vec3f` struct field 'v'.*deprecated"):
        s.v = np.float32(1.5)
    np.testing.assert_allclose(np.array(s.v), [1.5, 1.5, 1.5])
    s.v = (7.0, 8.0, 9.0)
    np.testing.assert_allclose(np.array(s.v), [7.0, 8.0, 9.0])
    s.v = None
    np.testing.assert_allclose(np.array(s.v), [0.0, 0.0, 0.0])


def test_struct_type_cls_inheritance_and_missing_field_message():
    assert isinstance(Params(), Params.cls)
    with pytest.raises(RuntimeError, match=r"Warp structs must be defined as base classes$"):

        @wp.struct
        class Child(Params):
            extra: int

    @wp.kernel
    def reads_missing(p: Params):
        _ = p.nonexisting

    with pytest.raises(AttributeError, match=r"`nonexisting` is not an attribute of 'p' \([\w.]+\.Params\)$"):
        wp.launch(reads_missing, dim=1, inputs=[Params()], device="cpu")


@wp.struct
class _Pair:
    a: float
    n: int


def test_struct_constructor_takes_fields_positionally_in_kernels():
    @wp.kernel
    def build(src: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        p = _Pair(src[i], 3)  # fields in declaration order
        q = _Pair(src[i] * 2.0, n=5)  # positional then keyword
        out[i] = p.a + float(p.n) + q.a * float(q.n)

    src = wp.array([1.0, 2.0], dtype=float)
    out = wp.zeros(2, dtype=float)
    wp.launch(build, dim=2, inputs=[src, out])
    np.testing.assert_allclose(out.numpy(), [1.0 + 3.0 + 10.0, 2.0 + 3.0 + 20.0])


def test_struct_constructor_rejects_extra_and_repeated_fields():
    @wp.kernel
    def too_many(out: wp.array(dtype=float)):
        p = _Pair(1.0, 2, 3)
        out[0] = p.a

    with pytest.raises(wp.WarpCodegenTypeError, match="at most 2 positional arguments"):
        wp.launch(too_many, dim=1, inputs=[wp.zeros(1, dtype=float)])

    @wp.kernel
    def repeated(out: wp.array(dtype=float)):
        p = _Pair(1.0, a=2.0)
        out[0] = p.a

    with pytest.raises(wp.WarpCodegenTypeError, match="multiple values for field 'a'"):
        wp.launch(repeated, dim=1, inputs=[wp.zeros(1, dtype=float)])


@wp.struct
class ScalarFields:
    u8: wp.uint8
    i32: wp.int32
    f16: wp.float16
    f64: wp.float64
    flag: wp.bool


@wp.kernel
def read_scalar_fields(s: ScalarFields, out: wp.array(dtype=wp.float64)):
    out[0] = wp.float64(s.u8)
    out[1] = wp.float64(s.i32)
    out[2] = wp.float64(s.f16)
    out[3] = s.f64
    if s.flag:
        out[4] = wp.float64(1.0)


def test_scalar_field_keeps_warp_or_python_type():
    s = ScalarFields()
    s.u8 = wp.uint8(200)
    s.f16 = wp.float16(3.14)
    s.f64 = wp.float32(2.5)  # a warp scalar of another type becomes one of the field's type
    assert isinstance(s.u8, wp.uint8) and int(s.u8) == 200
    assert isinstance(s.f16, wp.float16) and float(s.f16) == float(np.float16(3.14))
    assert isinstance(s.f64, wp.float64) and float(s.f64) == 2.5
    s.i32 = -7  # a Python number stays a Python number
    assert type(s.i32) is int and s.i32 == -7
    with pytest.raises(ValueError, match="out of range for uint8"):
        s.u8 = wp.int32(300)
    s.flag = wp.bool(True)
    # warp scalars pack into launches, struct arrays and struct constants like Python values
    out = wp.zeros(5, dtype=wp.float64)
    wp.launch(read_scalar_fields, dim=1, inputs=[s, out])
    expected = [200.0, -7.0, float(np.float16(3.14)), 2.5, 1.0]
    np.testing.assert_array_equal(out.numpy(), expected)
    arr = wp.array([s, ScalarFields()], dtype=ScalarFields)
    np.testing.assert_array_equal(arr.numpy()["u8"], [200, 0])
    np.testing.assert_array_equal(arr.numpy()["f64"], [2.5, 0.0])


@wp.struct
class HoldsArrays:
    n: int
    grid: wp.array2d(dtype=wp.float16)
    inner: Inner
    unset: wp.array(dtype=int)


def test_struct_array_elements_rebuild_their_array_fields():
    values = np.arange(6, dtype=np.float16).reshape(2, 3)
    s = HoldsArrays()
    s.n = 3
    s.grid = wp.array(values, dtype=wp.float16)
    arr = wp.array([s, HoldsArrays()], dtype=HoldsArrays)
    for element in (arr.list()[0], arr[0]):
        # a view of the memory the stored descriptor points at: same data, shape, strides, dtype
        assert element.n == 3 and element.unset is None
        assert element.grid.dtype is wp.float16 and element.grid.ndim == 2
        assert element.grid.shape == (2, 3) and element.grid.strides == s.grid.strides
        assert element.grid.ptr == s.grid.ptr and element.grid.device == arr.device
        np.testing.assert_array_equal(element.grid.numpy(), values)
    assert arr.list()[1].grid is None  # an unset field stays unset
    transposed = HoldsArrays()
    transposed.grid = s.grid.transpose()
    back = wp.array([transposed], dtype=HoldsArrays).list()[0]
    np.testing.assert_array_equal(back.grid.numpy(), values.T)
