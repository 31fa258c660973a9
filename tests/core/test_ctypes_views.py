"""ctypes views of warp memory: array.cptr(), StructType.ctype, __ctype__() of structs and
arrays, and wp.Launch's *_from_ctype setters taking them."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

import warp as wp
from warp.types.array_type import ARRAY_DESC_SIZE

wp.config.quiet = True


@wp.struct
class Inner:
    v: wp.vec3
    flag: wp.bool


@wp.struct
class Record:
    i: wp.int32
    h: wp.float16
    d: wp.float64
    m: wp.mat22
    inner: Inner
    data: wp.array(dtype=wp.float32)


def test_struct_ctype_matches_the_numpy_layout():
    c = Record.ctype
    assert issubclass(c, ctypes.Structure) and ctypes.sizeof(c) == Record._size_in_bytes_
    dtype = Record.numpy_dtype()
    for name, _ in Record._fields_:
        assert getattr(c, name).offset == dtype.fields[name][1], name
    assert ctypes.sizeof(wp.types.ctypes_layout.ArrayDescriptorC) == ARRAY_DESC_SIZE


def test_struct_ctype_instance_holds_the_fields():
    r = Record()
    r.i = -4
    r.h = 1.5
    r.d = 0.25
    r.m = wp.mat22(1.0, 2.0, 3.0, 4.0)
    r.inner.v = wp.vec3(5.0, 6.0, 7.0)
    r.inner.flag = True
    r.data = wp.array([1.0, 2.0, 3.0], dtype=wp.float32)
    c = r.__ctype__()
    assert (c.i, c.d) == (-4, 0.25)
    assert c.h == np.array(1.5, dtype=np.float16).view(np.uint16)  # float16 as its bits
    assert [list(row) for row in c.m] == [[1.0, 2.0], [3.0, 4.0]]
    assert list(c.inner.v) == [5.0, 6.0, 7.0] and c.inner.flag is True
    assert c.data.data == r.data.ptr and list(c.data.shape) == [3, 0, 0, 0]
    assert list(c.data.strides)[:1] == [4]
    # the same field bytes as an element of a struct array (padding aside)
    stored = wp.array([r], dtype=Record).numpy()[0]
    from_ctype = np.frombuffer(bytes(c), dtype=Record.numpy_dtype())[0]
    pairs = [(from_ctype[n], stored[n]) for n, _ in Record._fields_ if n != "inner"]
    pairs += [(from_ctype["inner"][n], stored["inner"][n]) for n, _ in Inner._fields_]
    for got, want in pairs:
        assert np.asarray(got).tobytes() == np.asarray(want).tobytes()


def test_cptr_reads_and_writes_elements():
    a = wp.array(np.arange(5, dtype=np.float32))
    p = a.cptr()
    assert [p[i] for i in range(5)] == [0.0, 1.0, 2.0, 3.0, 4.0]
    p[2] = 9.0
    np.testing.assert_array_equal(a.numpy(), [0.0, 1.0, 9.0, 3.0, 4.0])

    m = wp.array(np.arange(8, dtype=np.float64).reshape(2, 2, 2), dtype=wp.mat22d)
    assert [list(row) for row in m.cptr()[1]] == [[4.0, 5.0], [6.0, 7.0]]
    assert wp.vec3(1.0, 2.0, 3.0) == wp.array([wp.vec3(1.0, 2.0, 3.0)], dtype=wp.vec3).cptr()[0]

    r = Record()
    r.i = 11
    r.inner.v = wp.vec3(1.0, 2.0, 3.0)
    records = wp.array([Record(), r], dtype=Record)
    assert records.cptr()[1].i == 11 and list(records.cptr()[1].inner.v) == [1.0, 2.0, 3.0]


def test_cptr_refuses_non_contiguous_arrays():
    a = wp.zeros(6, dtype=wp.float32)
    with pytest.raises(RuntimeError, match="cptr\\(\\) needs a contiguous CPU array"):
        a[::2].cptr()
    with pytest.raises(TypeError, match="annotation"):
        wp.array(dtype=float).cptr()


def test_array_ctype_is_its_descriptor():
    a = wp.zeros((2, 3), dtype=wp.float32, requires_grad=True)
    d = a.__ctype__()
    assert d.data == a.ptr and d.grad == a.grad.ptr
    assert list(d.shape) == [2, 3, 0, 0] and list(d.strides) == [12, 4, 0, 0]


@wp.struct
class Params:
    i: int
    f: float
    a: wp.array(dtype=float)


@wp.kernel
def combine(p: Params, i: int, f: float, v: wp.vec3, m: wp.mat22, out: wp.array(dtype=float)):
    t = wp.tid()
    out[t] = float(p.i) + p.f + p.a[t] + float(i) + f + v[2] + m[1, 0]


def test_launch_set_params_from_ctypes():
    p = Params()
    p.i = 1
    p.f = 2.0
    p.a = wp.array([10.0, 20.0], dtype=float)
    out = wp.zeros(2, dtype=float)
    cmd = wp.launch(combine, dim=2, inputs=[Params(), 0, 0.0, wp.vec3(), wp.mat22(), None], record_cmd=True)
    cmd.set_param_at_index_from_ctype(0, p.__ctype__())
    cmd.set_param_at_index_from_ctype(1, ctypes.c_int32(100))
    cmd.set_param_at_index_from_ctype(2, 1000.0)
    cmd.set_param_at_index_from_ctype(3, (ctypes.c_float * 3)(0.0, 0.0, 5.0))
    cmd.set_param_at_index_from_ctype(4, ((ctypes.c_float * 2) * 2)((0.0, 0.0), (7.0, 0.0)))
    cmd.set_param_by_name_from_ctype("out", out.__ctype__())
    cmd.launch()
    expected = 1 + 2 + np.array([10.0, 20.0]) + 100 + 1000 + 5 + 7
    np.testing.assert_array_equal(out.numpy(), expected)

    out2 = wp.zeros(2, dtype=float)
    cmd.set_params_from_ctypes([p.__ctype__(), 0, 0.0, wp.vec3(), wp.mat22(), out2.__ctype__()])
    cmd.launch()
    np.testing.assert_array_equal(out2.numpy(), 1 + 2 + np.array([10.0, 20.0]))

    with pytest.raises(wp.errors.LaunchTypeError, match="ctypes structure Inner_ctype is not a Params"):
        cmd.set_param_at_index_from_ctype(0, Inner().__ctype__())
    with pytest.raises(KeyError, match="no parameter 'nope'"):
        cmd.set_param_by_name_from_ctype("nope", 1)
