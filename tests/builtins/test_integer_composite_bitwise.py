"""``& | ^ ~ << >>`` on integer vectors and matrices: component-wise, as the scalar operators.

References are NumPy's component-wise operators on the same data; shift amounts stay below the
bit width here (amounts at or above it are covered by the scalar tests in tests/core).
"""

import numpy as np
import pytest

import warp as wp

INT_TYPES = [
    (wp.int8, np.int8), (wp.uint8, np.uint8), (wp.int16, np.int16), (wp.uint16, np.uint16),
    (wp.int32, np.int32), (wp.uint32, np.uint32), (wp.int64, np.int64), (wp.uint64, np.uint64),
]

_kernels = {}


def bitwise_kernel(ctype):
    if ctype not in _kernels:

        @wp.kernel
        def ops(a: wp.array(dtype=ctype), b: wp.array(dtype=ctype), s: wp.array(dtype=ctype),
                out: wp.array2d(dtype=ctype)):
            i = wp.tid()
            x = a[i]
            y = b[i]
            out[i, 0] = x & y
            out[i, 1] = x | y
            out[i, 2] = x ^ y
            out[i, 3] = ~x
            out[i, 4] = x << s[i]
            out[i, 5] = x >> s[i]
            z = x
            z &= y
            z |= s[i]
            z ^= x
            out[i, 6] = z
            w = x
            w <<= s[i]
            w >>= s[i]
            out[i, 7] = w
            out[i, 8] = wp.bit_and(x, y) ^ wp.bit_or(x, y)
            out[i, 9] = wp.invert(wp.bit_xor(x, y)) >> s[i]

        _kernels[ctype] = ops
    return _kernels[ctype]


def _reference(x, y, s):
    z = ((x & y) | s) ^ x
    return [x & y, x | y, x ^ y, ~x, x << s, x >> s, z, (x << s) >> s, (x & y) ^ (x | y), (~(x ^ y)) >> s]


@pytest.mark.parametrize("wtype,nptype", INT_TYPES, ids=[t[0].__name__ for t in INT_TYPES])
@pytest.mark.parametrize("shape", [(2,), (3,), (4,), (2, 3), (3, 3)])
def test_bitwise_operators_match_numpy(wtype, nptype, shape):
    ctype = wp.types.vector(shape[0], wtype) if len(shape) == 1 else wp.types.matrix(shape, wtype)
    info = np.iinfo(nptype)
    bits = info.bits
    rng = np.random.default_rng(bits + len(shape))
    n = 16
    a = rng.integers(info.min, info.max, size=(n, *shape), endpoint=True, dtype=nptype)
    b = rng.integers(info.min, info.max, size=(n, *shape), endpoint=True, dtype=nptype)
    s = rng.integers(0, bits, size=(n, *shape), dtype=nptype)
    a[0] = info.min
    a[1] = info.max
    out = wp.zeros((n, 10), dtype=ctype)
    wp.launch(bitwise_kernel(ctype), dim=n, inputs=[wp.array(a, dtype=ctype), wp.array(b, dtype=ctype),
                                                    wp.array(s, dtype=ctype), out])
    got = out.numpy()
    with np.errstate(over="ignore"):
        for i in range(n):
            exp = _reference(a[i], b[i], s[i])
            for k, e in enumerate(exp):
                np.testing.assert_array_equal(got[i, k], e.astype(nptype), err_msg=f"{ctype.__name__} op {k}")


def test_bitwise_operators_reject_mixed_and_float_operands():
    @wp.kernel
    def mixed(o: wp.array(dtype=wp.vec3i)):
        o[0] = wp.vec3i(1, 2, 3) & wp.vec3l(wp.int64(1), wp.int64(2), wp.int64(3))

    msg = r"no overload of 'bit_and' accepts arguments \(vec3i, vec3l\)"
    with pytest.raises(wp.WarpCodegenTypeError, match=msg):
        wp.launch(mixed, dim=1, inputs=[wp.zeros(1, dtype=wp.vec3i)])

    @wp.kernel
    def floats(o: wp.array(dtype=wp.vec3)):
        o[0] = wp.vec3(1.0, 2.0, 3.0) << wp.vec3(1.0, 1.0, 1.0)

    msg = r"no overload of 'lshift' accepts arguments \(vec3f, vec3f\)"
    with pytest.raises(wp.WarpCodegenTypeError, match=msg):
        wp.launch(floats, dim=1, inputs=[wp.zeros(1, dtype=wp.vec3)])

    @wp.kernel
    def vec_scalar(o: wp.array(dtype=wp.vec3i)):
        o[0] = wp.vec3i(1, 2, 3) << 1

    with pytest.raises(wp.WarpCodegenTypeError, match=r"no overload of 'lshift'"):
        wp.launch(vec_scalar, dim=1, inputs=[wp.zeros(1, dtype=wp.vec3i)])
