"""Scalar shifts with amounts at or above the bit width, as C++ on x86 (NVIDIA Warp's CPU path).

Model: 8/16-bit operands are promoted to 32-bit int (C integer promotion), the amount is taken
modulo the promoted width (x86 masks it), the result is truncated back to the operand type.
"""

import numpy as np
import pytest

import warp as wp

TYPES = [
    (wp.int8, np.int8), (wp.uint8, np.uint8), (wp.int16, np.int16), (wp.uint16, np.uint16),
    (wp.int32, np.int32), (wp.uint32, np.uint32), (wp.int64, np.int64), (wp.uint64, np.uint64),
]


def c_shift(x, s, bits, signed, left):
    width = max(bits, 32)
    amount = s & (width - 1)
    r = x << amount if left else x >> amount  # Python ints: arithmetic right shift of the promoted value
    r &= (1 << bits) - 1
    if signed and r >= 1 << (bits - 1):
        r -= 1 << bits
    return r


_kernels = {}


def shift_kernel(t):
    if t not in _kernels:

        @wp.kernel
        def shifts(a: wp.array(dtype=t), s: wp.array(dtype=t), out: wp.array2d(dtype=t)):
            i = wp.tid()
            out[i, 0] = a[i] << s[i]
            out[i, 1] = a[i] >> s[i]

        _kernels[t] = shifts
    return _kernels[t]


@pytest.mark.parametrize("wtype,nptype", TYPES, ids=[t[0].__name__ for t in TYPES])
def test_shift_amounts_at_and_beyond_width(wtype, nptype):
    info = np.iinfo(nptype)
    bits, signed = info.bits, info.min < 0
    xs = [1, -1, info.min, info.max, 5, -77, 0x5A] if signed else [1, info.max, 5, 0x5A, info.max // 3]
    amounts = [0, 1, bits - 1, bits, bits + 1, 31, 32, 33, 63, 64, 65]
    amounts = [a for a in amounts if a <= info.max]
    pairs = [(x, s) for x in xs for s in amounts]
    a = wp.array(np.array([p[0] for p in pairs], dtype=nptype), dtype=wtype)
    s = wp.array(np.array([p[1] for p in pairs], dtype=nptype), dtype=wtype)
    out = wp.zeros((len(pairs), 2), dtype=wtype)
    wp.launch(shift_kernel(wtype), dim=len(pairs), inputs=[a, s, out])
    got = out.numpy()
    for i, (x, sh) in enumerate(pairs):
        exp = [c_shift(x, sh, bits, signed, True), c_shift(x, sh, bits, signed, False)]
        assert [int(g) for g in got[i]] == exp, (wtype.__name__, x, sh)


def test_examples():
    @wp.kernel
    def ex(out: wp.array(dtype=int), out8: wp.array(dtype=wp.int8)):
        out[0] = 1 << 33
        k = 33
        out[1] = 1 << k
        out[2] = -16 >> k
        out8[0] = wp.int8(1) << wp.int8(9)
        out8[1] = wp.int8(-128) >> wp.int8(9)
        out8[2] = wp.int8(3) << wp.int8(7)

    out, out8 = wp.zeros(3, dtype=int), wp.zeros(3, dtype=wp.int8)
    wp.launch(ex, dim=1, inputs=[out, out8])
    assert out.numpy().tolist() == [2, 2, -8]
    assert out8.numpy().tolist() == [0, -1, -128]
