"""Kernel language: scalar types, arithmetic/bitwise/comparison/boolean operators, casts, literals.

Every computed value is checked against a reference computed in Python/NumPy. ``**`` is not
tested here (it lowers to wp.pow from the warp-builtins package).
"""

import numpy as np
import pytest

import warp as wp

# (warp type, numpy type, bits, signed)
INT_TYPES = [
    (wp.int8, np.int8, 8, True),
    (wp.uint8, np.uint8, 8, False),
    (wp.int16, np.int16, 16, True),
    (wp.uint16, np.uint16, 16, False),
    (wp.int32, np.int32, 32, True),
    (wp.uint32, np.uint32, 32, False),
    (wp.int64, np.int64, 64, True),
    (wp.uint64, np.uint64, 64, False),
]
FLOAT_TYPES = [(wp.float16, np.float16), (wp.float32, np.float32), (wp.float64, np.float64)]


def wrap(v, bits, signed):
    """Two's complement wrap of a Python int to ``bits`` bits."""
    v &= (1 << bits) - 1
    if signed and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def c_div(a, b):
    """C integer division (truncates toward zero); division by zero gives 0 in warp kernels."""
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def c_mod(a, b):
    """C remainder: sign of the dividend."""
    return a - b * c_div(a, b)


def floor_div(a, b):
    """Warp's integer ``//``: rounds toward negative infinity (Python's //); x // 0 gives 0."""
    return 0 if b == 0 else a // b


def int_operands(bits, signed, n=64, seed=0):
    rng = np.random.default_rng(seed + bits + signed)
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    edge = [lo, hi, 0, 1, 2, 3, 7, hi - 1, lo + 1]
    if signed:
        edge += [-1, -2, -3, -7]
    xs = edge + [
        int(v)
        for v in rng.integers(
            lo, hi, size=n, endpoint=True, dtype=np.int64 if signed or bits < 64 else np.uint64
        )
    ]
    ys = list(reversed(edge)) + [
        int(v)
        for v in rng.integers(
            lo, hi, size=n, endpoint=True, dtype=np.int64 if signed or bits < 64 else np.uint64
        )
    ]
    # make sure every interesting divisor shows up against interesting dividends
    pairs = list(zip(xs, ys))
    divisors = [0, 1, 2, 3, 7] + ([-1, -2, -3, -7] if signed else [])
    for a in [lo, hi, 0, 1, 7, hi - 1] + ([-1, -7, -8] if signed else []):
        for d in divisors:
            pairs.append((a, d))
    return pairs


INT_OPS = ["add", "sub", "mul", "div", "floordiv", "mod", "neg", "and", "or", "xor", "invert", "lshift",
           "rshift", "lit_add", "lit_sub", "lit_mul", "pos"]


def int_reference(op, a, b, s, bits, signed):
    r = {
        "add": lambda: a + b,
        "sub": lambda: a - b,
        "mul": lambda: a * b,
        "div": lambda: c_div(a, b),
        "floordiv": lambda: floor_div(a, b),
        "mod": lambda: c_mod(a, b) if b != 0 else None,
        "neg": lambda: -a,
        "and": lambda: a & b,
        "or": lambda: a | b,
        "xor": lambda: a ^ b,
        "invert": lambda: ~a,
        "lshift": lambda: a << s,
        "rshift": lambda: a >> s,
        "lit_add": lambda: a + 1,
        "lit_sub": lambda: a - 3,
        "lit_mul": lambda: a * 5,
        "pos": lambda: a,
    }[op]()
    return None if r is None else wrap(r, bits, signed)


def make_int_kernel(dtype):
    @wp.kernel
    def int_ops(a: wp.array(dtype=dtype), b: wp.array(dtype=dtype), s: wp.array(dtype=dtype),
                out: wp.array2d(dtype=dtype), cmp: wp.array2d(dtype=wp.int32)):
        i = wp.tid()
        x = a[i]
        y = b[i]
        out[i, 0] = x + y
        out[i, 1] = x - y
        out[i, 2] = x * y
        out[i, 3] = x / y
        out[i, 4] = x // y
        out[i, 5] = x % y
        out[i, 6] = -x
        out[i, 7] = x & y
        out[i, 8] = x | y
        out[i, 9] = x ^ y
        out[i, 10] = ~x
        out[i, 11] = x << s[i]
        out[i, 12] = x >> s[i]
        out[i, 13] = x + 1
        out[i, 14] = x - 3
        out[i, 15] = 5 * x
        out[i, 16] = +x
        cmp[i, 0] = wp.int32(x < y)
        cmp[i, 1] = wp.int32(x <= y)
        cmp[i, 2] = wp.int32(x > y)
        cmp[i, 3] = wp.int32(x >= y)
        cmp[i, 4] = wp.int32(x == y)
        cmp[i, 5] = wp.int32(x != y)
        cmp[i, 6] = wp.int32(not x)
        cmp[i, 7] = wp.int32(x > 0 and y > 0)
        cmp[i, 8] = wp.int32(x > 0 or y > 0)

    return int_ops


@pytest.mark.parametrize("wtype,nptype,bits,signed", INT_TYPES, ids=[t[0].__name__ for t in INT_TYPES])
def test_integer_operators(wtype, nptype, bits, signed):
    pairs = int_operands(bits, signed)
    n = len(pairs)
    rng = np.random.default_rng(bits)
    shifts = [int(v) for v in rng.integers(0, bits, size=n)]
    a = wp.array(np.array([p[0] for p in pairs], dtype=nptype), dtype=wtype)
    b = wp.array(np.array([p[1] for p in pairs], dtype=nptype), dtype=wtype)
    s = wp.array(np.array(shifts, dtype=nptype), dtype=wtype)
    out = wp.zeros((n, len(INT_OPS)), dtype=wtype)
    cmp = wp.zeros((n, 9), dtype=wp.int32)
    wp.launch(make_int_kernel(wtype), dim=n, inputs=[a, b, s, out, cmp])
    got = out.numpy()
    got_cmp = cmp.numpy()
    for i, (x, y) in enumerate(pairs):
        for k, op in enumerate(INT_OPS):
            expected = int_reference(op, x, y, shifts[i], bits, signed)
            if expected is None:
                continue  # x % 0: only required not to crash
            assert int(got[i, k]) == expected, f"{wtype.__name__}: {x} {op} {y} (shift {shifts[i]})"
        expected_cmp = [x < y, x <= y, x > y, x >= y, x == y, x != y, not x, x > 0 and y > 0, x > 0 or y > 0]
        assert [bool(v) for v in got_cmp[i]] == expected_cmp, f"{wtype.__name__}: compare {x}, {y}"


def test_integer_division_semantics_int32():
    """Explicit table: ``/`` truncates toward zero, ``//`` floors, ``%`` keeps the dividend's sign
    (truncated remainder, as NVIDIA Warp's wp.mod), x/0, x//0 and x%0 give 0."""

    @wp.kernel
    def divmod_kernel(a: wp.array(dtype=int), b: wp.array(dtype=int), q: wp.array(dtype=int),
                      f: wp.array(dtype=int), r: wp.array(dtype=int)):
        i = wp.tid()
        q[i] = a[i] / b[i]
        f[i] = a[i] // b[i]
        r[i] = a[i] % b[i]

    xs = [7, -7, 7, -7, 1, -1, 0, 5, -5, 2**31 - 1, -(2**31)]
    ys = [2, 2, -2, -2, 3, 3, 3, 0, 0, 0, -1]
    a, b = wp.array(xs, dtype=int), wp.array(ys, dtype=int)
    q, f, r = (wp.zeros(len(xs), dtype=int) for _ in range(3))
    wp.launch(divmod_kernel, dim=len(xs), inputs=[a, b, q, f, r])
    assert q.numpy().tolist() == [3, -3, -3, 3, 0, 0, 0, 0, 0, 0, -(2**31)]
    assert f.numpy().tolist() == [3, -4, -4, 3, 0, -1, 0, 0, 0, 0, -(2**31)]
    assert r.numpy().tolist()[:7] == [1, -1, 1, -1, 1, -1, 0]
    assert r.numpy().tolist()[-1] == 0


def make_float_kernel(dtype):
    @wp.kernel
    def float_ops(a: wp.array(dtype=dtype), b: wp.array(dtype=dtype), out: wp.array2d(dtype=dtype),
                  cmp: wp.array2d(dtype=wp.int32)):
        i = wp.tid()
        x = a[i]
        y = b[i]
        out[i, 0] = x + y
        out[i, 1] = x - y
        out[i, 2] = x * y
        out[i, 3] = x / y
        out[i, 4] = x // y
        out[i, 5] = x % y
        out[i, 6] = -x
        out[i, 7] = +x
        out[i, 8] = x * 0.1      # float literals adapt to the operand type
        out[i, 9] = 0.1 + x
        out[i, 10] = x - 2.0
        out[i, 11] = 2.5 - x
        cmp[i, 0] = wp.int32(x < y)
        cmp[i, 1] = wp.int32(x <= y)
        cmp[i, 2] = wp.int32(x > y)
        cmp[i, 3] = wp.int32(x >= y)
        cmp[i, 4] = wp.int32(x == y)
        cmp[i, 5] = wp.int32(x != y)
        cmp[i, 6] = wp.int32(not x)
        cmp[i, 7] = wp.int32(x < 0.5)

    return float_ops


@pytest.mark.parametrize("wtype,nptype", FLOAT_TYPES, ids=[t[0].__name__ for t in FLOAT_TYPES])
def test_float_operators(wtype, nptype):
    rng = np.random.default_rng(3)
    xs = np.concatenate([[7.5, -7.5, 7.5, -7.5, 0.0, 1.0, -0.25, 3.0, 0.5],
                         rng.uniform(-100, 100, 40)]).astype(nptype)
    ys = np.concatenate([[2.0, 2.0, -2.0, -2.0, 3.0, 1.0, 0.5, 3.0, 0.5],
                         rng.uniform(-10, 10, 40)]).astype(nptype)
    n = len(xs)
    a, b = wp.array(xs, dtype=wtype), wp.array(ys, dtype=wtype)
    out = wp.zeros((n, 12), dtype=wtype)
    cmp = wp.zeros((n, 8), dtype=wp.int32)
    wp.launch(make_float_kernel(wtype), dim=n, inputs=[a, b, out, cmp])
    got = out.numpy()
    assert got.dtype == nptype
    lit = nptype(0.1)
    with np.errstate(all="ignore"):
        expected = np.stack([
            xs + ys, xs - ys, xs * ys, xs / ys, np.floor(xs / ys), np.fmod(xs, ys), -xs, xs,
            xs * lit, lit + xs, xs - nptype(2.0), nptype(2.5) - xs,
        ], axis=1).astype(nptype)
    np.testing.assert_array_equal(got, expected)
    expected_cmp = np.stack([xs < ys, xs <= ys, xs > ys, xs >= ys, xs == ys, xs != ys, xs == 0,
                             xs < nptype(0.5)], axis=1)
    np.testing.assert_array_equal(cmp.numpy().astype(bool), expected_cmp)


def test_float64_literal_keeps_double_precision():
    @wp.kernel
    def f64_literal(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
        i = wp.tid()
        out[i] = x[i] + 1.0e-12
        out[i + 2] = x[i] * 0.1

    x = wp.array([1.0, 3.0], dtype=wp.float64)
    out = wp.zeros(4, dtype=wp.float64)
    wp.launch(f64_literal, dim=2, inputs=[x, out])
    np.testing.assert_array_equal(out.numpy(), [1.0 + 1.0e-12, 3.0 + 1.0e-12, 0.1, 3.0 * 0.1])


def test_float_nan_comparisons():
    @wp.kernel
    def nan_cmp(x: wp.array(dtype=float), out: wp.array(dtype=int)):
        v = x[0]
        out[0] = int(v == v)
        out[1] = int(v != v)
        out[2] = int(v < 1.0)
        out[3] = int(v >= 1.0)

    out = wp.zeros(4, dtype=int)
    wp.launch(nan_cmp, dim=1, inputs=[wp.array([np.nan], dtype=float), out])
    assert out.numpy().tolist() == [0, 1, 0, 0]


def test_integer_literal_wraps_in_narrow_types():
    @wp.kernel
    def narrow(a: wp.array(dtype=wp.int8), b: wp.array(dtype=wp.uint8), c: wp.array(dtype=wp.uint64),
               d: wp.array(dtype=wp.int64), e: wp.array(dtype=wp.int16)):
        a[0] = a[0] + 1
        b[0] = b[0] - 1
        c[0] = c[0] * 3
        d[0] = d[0] + 10000000000
        e[0] = e[0] * 2 - 1

    a = wp.array([127], dtype=wp.int8)
    b = wp.array([0], dtype=wp.uint8)
    c = wp.array([2**63], dtype=wp.uint64)
    d = wp.array([5], dtype=wp.int64)
    e = wp.array([-20000], dtype=wp.int16)
    wp.launch(narrow, dim=1, inputs=[a, b, c, d, e])
    assert a.numpy()[0] == -128
    assert b.numpy()[0] == 255
    assert int(c.numpy()[0]) == (3 * 2**63) % 2**64
    assert d.numpy()[0] == 10000000005
    assert e.numpy()[0] == wrap(-40001, 16, True)


def test_augmented_assignment_on_locals():
    @wp.kernel
    def aug(a: wp.array(dtype=int), b: wp.array(dtype=int), fa: wp.array(dtype=float),
            out: wp.array2d(dtype=int), fout: wp.array2d(dtype=float)):
        i = wp.tid()
        y = b[i]
        x = a[i]
        x += y
        out[i, 0] = x
        x -= 3
        out[i, 1] = x
        x *= y
        out[i, 2] = x
        x /= 2
        out[i, 3] = x
        x //= 3
        out[i, 4] = x
        x %= 5
        out[i, 5] = x
        x = a[i]
        x &= y
        out[i, 6] = x
        x |= 12
        out[i, 7] = x
        x ^= y
        out[i, 8] = x
        x <<= 2
        out[i, 9] = x
        x >>= 1
        out[i, 10] = x
        f = fa[i]
        f += 1.5
        fout[i, 0] = f
        f -= 0.25
        fout[i, 1] = f
        f *= 2.0
        fout[i, 2] = f
        f /= 4.0
        fout[i, 3] = f

    xs, ys = [17, -17, 100, 0, -1], [3, 5, -7, 9, 1]
    fs = [1.0, -2.5, 0.75, 100.0, -0.5]
    n = len(xs)
    out, fout = wp.zeros((n, 11), dtype=int), wp.zeros((n, 4), dtype=float)
    wp.launch(aug, dim=n, inputs=[wp.array(xs, dtype=int), wp.array(ys, dtype=int), wp.array(fs, dtype=float),
                                  out, fout])
    for i, (x0, y) in enumerate(zip(xs, ys)):
        x = x0 + y
        exp = [x]
        x -= 3
        exp.append(x)
        x *= y
        exp.append(x)
        x = c_div(x, 2)
        exp.append(x)
        x = floor_div(x, 3)
        exp.append(x)
        x = c_mod(x, 5)
        exp.append(x)
        x = x0 & y
        exp.append(x)
        x |= 12
        exp.append(x)
        x ^= y
        exp.append(x)
        x = wrap(x << 2, 32, True)
        exp.append(x)
        x >>= 1
        exp.append(x)
        assert out.numpy()[i].tolist() == exp, f"row {i}"
        f = np.float32(fs[i])
        fexp = []
        f = np.float32(f + np.float32(1.5))
        fexp.append(f)
        f = np.float32(f - np.float32(0.25))
        fexp.append(f)
        f = np.float32(f * np.float32(2.0))
        fexp.append(f)
        f = np.float32(f / np.float32(4.0))
        fexp.append(f)
        np.testing.assert_array_equal(fout.numpy()[i], np.array(fexp, dtype=np.float32))


def test_chained_comparisons_and_boolean_operators():
    @wp.kernel
    def chains(x: wp.array(dtype=int), y: wp.array(dtype=int), out: wp.array2d(dtype=int)):
        i = wp.tid()
        a = x[i]
        b = y[i]
        out[i, 0] = int(0 < a < 10)
        out[i, 1] = int(a <= b <= 5)
        out[i, 2] = int(a == b == 3)
        out[i, 3] = int(a < b > 0)
        out[i, 4] = int(0 <= a < b <= 8)
        out[i, 5] = int(a > 0 and b > 0 and a != b)
        out[i, 6] = int(a > 5 or b > 5 or a == b)
        out[i, 7] = int(not (a < b))
        out[i, 8] = int(not a < b and b != 0)
        c = a > 2
        d = b > 2
        out[i, 9] = int(c and not d)
        out[i, 10] = int((c or d) and not (c and d))
        out[i, 11] = int(c == d)
        out[i, 12] = int(c != d)
        if a and b:
            out[i, 13] = 1
        if a or b:
            out[i, 14] = 1

    xs = [-3, 0, 1, 3, 3, 5, 9, 10, 7, 2, 6]
    ys = [-3, 4, 1, 3, 2, 6, 0, 12, 8, 0, 0]
    n = len(xs)
    out = wp.zeros((n, 15), dtype=int)
    wp.launch(chains, dim=n, inputs=[wp.array(xs, dtype=int), wp.array(ys, dtype=int), out])
    for i, (a, b) in enumerate(zip(xs, ys)):
        c, d = a > 2, b > 2
        exp = [0 < a < 10, a <= b <= 5, a == b == 3, a < b > 0, 0 <= a < b <= 8, a > 0 and b > 0 and a != b,
               a > 5 or b > 5 or a == b, not (a < b), not a < b and b != 0, c and not d,
               (c or d) and not (c and d), c == d, c != d, bool(a and b), bool(a or b)]
        assert out.numpy()[i].tolist() == [int(bool(v)) for v in exp], f"a={a} b={b}"


@wp.func
def bump_and_return(counter: wp.array(dtype=int), value: bool):
    wp.atomic_add(counter, 0, 1)
    return value


def test_boolean_operators_short_circuit():
    """``a and b`` skips b when a is false; ``a or b`` skips b when a is true (counted by atomics)."""

    @wp.kernel
    def short_circuit(counter: wp.array(dtype=int), out: wp.array(dtype=int)):
        if bump_and_return(counter, False) and bump_and_return(counter, True):
            out[0] = 1
        if bump_and_return(counter, True) or bump_and_return(counter, False):
            out[1] = 1
        if bump_and_return(counter, True) and bump_and_return(counter, True):
            out[2] = 1
        if bump_and_return(counter, False) or bump_and_return(counter, True):
            out[3] = 1

    counter = wp.zeros(1, dtype=int)
    out = wp.zeros(4, dtype=int)
    wp.launch(short_circuit, dim=1, inputs=[counter, out])
    assert counter.numpy()[0] == 1 + 1 + 2 + 2
    assert out.numpy().tolist() == [0, 1, 1, 1]


def test_bool_type_in_arrays_and_logic():
    @wp.kernel
    def bools(a: wp.array(dtype=wp.bool), b: wp.array(dtype=wp.bool), out: wp.array2d(dtype=wp.bool)):
        i = wp.tid()
        x = a[i]
        y = b[i]
        out[i, 0] = x and y
        out[i, 1] = x or y
        out[i, 2] = not x
        out[i, 3] = x == y
        out[i, 4] = x != y
        out[i, 5] = True
        out[i, 6] = bool(wp.int32(x) + wp.int32(y))

    xs = [False, False, True, True]
    ys = [False, True, False, True]
    out = wp.zeros((4, 7), dtype=wp.bool)
    wp.launch(bools, dim=4, inputs=[wp.array(xs, dtype=wp.bool), wp.array(ys, dtype=wp.bool), out])
    got = out.numpy()
    assert got.dtype == np.bool_
    for i, (x, y) in enumerate(zip(xs, ys)):
        assert got[i].tolist() == [x and y, x or y, not x, x == y, x != y, True, x or y]


def test_casts_from_float():
    @wp.kernel
    def from_float(
        x: wp.array(dtype=float),
        i32: wp.array2d(dtype=int),
        i8: wp.array(dtype=wp.int8),
        u8: wp.array(dtype=wp.uint8),
        i64: wp.array(dtype=wp.int64),
        u64: wp.array(dtype=wp.uint64),
        u32: wp.array(dtype=wp.uint32),
        f16: wp.array(dtype=wp.float16),
        f64: wp.array(dtype=wp.float64),
        bl: wp.array(dtype=wp.bool),
    ):
        i = wp.tid()
        v = x[i]
        i32[i, 0] = int(v)
        i32[i, 1] = wp.int32(v)
        i8[i] = wp.int8(v)
        u8[i] = wp.uint8(v)
        i64[i] = wp.int64(v)
        u64[i] = wp.uint64(v)
        u32[i] = wp.uint32(v)
        f16[i] = wp.float16(v)
        f64[i] = wp.float64(v)
        bl[i] = bool(v)

    xs = np.array([2.7, -2.7, 0.0, -0.5, 127.9, 128.5, -128.9, -200.0, 255.5, 300.0, 1e10, -1e10, 3e19, 1e30,
                   65504.0, 1.0 / 3.0], dtype=np.float32)
    n = len(xs)
    arrays = [wp.zeros((n, 2), dtype=int)] + [wp.zeros(n, dtype=t) for t in
                                               (wp.int8, wp.uint8, wp.int64, wp.uint64, wp.uint32, wp.float16,
                                                wp.float64, wp.bool)]
    wp.launch(from_float, dim=n, inputs=[wp.array(xs, dtype=float), *arrays])
    i32, i8, u8, i64, u64, u32, f16, f64, bl = (a.numpy() for a in arrays)

    def sat(v, bits, signed):
        t = int(v)  # truncation toward zero
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        return min(max(t, lo), hi)

    for k, v in enumerate(xs.tolist()):
        assert i32[k, 0] == sat(v, 32, True), v
        assert i32[k, 1] == sat(v, 32, True), v
        assert i8[k] == sat(v, 8, True), v
        assert u8[k] == sat(v, 8, False), v
        assert i64[k] == sat(v, 64, True), v
        assert int(u64[k]) == sat(v, 64, False), v
        assert u32[k] == sat(v, 32, False), v
        assert bl[k] == (v != 0.0), v
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(f16, xs.astype(np.float16))
    np.testing.assert_array_equal(f64, xs.astype(np.float64))


def test_casts_between_integers_and_to_float():
    @wp.kernel
    def from_int(x: wp.array(dtype=int), big: wp.array(dtype=wp.int64), u8: wp.array(dtype=wp.uint8),
                 i8: wp.array(dtype=wp.int8), u32: wp.array(dtype=wp.uint32), i64: wp.array(dtype=wp.int64),
                 u64: wp.array(dtype=wp.uint64), f32: wp.array(dtype=float), f64: wp.array(dtype=wp.float64),
                 bl: wp.array(dtype=wp.bool), back: wp.array(dtype=int)):
        i = wp.tid()
        v = x[i]
        u8[i] = wp.uint8(v)
        i8[i] = wp.int8(v)
        u32[i] = wp.uint32(v)
        i64[i] = wp.int64(v)
        u64[i] = wp.uint64(v)
        f32[i] = float(v)
        f64[i] = wp.float64(big[i])
        bl[i] = bool(v)
        back[i] = int(big[i])  # int64 -> int32 wraps

    xs = [0, 300, -1, 200, -200, 2**31 - 1, -(2**31), 255, 256, 12345678]
    bigs = [2**40 + 7, -(2**40) - 3, 2**53 + 1, -5, 0, 2**32 + 5, 2**31, 3, -(2**31) - 1, 17]
    n = len(xs)
    outs = [
        wp.zeros(n, dtype=t)
        for t in (wp.uint8, wp.int8, wp.uint32, wp.int64, wp.uint64, float, wp.float64, wp.bool, int)
    ]
    wp.launch(from_int, dim=n, inputs=[wp.array(xs, dtype=int), wp.array(bigs, dtype=wp.int64), *outs])
    u8, i8, u32, i64, u64, f32, f64, bl, back = (o.numpy() for o in outs)
    assert u8.tolist() == [wrap(v, 8, False) for v in xs]
    assert i8.tolist() == [wrap(v, 8, True) for v in xs]
    assert u32.tolist() == [wrap(v, 32, False) for v in xs]
    assert i64.tolist() == xs
    assert [int(v) for v in u64] == [wrap(v, 64, False) for v in xs]  # sign extension then reinterpretation
    np.testing.assert_array_equal(f32, np.array(xs, dtype=np.float64).astype(np.float32))
    np.testing.assert_array_equal(f64, np.array(bigs, dtype=np.int64).astype(np.float64))
    assert bl.tolist() == [v != 0 for v in xs]
    assert back.tolist() == [wrap(v, 32, True) for v in bigs]


def test_constant_casts_match_runtime_casts():
    """Casts of literals (folded at compile time) follow the same rules as casts of runtime values."""

    @wp.kernel
    def const_casts(
        out: wp.array(dtype=wp.int64), fout: wp.array(dtype=float), bout: wp.array(dtype=wp.bool)
    ):
        out[0] = wp.int64(int(2.7))
        out[1] = wp.int64(int(-2.7))
        out[2] = wp.int64(wp.uint8(300))
        out[3] = wp.int64(wp.int8(200))
        out[4] = wp.int64(wp.uint8(-5.0))
        out[5] = wp.int64(wp.uint8(300.0))
        out[6] = wp.int64(wp.int32(1e10))
        out[7] = wp.int64(wp.int16(-1e6))
        out[8] = wp.int64(wp.uint32(-1))
        out[9] = wp.int64(int(True))
        fout[0] = float(3)
        fout[1] = float(wp.float16(0.1))
        fout[2] = float(True)
        bout[0] = bool(0)
        bout[1] = bool(-3)
        bout[2] = bool(0.25)
        bout[3] = bool(0.0)

    out = wp.zeros(10, dtype=wp.int64)
    fout = wp.zeros(3, dtype=float)
    bout = wp.zeros(4, dtype=wp.bool)
    wp.launch(const_casts, dim=1, inputs=[out, fout, bout])
    assert out.numpy().tolist() == [2, -2, 44, -56, 0, 255, 2**31 - 1, -(2**15), 2**32 - 1, 1]
    np.testing.assert_array_equal(
        fout.numpy(), np.array([3.0, float(np.float16(0.1)), 1.0], dtype=np.float32)
    )
    assert bout.numpy().tolist() == [False, True, True, False]


def test_float_and_int_aliases():
    """``float`` and ``int`` are aliases of wp.float32 and wp.int32."""

    @wp.kernel
    def aliases(f: wp.array(dtype=float), i: wp.array(dtype=int), s: float, n: int):
        f[0] = f[0] + s
        i[0] = i[0] + n

    f = wp.array([1.5], dtype=wp.float32)
    i = wp.array([10], dtype=wp.int32)
    wp.launch(aliases, dim=1, inputs=[f, i, 0.25, 5])
    assert f.numpy()[0] == 1.75
    assert i.numpy()[0] == 15
    assert wp.zeros(1, dtype=float).dtype is wp.float32
    assert wp.zeros(1, dtype=int).dtype is wp.int32


def test_scalar_kernel_arguments_of_every_type():
    @wp.kernel
    def scalar_args(
        a: wp.int8,
        b: wp.uint8,
        c: wp.int16,
        d: wp.uint16,
        e: wp.int32,
        f: wp.uint32,
        g: wp.int64,
        h: wp.uint64,
        x: wp.float16,
        y: wp.float32,
        z: wp.float64,
        flag: wp.bool,
        out: wp.array(dtype=wp.float64),
        iout: wp.array(dtype=wp.int64),
        uout: wp.array(dtype=wp.uint64),
    ):
        iout[0] = wp.int64(a)
        iout[1] = wp.int64(b)
        iout[2] = wp.int64(c)
        iout[3] = wp.int64(d)
        iout[4] = wp.int64(e)
        iout[5] = wp.int64(f)
        iout[6] = g
        uout[0] = h
        out[0] = wp.float64(x)
        out[1] = wp.float64(y)
        out[2] = z
        if flag:
            iout[7] = 1

    vals = [-128, 255, -32768, 65535, -(2**31), 2**32 - 1, -(2**63), 2**64 - 1, 0.5, 0.1, 0.1, True]
    out = wp.zeros(3, dtype=wp.float64)
    iout = wp.zeros(8, dtype=wp.int64)
    uout = wp.zeros(1, dtype=wp.uint64)
    wp.launch(scalar_args, dim=1, inputs=[*vals, out, iout, uout])
    assert iout.numpy().tolist() == vals[:7] + [1]
    assert int(uout.numpy()[0]) == 2**64 - 1
    assert out.numpy().tolist() == [0.5, float(np.float32(0.1)), 0.1]


@pytest.mark.parametrize("wtype,nptype", [(t[0], t[1]) for t in INT_TYPES] + FLOAT_TYPES,
                         ids=[t[0].__name__ for t in INT_TYPES + FLOAT_TYPES])
def test_load_store_roundtrip_every_scalar_type(wtype, nptype):
    @wp.kernel
    def copy_kernel(src: wp.array(dtype=wtype), dst: wp.array(dtype=wtype)):
        i = wp.tid()
        dst[i] = src[i]

    if np.issubdtype(nptype, np.integer):
        info = np.iinfo(nptype)
        data = np.array([info.min, info.max, 0, 1, info.max // 3], dtype=nptype)
    else:
        info = np.finfo(nptype)
        data = np.array([info.min, info.max, 0.0, -0.0, info.tiny, 1.0 / 3.0], dtype=nptype)
    dst = wp.zeros(len(data), dtype=wtype)
    wp.launch(copy_kernel, dim=len(data), inputs=[wp.array(data, dtype=wtype), dst])
    np.testing.assert_array_equal(dst.numpy(), data)
    assert dst.numpy().dtype == nptype


def test_unsigned_and_64_bit_float_conversions():
    @wp.kernel
    def wide(u64: wp.array(dtype=wp.uint64), u32: wp.array(dtype=wp.uint32), u8: wp.array(dtype=wp.uint8),
             d: wp.array(dtype=wp.float64), fo: wp.array(dtype=wp.float64), f32o: wp.array(dtype=float),
             uo: wp.array(dtype=wp.uint64), io: wp.array(dtype=wp.int64)):
        fo[0] = wp.float64(u64[0])
        fo[1] = wp.float64(u32[0])
        fo[2] = wp.float64(u8[0])
        f32o[0] = float(u32[0])
        f32o[1] = float(u8[0])
        uo[0] = wp.uint64(d[0])
        uo[1] = wp.uint64(d[1])
        io[0] = wp.int64(d[2])
        io[1] = wp.int64(d[3])
        io[2] = wp.int64(u32[0])
        io[3] = wp.int64(u64[0])  # same width: reinterpretation

    d = [1e19, -3.5, -9.0e18, 9.3e18]
    fo, f32o = wp.zeros(3, dtype=wp.float64), wp.zeros(2, dtype=float)
    uo, io = wp.zeros(2, dtype=wp.uint64), wp.zeros(4, dtype=wp.int64)
    wp.launch(
        wide,
        dim=1,
        inputs=[
            wp.array([2**64 - 1], dtype=wp.uint64),
            wp.array([4_000_000_000], dtype=wp.uint32),
            wp.array([250], dtype=wp.uint8),
            wp.array(d, dtype=wp.float64),
            fo,
            f32o,
            uo,
            io,
        ],
    )
    assert fo.numpy().tolist() == [float(2**64), 4e9, 250.0]
    assert f32o.numpy().tolist() == [float(np.float32(4e9)), 250.0]
    assert [int(v) for v in uo.numpy()] == [10**19, 0]
    assert io.numpy().tolist() == [-9 * 10**18, 2**63 - 1, 4_000_000_000, -1]


@wp.kernel
def _compare_with_int_literals(
    x: wp.array(dtype=float), y: wp.array(dtype=wp.float64), out: wp.array(dtype=int)
):
    i = wp.tid()
    r = 0
    if x[i] == 1:
        r += 1
    if 2 > x[i]:
        r += 10
    if y[i] >= 1 and y[i] != 2:
        r += 100
    out[i] = r


def test_int_literals_compare_with_floats_as_floats():
    x = np.array([0.5, 1.0, 2.0, 1.5, -3.0], dtype=np.float32)
    out = wp.zeros(len(x), dtype=int)
    inputs = [wp.array(x), wp.array(x, dtype=wp.float64), out]
    wp.launch(_compare_with_int_literals, dim=len(x), inputs=inputs)
    expected = (x == 1) * 1 + (2 > x) * 10 + ((x >= 1) & (x != 2)) * 100
    np.testing.assert_array_equal(out.numpy(), expected)
