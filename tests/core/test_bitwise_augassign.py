"""``a[i] &= x``, ``a[i] |= x`` and ``a[i] ^= x`` on arrays of 32/64-bit integers (and of their
vectors and matrices, and on single components) are atomic updates, like ``a[i] += x``: every
thread updating one element counts. On 8/16-bit integers (no atomics) the element is read,
updated and written back.

Values are checked on every device (the CPU and the CUDA stand-in) against NumPy; the lowering is
checked in the LLVM IR (an ``atomicrmw`` of the right operation, no plain store of the element).
"""

import re

import numpy as np
import pytest

import warp as wp
from warp.compiler.frontend.translator import build_kernel
from warp.compiler.lowering.kernel import lower_kernel
from warp.compiler.options import compiling, resolve_options
from warp.targets import target_for_kind

_mat22ui = wp.types.matrix(shape=(2, 2), dtype=wp.uint32)


@wp.kernel
def _scalar_bits(a: wp.array(dtype=wp.uint32), b: wp.array(dtype=wp.uint32), op: int):
    # 32 threads per word, each contributing one bit of b: a lost update loses a bit
    i = wp.tid()
    w = i // 32
    mask = wp.uint32(1) << wp.uint32(i % 32)
    if op == 0:
        a[w] &= (b[w] & mask) | ~mask
    elif op == 1:
        a[w] |= b[w] & mask
    else:
        a[w] ^= b[w] & mask


@wp.kernel
def _int64_xor(a: wp.array(dtype=wp.int64), v: wp.array(dtype=wp.int64)):
    i = wp.tid()
    a[i % 4] ^= v[i]


@wp.kernel
def _composite_bits(v: wp.array(dtype=wp.vec3ui), m: wp.array(dtype=_mat22ui), op: int):
    i = wp.tid()
    w = i // 32
    bit = wp.uint32(1) << wp.uint32(i % 32)
    if op == 0:
        v[w] &= wp.vec3ui(~bit, ~bit, ~bit)
        m[w] &= _mat22ui(~bit, ~bit, ~bit, ~bit)
    elif op == 1:
        v[w] |= wp.vec3ui(bit, wp.uint32(0), bit)
        m[w] |= _mat22ui(bit, wp.uint32(0), wp.uint32(0), bit)
    else:
        v[w] ^= wp.vec3ui(bit, bit, wp.uint32(0))
        m[w] ^= _mat22ui(wp.uint32(0), bit, bit, bit)


@wp.kernel
def _component_bits(v: wp.array(dtype=wp.vec3ui), m: wp.array(dtype=_mat22ui)):
    i = wp.tid()
    bit = wp.uint32(1) << wp.uint32(i % 32)
    v[0].y |= bit
    v[1][2] &= ~bit
    m[0][1, 0] ^= bit


@wp.kernel
def _narrow_or(a: wp.array(dtype=wp.uint8), v: wp.array(dtype=wp.uint8)):
    i = wp.tid()
    a[i] |= v[i]


def _words(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(42)
    a = rng.integers(0, np.iinfo(np.uint32).max, size=n, dtype=np.uint32)
    b = rng.integers(0, np.iinfo(np.uint32).max, size=n, dtype=np.uint32)
    return a, b


@pytest.mark.parametrize("op", [0, 1, 2], ids=["and", "or", "xor"])
def test_scalar_elements_updated_by_many_threads(device, op):
    a, b = _words(256)
    arr = wp.array(a, dtype=wp.uint32, device=device)
    wp.launch(_scalar_bits, dim=len(a) * 32, inputs=[arr, wp.array(b, dtype=wp.uint32, device=device), op],
              device=device)
    expected = (a & b, a | b, a ^ b)[op]
    np.testing.assert_array_equal(arr.numpy(), expected)


def test_int64_xor_from_many_threads(device):
    n = 1 << 16
    v = np.random.default_rng(7).integers(-(1 << 62), 1 << 62, size=n, dtype=np.int64)
    a = wp.zeros(4, dtype=wp.int64, device=device)
    wp.launch(_int64_xor, dim=n, inputs=[a, wp.array(v, dtype=wp.int64, device=device)], device=device)
    expected = [np.bitwise_xor.reduce(v[k::4]) for k in range(4)]
    np.testing.assert_array_equal(a.numpy(), expected)


@pytest.mark.parametrize("op", [0, 1, 2], ids=["and", "or", "xor"])
def test_vector_and_matrix_elements(device, op):
    n = 8
    full = np.uint32(0xFFFFFFFF)
    v0 = np.random.default_rng(1).integers(0, full, size=(n, 3), dtype=np.uint32)
    m0 = np.random.default_rng(2).integers(0, full, size=(n, 2, 2), dtype=np.uint32)
    v = wp.array(v0, dtype=wp.vec3ui, device=device)
    m = wp.array(m0, dtype=_mat22ui, device=device)
    wp.launch(_composite_bits, dim=n * 32, inputs=[v, m, op], device=device)
    if op == 0:
        ev, em = v0 & 0, m0 & 0
    elif op == 1:
        ev = v0 | np.array([full, 0, full], np.uint32)
        em = m0 | np.array([[full, 0], [0, full]], np.uint32)
    else:
        ev = v0 ^ np.array([full, full, 0], np.uint32)
        em = m0 ^ np.array([[0, full], [full, full]], np.uint32)
    np.testing.assert_array_equal(v.numpy(), ev)
    np.testing.assert_array_equal(m.numpy(), em)


def test_single_components(device):
    v = wp.array(np.array([[5, 0, 9], [7, 7, 0xF0F0F0F0]], np.uint32), dtype=wp.vec3ui, device=device)
    m = wp.array(np.array([[[1, 2], [3, 4]]], np.uint32), dtype=_mat22ui, device=device)
    wp.launch(_component_bits, dim=64, inputs=[v, m], device=device)
    np.testing.assert_array_equal(v.numpy(), [[5, 0xFFFFFFFF, 9], [7, 7, 0]])
    # each bit flipped twice (64 threads over 32 bits): unchanged
    np.testing.assert_array_equal(m.numpy(), [[[1, 2], [3, 4]]])


def test_narrow_integers_are_read_updated_and_written(device):
    a0 = np.arange(16, dtype=np.uint8)
    v0 = (np.arange(16, dtype=np.uint8) * 17).astype(np.uint8)
    a = wp.array(a0, dtype=wp.uint8, device=device)
    wp.launch(_narrow_or, dim=16, inputs=[a, wp.array(v0, dtype=wp.uint8, device=device)], device=device)
    np.testing.assert_array_equal(a.numpy(), a0 | v0)


def _cpu_ir(kernel) -> str:
    target = target_for_kind("cpu")
    options = resolve_options(kernel, target=target)
    with compiling(options):
        return lower_kernel(build_kernel(kernel), options, target.define_entry).llvm_ir


def test_lowering_is_an_atomicrmw_of_the_operator():
    text = _cpu_ir(_scalar_bits)
    for op in ("and", "or", "xor"):
        assert re.search(rf"atomicrmw {op} ptr %[\w.\"]+, i32 ", text), op
    assert not re.search(r"store i32 ", text), "the element is not stored non-atomically"
    text = _cpu_ir(_component_bits)
    # one atomic per addressed component (the others get the identity and are left out), in
    # each of the kernel's bodies (contiguous and strided)
    bodies = len(re.findall(r"^define internal void @\"wp_kernel_", text, re.M))
    assert bodies >= 1
    assert [len(re.findall(rf"atomicrmw {op} ", text)) for op in ("and", "or", "xor")] == [bodies] * 3
    assert "atomicrmw" not in _cpu_ir(_narrow_or)


def test_bitwise_update_of_float_elements_is_a_type_error():
    @wp.kernel(module="unique")
    def k(a: wp.array(dtype=float)):
        a[0] |= 1.0

    with pytest.raises(wp.WarpCodegenTypeError, match="bit_or"):
        wp.launch(k, dim=1, inputs=[wp.zeros(1, dtype=float)])
