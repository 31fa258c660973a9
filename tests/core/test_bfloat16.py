"""wp.bfloat16: conversions bit-exact against independent references, arrays, composites, atomics.

References used here do not share code with the implementation: float32 -> bfloat16 rounding is
re-derived from the discarded low 16 bits, float64 -> bfloat16 from exact rational arithmetic
(:class:`fractions.Fraction`) over the two neighbouring bfloat16 values.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import warp as wp
from warp.errors import WarpCodegenTypeError
from warp.types.bfloat16_bits import bits_of

wp.config.quiet = True

vec3bf = wp.types.vector(length=3, dtype=wp.bfloat16)
mat22bf = wp.types.matrix(shape=(2, 2), dtype=wp.bfloat16)


# -- independent references ------------------------------------------------------------------------


def ref_bits_from_f32_bits(bits: np.ndarray) -> np.ndarray:
    """bfloat16 patterns of float32 patterns: keep the top half, round up when the discarded half
    is above 0x8000 or exactly 0x8000 with an odd kept half; NaN keeps sign/payload, made quiet."""
    bits = bits.astype(np.uint64)
    upper = bits >> 16
    lower = bits & 0xFFFF
    up = (lower > 0x8000) | ((lower == 0x8000) & ((upper & 1) == 1))
    out = upper + up.astype(np.uint64)
    nan = (bits & 0x7FFFFFFF) > 0x7F800000
    out = np.where(nan, upper | 0x40, out)
    return out.astype(np.uint16)


def bf16_value(bits: int) -> Fraction | float:
    """Exact value of a finite bfloat16 pattern (sign, 8-bit exponent, 7-bit mantissa)."""
    sign = -1 if bits & 0x8000 else 1
    exp = (bits >> 7) & 0xFF
    man = bits & 0x7F
    if exp == 0:
        return sign * Fraction(man, 128) * Fraction(2) ** -126
    return sign * (1 + Fraction(man, 128)) * Fraction(2) ** (exp - 127)


def ref_bits_from_double(x: float) -> int:
    """Nearest bfloat16 pattern of a double by exact arithmetic (ties to even mantissa)."""
    if math.isnan(x):
        raise ValueError("NaN handled by the caller")
    sign = 0x8000 if math.copysign(1.0, x) < 0 else 0
    if math.isinf(x):
        return sign | 0x7F80
    a = Fraction(abs(x))
    lo, hi = 0, 0x7F80  # search the magnitude patterns (monotonic in value); 0x7F80 is inf
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if bf16_value(mid) <= a:
            lo = mid
        else:
            hi = mid
    # lo <= a < value(hi); hi may be infinity, whose "value" for rounding is 2**128
    v_lo = bf16_value(lo)
    v_hi = bf16_value(hi) if hi < 0x7F80 else Fraction(2) ** 128
    if a == v_lo:
        return sign | lo
    d_lo, d_hi = a - v_lo, v_hi - a
    pick = lo if d_lo < d_hi or (d_lo == d_hi and lo % 2 == 0) else hi
    return sign | pick


def ref_values(bits: np.ndarray) -> np.ndarray:
    """float32 values of bfloat16 patterns via struct-free widening (bits placed in the top half)."""
    return (bits.astype(np.uint32) * np.uint32(65536)).view(np.float32)


def special_doubles() -> list[float]:
    """Ties, near-ties that a float32 intermediate would round onto a tie, subnormals, overflow."""
    one_ulp = 2.0**-7
    vals = [
        1.0 + one_ulp / 2,
        1.0 + 3 * one_ulp / 2,  # exact ties: to even
        1.0 + one_ulp / 2 + 2.0**-40,
        1.0 + one_ulp / 2 - 2.0**-40,  # double rounding traps
        3.0e38,
        3.3895313892515355e38,
        3.3961775292304e38,
        3.4e38,
        1e300,  # max, overflow boundary
        2.0**-133,
        2.0**-134,
        3 * 2.0**-135,
        2.0**-126,
        2.0**-126 - 2.0**-134,
        1e-300,
        5e-324,
        0.0,
        -0.0,
        math.inf,
        -math.inf,
        0.1,
        1 / 3,
        math.pi,
        65504.0,
        1e10,
    ]
    return vals + [-v for v in vals]


# -- kernels ---------------------------------------------------------------------------------------


@wp.kernel
def from_bf16(
    h: wp.array(dtype=wp.bfloat16),
    f: wp.array(dtype=wp.float32),
    d: wp.array(dtype=wp.float64),
    i: wp.array(dtype=wp.int32),
):
    k = wp.tid()
    f[k] = wp.float32(h[k])
    d[k] = wp.float64(h[k])
    i[k] = wp.int32(h[k])


@wp.kernel
def to_bf16(
    f: wp.array(dtype=wp.float32),
    d: wp.array(dtype=wp.float64),
    n: wp.array(dtype=wp.int32),
    hf: wp.array(dtype=wp.bfloat16),
    hd: wp.array(dtype=wp.bfloat16),
    hn: wp.array(dtype=wp.bfloat16),
):
    k = wp.tid()
    hf[k] = wp.bfloat16(f[k])
    hd[k] = wp.bfloat16(d[k])
    hn[k] = wp.bfloat16(n[k])


def _bits(values: wp.array) -> np.ndarray:
    return bits_of(values.numpy()).copy()


# -- conversions -----------------------------------------------------------------------------------


def test_every_bfloat16_pattern_widens_exactly():
    patterns = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    h = wp.array(patterns, dtype=wp.bfloat16)  # uint16 data: taken as bit patterns
    f = wp.zeros(65536, dtype=wp.float32)
    d = wp.zeros(65536, dtype=wp.float64)
    i = wp.zeros(65536, dtype=wp.int32)
    wp.launch(from_bf16, dim=65536, inputs=[h, f, d, i])
    expected = ref_values(patterns)
    assert np.array_equal(f.numpy().view(np.uint32), expected.view(np.uint32))  # NaN payloads too
    finite = np.isfinite(expected)
    assert np.array_equal(d.numpy()[finite], expected[finite].astype(np.float64))
    assert np.all(np.isnan(d.numpy()[np.isnan(expected)]))
    # float -> int saturates, NaN -> 0 (as every float type here)
    with np.errstate(invalid="ignore"):
        ints = np.where(
            np.isnan(expected), 0, np.clip(np.trunc(expected.astype(np.float64)), -(2**31), 2**31 - 1)
        )
    assert np.array_equal(i.numpy(), ints.astype(np.int32))
    # the Python side agrees: list() gives the same values
    assert np.array_equal(np.array(h.list(), dtype=np.float32)[finite], expected[finite])


def test_float32_to_bfloat16_rounds_to_nearest_even():
    rng = np.random.default_rng(7)
    random_bits = rng.integers(0, 2**32, 200_000, dtype=np.uint64).astype(np.uint32)
    upper = rng.integers(0, 2**16, 4000, dtype=np.uint64).astype(np.uint32) << np.uint32(16)
    crafted = np.concatenate(
        [
            upper | np.uint32(0x8000),  # exact ties, both parities
            upper | np.uint32(0x7FFF),
            upper | np.uint32(0x8001),
            upper,
            np.array(
                [
                    0x7F7F8000,
                    0x7F7F7FFF,
                    0x7F7FFFFF,
                    0x7F800000,
                    0x7F800001,
                    0x7FC00000,
                    0xFFFFFFFF,
                    0x00000001,
                    0x00008000,
                    0x00018000,
                    0x80008000,
                    0x007F8000,
                    0x7F808000,
                ],
                dtype=np.uint32,
            ),
        ]
    )
    bits = np.concatenate([random_bits, crafted])
    f = bits.view(np.float32)
    n = len(f)
    hf, hd, hn = (wp.zeros(n, dtype=wp.bfloat16) for _ in range(3))
    wp.launch(
        to_bf16,
        dim=n,
        inputs=[wp.array(f), wp.zeros(n, dtype=wp.float64), wp.zeros(n, dtype=wp.int32), hf, hd, hn],
    )
    expected = ref_bits_from_f32_bits(bits)
    assert np.array_equal(_bits(hf), expected)
    # arrays built from float32 NumPy data round the same way
    assert np.array_equal(bits_of(wp.array(f, dtype=wp.bfloat16).numpy()), expected)


def test_float64_and_int_to_bfloat16_round_once():
    rng = np.random.default_rng(11)
    doubles = np.array(
        special_doubles()
        + list(rng.uniform(-4.0, 4.0, 400))
        + list(np.ldexp(rng.uniform(0.5, 1.0, 400), rng.integers(-140, 130, 400)) * rng.choice([-1, 1], 400))
        + [math.nan, -math.nan],
        dtype=np.float64,
    )
    ints = np.array(
        [0, 1, -1, 255, 256, 257, 2**24 + 1, 2**24 + 3, 0x01010001, -0x01018001, 2**31 - 1, -(2**31)]
        + list(rng.integers(-(2**31), 2**31, 300)),
        dtype=np.int32,
    )
    n = max(len(doubles), len(ints))
    d = np.resize(doubles, n)
    i = np.resize(ints, n)
    hf, hd, hn = (wp.zeros(n, dtype=wp.bfloat16) for _ in range(3))
    wp.launch(to_bf16, dim=n, inputs=[wp.zeros(n, dtype=wp.float32), wp.array(d), wp.array(i), hf, hd, hn])
    got_d, got_i = _bits(hd), _bits(hn)
    for k in range(n):
        if math.isnan(d[k]):
            assert (got_d[k] & 0x7FFF) > 0x7F80 and (got_d[k] & 0x40), (
                f"NaN must stay a quiet NaN: {got_d[k]:#x}"
            )
            assert (got_d[k] >> 15) == (1 if math.copysign(1.0, d[k]) < 0 else 0)
        else:
            assert got_d[k] == ref_bits_from_double(float(d[k])), f"float64 {d[k]!r}"
        assert got_i[k] == ref_bits_from_double(float(i[k])), f"int32 {i[k]}"
    # Python scope: wp.bfloat16(x) and array construction from Python floats agree
    finite = [float(x) for x in doubles if not math.isnan(x)]
    expected = np.array([ref_bits_from_double(x) for x in finite], dtype=np.uint16)
    assert np.array_equal(bits_of(wp.array(finite, dtype=wp.bfloat16).numpy()), expected)
    assert [wp.bfloat16(x).value for x in finite[:60]] == list(ref_values(expected[:60]).astype(float))


# -- arrays and NumPy ------------------------------------------------------------------------------


def test_array_storage_is_16_bits_and_numpy_sees_the_patterns():
    a = wp.array([1.0, -2.5, 1 / 3], dtype=wp.bfloat16)
    assert a.dtype is wp.bfloat16
    assert bits_of(a.numpy()).dtype == np.uint16 and a.strides == (2,)
    assert list(bits_of(a.numpy())) == [0x3F80, 0xC020, 0x3EAB]
    assert a.list() == [1.0, -2.5, 0.333984375]
    assert a[2] == 0.333984375
    a[0] = 0.1
    assert bits_of(a.numpy())[0] == 0x3DCD
    a.fill_(wp.bfloat16(3.0))
    assert a.list() == [3.0, 3.0, 3.0]
    a.assign(np.array([1.0, 2.0, 1e39], dtype=np.float64))
    assert a.list() == [1.0, 2.0, math.inf]
    # numpy() (bit patterns, or ml_dtypes values) round-trips
    assert wp.array(a.numpy(), dtype=wp.bfloat16).list() == a.list()
    assert wp.types.type_size_in_bytes(wp.bfloat16) == 2
    assert wp.dtype_to_numpy(wp.bfloat16) == np.uint16
    assert wp.dtype_from_numpy(np.uint16) is wp.uint16  # uint16 data still means wp.uint16
    assert str(a) == str(np.array([1.0, 2.0, np.inf], dtype=np.float32))  # values, not bit patterns


def test_python_scope_values_round_to_bfloat16():
    assert wp.bfloat16(1 / 3).value == 0.333984375
    assert wp.bfloat16(1e39).value == math.inf
    assert wp.bfloat16(2.0**-134).value == 0.0  # half of the smallest subnormal: tie to even (0)
    assert wp.bfloat16(3 * 2.0**-135).value == 2.0**-133
    assert math.isnan(wp.bfloat16(math.nan).value)
    assert wp.bfloat16(wp.float16(0.1)).value == 0.10009765625
    assert wp.types.type_is_float(wp.bfloat16)
    assert wp.bfloat16 in wp.types.float_types


# -- kernel arithmetic -----------------------------------------------------------------------------


@wp.kernel
def arith(
    a: wp.array(dtype=wp.bfloat16),
    b: wp.array(dtype=wp.bfloat16),
    s: wp.bfloat16,
    out: wp.array2d(dtype=wp.bfloat16),
    cmp: wp.array2d(dtype=wp.int32),
):
    i = wp.tid()
    x = a[i]
    y = b[i]
    out[i, 0] = x + y
    out[i, 1] = x - y
    out[i, 2] = x * y
    out[i, 3] = x / y
    out[i, 4] = -x
    out[i, 5] = x * s + y  # two roundings: after * and after +
    out[i, 6] = x + 0.1  # the literal becomes bfloat16(0.1)
    cmp[i, 0] = wp.where(x < y, 1, 0)
    cmp[i, 1] = wp.where(x == y, 1, 0)
    cmp[i, 2] = wp.where(x >= y, 1, 0)


@pytest.mark.needs_plugin("builtins")
def test_arithmetic_rounds_after_every_operation():
    rng = np.random.default_rng(5)
    n = 3000
    a32 = ref_values(ref_bits_from_f32_bits(rng.normal(0, 100, n).astype(np.float32).view(np.uint32)))
    b32 = ref_values(ref_bits_from_f32_bits(rng.normal(0, 1, n).astype(np.float32).view(np.uint32)))
    b32[:10] = a32[:10]  # some equal pairs
    out = wp.zeros((n, 7), dtype=wp.bfloat16)
    cmp = wp.zeros((n, 3), dtype=wp.int32)
    wp.launch(
        arith,
        dim=n,
        inputs=[
            wp.array(a32, dtype=wp.bfloat16),
            wp.array(b32, dtype=wp.bfloat16),
            wp.bfloat16(1.7),
            out,
            cmp,
        ],
    )

    def rnd(x):
        return ref_values(ref_bits_from_f32_bits(np.asarray(x, dtype=np.float32).view(np.uint32)))

    s = rnd(np.float32(1.7))
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = np.stack(
            [
                rnd(a32 + b32),
                rnd(a32 - b32),
                rnd(a32 * b32),
                rnd(a32 / b32),
                -a32,
                rnd(rnd(a32 * s) + b32),
                rnd(a32 + rnd(np.float32(0.1))),
            ],
            axis=1,
        )
    got = ref_values(bits_of(out.numpy()))
    assert np.array_equal(got.view(np.uint32), expected.view(np.uint32))
    assert np.array_equal(cmp.numpy(), np.stack([a32 < b32, a32 == b32, a32 >= b32], axis=1).astype(np.int32))


def test_mixing_bfloat16_with_float32_needs_a_cast():
    @wp.kernel
    def mixed(a: wp.array(dtype=wp.bfloat16), f: wp.array(dtype=float)):
        i = wp.tid()
        f[i] = a[i] + f[i]

    with pytest.raises(
        WarpCodegenTypeError, match=r"no overload of 'add' accepts arguments \(bfloat16, float32\)"
    ):
        wp.launch(mixed, dim=1, inputs=[wp.zeros(1, dtype=wp.bfloat16), wp.zeros(1, dtype=float)])


@wp.func
def bf_square(x: wp.bfloat16) -> wp.bfloat16:
    return x * x


@wp.func
def generic_twice(x: wp.Float):
    return x + x


@wp.kernel
def funcs(a: wp.array(dtype=wp.bfloat16), out: wp.array(dtype=wp.bfloat16)):
    i = wp.tid()
    out[i] = bf_square(a[i]) + generic_twice(a[i])


def test_user_functions_and_generics_take_bfloat16():
    a = wp.array([1.5, -3.0, 100.0], dtype=wp.bfloat16)
    out = wp.zeros(3, dtype=wp.bfloat16)
    wp.launch(funcs, dim=3, inputs=[a, out])
    # 100 * 100 = 10000 -> 9984 (bfloat16 spacing 64 there), + 200 = 10184 -> 10176
    assert out.list() == [5.25, 3.0, 10176.0]


# -- composites ------------------------------------------------------------------------------------


@wp.kernel
def composite_ops(
    v: wp.array(dtype=vec3bf),
    m: wp.array(dtype=mat22bf),
    s: wp.array(dtype=wp.bfloat16),
    out_v: wp.array(dtype=vec3bf),
    out_m: wp.array(dtype=mat22bf),
    p: vec3bf,
):
    i = wp.tid()
    out_v[i] = v[i] * wp.bfloat16(3.0) + p
    s[i] = wp.dot(v[i], p)
    out_m[i] = m[i] * m[i]
    w = v[i]
    w[1] = wp.bfloat16(7.0)
    v[i] = w


@pytest.mark.needs_plugin("builtins")
def test_vector_and_matrix_of_bfloat16():
    assert vec3bf._size_in_bytes_ == 6 and mat22bf._size_in_bytes_ == 8
    x = vec3bf(1 / 3, 2.0, 1e39)
    assert x.tolist() == [0.333984375, 2.0, math.inf]
    v = wp.array([vec3bf(1.0, 1 / 3, 2.0), vec3bf(0.1, 0.2, 0.3)], dtype=vec3bf)
    assert bits_of(v.numpy()).dtype == np.uint16 and v.numpy().shape == (2, 3)
    m = wp.array([mat22bf(1.0, 2.0, 3.0, 4.0), mat22bf(0.5, 0.25, 1 / 3, 1.0)], dtype=mat22bf)
    s = wp.zeros(2, dtype=wp.bfloat16)
    out_v = wp.zeros(2, dtype=vec3bf)
    out_m = wp.zeros(2, dtype=mat22bf)
    wp.launch(composite_ops, dim=2, inputs=[v, m, s, out_v, out_m, vec3bf(0.5, 0.5, 0.5)])

    def rnd(x):
        return ref_values(ref_bits_from_f32_bits(np.asarray(x, dtype=np.float32).view(np.uint32)))

    vin = np.array([[1.0, 0.333984375, 2.0], [0.10009765625, 0.2001953125, 0.30078125]], dtype=np.float32)
    assert np.array_equal(
        np.array([list(e) for e in out_v.list()], dtype=np.float32), rnd(rnd(vin * 3) + 0.5)
    )
    assert np.array_equal(np.array(out_m.list()[0].tolist()), [[7.0, 10.0], [15.0, 22.0]])
    # dot over bfloat16 vectors: the products and the sum computed in float32, the result rounded
    assert s.list()[0] == rnd((vin[0] * 0.5).sum())
    assert v.list()[0].tolist() == [1.0, 7.0, 2.0]


# -- atomics ---------------------------------------------------------------------------------------


@wp.kernel
def atomics(
    vals: wp.array(dtype=wp.bfloat16), acc: wp.array(dtype=wp.bfloat16), vacc: wp.array(dtype=vec3bf)
):
    i = wp.tid()
    wp.atomic_add(acc, 0, wp.bfloat16(1.0))
    wp.atomic_sub(acc, 1, wp.bfloat16(0.5))
    wp.atomic_min(acc, 2, vals[i])
    wp.atomic_max(acc, 3, vals[i])
    wp.atomic_add(vacc, 0, vec3bf(wp.bfloat16(1.0), wp.bfloat16(2.0), wp.bfloat16(0.25)))


def test_atomics_update_16_bit_slots_without_touching_neighbours():
    n = 200  # every partial sum is exactly representable: the result does not depend on order
    rng = np.random.default_rng(1)
    vals = rng.normal(0, 10, n).astype(np.float32)
    acc = wp.array([0.0, 0.0, 1e30, -1e30, 42.0], dtype=wp.bfloat16)
    vacc = wp.zeros(2, dtype=vec3bf)
    wp.launch(atomics, dim=n, inputs=[wp.array(vals, dtype=wp.bfloat16), acc, vacc])
    rv = ref_values(ref_bits_from_f32_bits(vals.view(np.uint32)))
    assert acc.list() == [200.0, -100.0, float(rv.min()), float(rv.max()), 42.0]
    assert vacc.list()[0].tolist() == [200.0, 400.0, 50.0]
    assert vacc.list()[1].tolist() == [0.0, 0.0, 0.0]


@wp.kernel
def exch_cas(a: wp.array(dtype=wp.bfloat16), old: wp.array(dtype=wp.bfloat16)):
    old[0] = wp.atomic_exch(a, 0, wp.bfloat16(5.0))
    old[1] = wp.atomic_cas(a, 1, wp.bfloat16(2.0), wp.bfloat16(9.0))
    old[2] = wp.atomic_cas(a, 2, wp.bfloat16(2.0), wp.bfloat16(9.0))


def test_atomic_exchange_and_compare_and_swap():
    a = wp.array([1.0, 2.0, 3.0], dtype=wp.bfloat16)
    old = wp.zeros(3, dtype=wp.bfloat16)
    wp.launch(exch_cas, dim=1, inputs=[a, old])
    assert a.list() == [5.0, 9.0, 3.0]
    assert old.list() == [1.0, 2.0, 3.0]


# -- structs, kernel arguments ---------------------------------------------------------------------


@wp.struct
class Sample:
    w: wp.bfloat16
    x: float
    v: vec3bf


@wp.kernel
def struct_kernel(s: Sample, arr: wp.array(dtype=Sample), out: wp.array(dtype=wp.bfloat16)):
    i = wp.tid()
    out[i] = s.w * wp.bfloat16(2.0) + s.v[2]
    t = Sample()
    t.w = s.w + wp.bfloat16(1.0)
    t.x = s.x
    t.v = s.v * s.w
    arr[i] = t


@pytest.mark.needs_plugin("builtins")
def test_struct_fields_and_arguments():
    s = Sample()
    s.w = wp.bfloat16(1.5)
    s.x = 2.0
    s.v = vec3bf(1.0, 2.0, 1 / 3)
    arr = wp.zeros(1, dtype=Sample)
    out = wp.zeros(1, dtype=wp.bfloat16)
    wp.launch(struct_kernel, dim=1, inputs=[s, arr, out])
    assert out.list() == [3.328125]  # 3.0 + 0.333984375 rounded (spacing 2**-6 in [2, 4))
    back = arr.list()[0]
    assert back.w == 2.5 and back.x == 2.0
    assert back.v.tolist() == [1.5, 3.0, 0.5]  # 0.333984375 * 1.5 = 0.5009765625 -> 0.5


# -- autodiff --------------------------------------------------------------------------------------


@wp.kernel
def square_sum(a: wp.array(dtype=wp.bfloat16), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(out, 0, float(a[i] * a[i]))


@pytest.mark.needs_plugin("autodiff")
def test_gradients_flow_through_bfloat16():
    vals = [0.5, -1.5, 3.0, 0.333984375]
    a = wp.array(vals, dtype=wp.bfloat16, requires_grad=True)
    out = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(square_sum, dim=4, inputs=[a, out])
    tape.backward(grads={out: wp.ones(1, dtype=float)})
    assert a.grad.dtype is wp.bfloat16
    assert a.grad.list() == [wp.bfloat16(2 * v).value for v in vals]
    assert out.numpy()[0] == pytest.approx(sum(wp.bfloat16(v * v).value for v in vals))
