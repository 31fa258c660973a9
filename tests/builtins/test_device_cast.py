"""``wp.utils.array_cast`` on a CUDA device runs in kernels there (warp_builtins.device_cast), checked
on the stand-in driver with host staging made to fail (the ``cuda`` fixture): every scalar type
pair, composite and flattened casts, partial casts, strided views and graph capture agree with
NumPy's ``astype`` (bfloat16: the nearest value, one rounding)."""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
import warp.utils as wu
from warp.types import bfloat16_bits

SCALARS = (wp.bool, *wp.types.scalar_types)
N = 300
#: the quick pairs: every type to and from these (the other pairs are marked slow: one kernel
#: overload each, compiled for the stand-in's CPU and PTX)
HUBS = (wp.float32, wp.int64)
PAIRS = [
    pytest.param(
        src,
        dst,
        id=f"{src.__name__}-{dst.__name__}",
        marks=() if {src, dst} & set(HUBS) else pytest.mark.slow,
    )
    for src in SCALARS
    for dst in SCALARS
]


def _source(src, dst, rng) -> np.ndarray:
    """``N`` values of type ``src`` (bfloat16: exact float32 values) whose cast to ``dst`` C
    defines: integers over their whole range, floats with infinities, NaN, signed zeros and
    subnormals unless ``dst`` is an integer type (then values that truncate into its range)."""
    kind = src._kind_
    if kind == "bool":
        return rng.random(N) < 0.5
    if kind in ("int", "uint"):
        info = np.iinfo(src._np_dtype_)
        values = rng.integers(info.min, info.max, N, dtype=src._np_dtype_, endpoint=True)
        values[::3] = rng.integers(max(info.min, -9), 9, len(values[::3]))  # small ones too
        return values
    np_type = np.float32 if src is wp.bfloat16 else src._np_dtype_
    if dst._kind_ == "int":
        values = rng.uniform(-100.0, 100.0, N)
    elif dst._kind_ == "uint":
        values = rng.uniform(-0.99, 200.0, N)
    else:
        values = rng.normal(0.0, 1e3, N) * rng.choice([1e-30, 1e-5, 1.0, 1e20], N)
        values[:6] = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40]
    with np.errstate(over="ignore"):
        values = values.astype(np_type)
    if src is wp.bfloat16:  # truncated to bfloat16 values
        values = (values.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)
    return values


def _expected(values: np.ndarray, dst) -> np.ndarray:
    """NumPy's cast of ``values`` to ``dst`` (bfloat16: its bits, rounded once from float64)."""
    with np.errstate(over="ignore", invalid="ignore"):
        if dst is wp.bfloat16:
            return bfloat16_bits.to_bits(values.astype(np.float64))
        return values.astype(dst._np_dtype_)


def _result(a) -> np.ndarray:
    data = a.numpy()
    return bfloat16_bits.bits_of(data) if a.dtype is wp.bfloat16 else data


def _assert_same(actual: np.ndarray, expected: np.ndarray) -> None:
    np.testing.assert_array_equal(actual, expected)
    if actual.dtype.kind == "f":  # signed zeros too
        np.testing.assert_array_equal(np.signbit(actual), np.signbit(expected))


@pytest.mark.parametrize("src,dst", PAIRS)
def test_every_scalar_pair_casts_as_numpy(cuda, src, dst):
    rng = np.random.default_rng(SCALARS.index(src) * 16 + SCALARS.index(dst))
    values = _source(src, dst, rng)
    a = wp.array(values, dtype=src, device=cuda)
    out = wp.zeros(N, dtype=dst, device=cuda)
    wu.array_cast(a, out)
    _assert_same(_result(out), _expected(values, dst))


def test_composites_cast_component_by_component(cuda):
    rng = np.random.default_rng(1)
    ints = rng.integers(-1000, 1000, (N, 3)).astype(np.int32)
    out = wp.zeros(N, dtype=wp.vec3f, device=cuda)
    wu.array_cast(wp.array(ints, dtype=wp.vec3i, device=cuda), out)
    np.testing.assert_array_equal(out.numpy(), ints.astype(np.float32))
    mats = rng.normal(0, 100, (N, 2, 2)).astype(np.float64)
    vecs = wp.zeros(N, dtype=wp.vec4h, device=cuda)  # (2, 2) -> (4,): cast flattened
    wu.array_cast(wp.array(mats, dtype=wp.mat22d, device=cuda), vecs)
    np.testing.assert_array_equal(vecs.numpy(), mats.reshape(N, 4).astype(np.float16))
    flat = wp.zeros(3 * N, dtype=wp.int16, device=cuda)  # vec3f (N,) -> int16 (3N,)
    floats = rng.uniform(-3e4, 3e4, (N, 3)).astype(np.float32)
    wu.array_cast(wp.array(floats, dtype=wp.vec3f, device=cuda), flat)
    np.testing.assert_array_equal(flat.numpy(), floats.reshape(-1).astype(np.int16))


def test_partial_casts_count_input_elements(cuda):
    rng = np.random.default_rng(2)
    floats = rng.uniform(-50, 50, 1000).astype(np.float32)
    out = wp.full(1000, 7, dtype=wp.int32, device=cuda)
    wu.array_cast(wp.array(floats, device=cuda), out, count=513)
    expected = np.full(1000, 7, np.int32)
    expected[:513] = floats[:513].astype(np.int32)
    np.testing.assert_array_equal(out.numpy(), expected)
    wu.array_cast(wp.array(floats, device=cuda), out, count=0)
    np.testing.assert_array_equal(out.numpy(), expected)
    vecs = rng.uniform(-50, 50, (100, 3)).astype(np.float32)
    flat = wp.full(300, -1.0, dtype=wp.float64, device=cuda)  # 10 vec3f: the first 30 components
    wu.array_cast(wp.array(vecs, dtype=wp.vec3f, device=cuda), flat, count=10)
    expected64 = np.full(300, -1.0)
    expected64[:30] = vecs[:10].reshape(-1)
    np.testing.assert_array_equal(flat.numpy(), expected64)
    with pytest.raises(RuntimeError, match=r"Cast count \(101\) exceeds"):
        wu.array_cast(wp.array(vecs, dtype=wp.vec3f, device=cuda), flat, count=101)


def test_multidimensional_and_strided_views(cuda):
    rng = np.random.default_rng(3)
    data = rng.integers(-(2**15), 2**15, (40, 30)).astype(np.int16)
    out = wp.zeros((40, 30), dtype=wp.float32, device=cuda)
    wu.array_cast(wp.array(data, device=cuda), out)
    np.testing.assert_array_equal(out.numpy(), data.astype(np.float32))
    big = rng.normal(0, 1e3, (40, 30)).astype(np.float64)
    src = wp.array(big, device=cuda)[::2, 1::3]  # strided source
    dst_full = wp.zeros((20, 20), dtype=wp.int32, device=cuda)
    dst = dst_full[:, ::2]  # strided destination
    wu.array_cast(src, dst)
    expected = np.zeros((20, 20), np.int32)
    expected[:, ::2] = big[::2, 1::3].astype(np.int32)
    np.testing.assert_array_equal(dst_full.numpy(), expected)
    vecs = rng.normal(0, 10, (50, 3)).astype(np.float32)
    vec_out = wp.zeros(25, dtype=wp.vec3d, device=cuda)
    wu.array_cast(wp.array(vecs, dtype=wp.vec3f, device=cuda)[::2], vec_out)
    np.testing.assert_array_equal(vec_out.numpy(), vecs[::2].astype(np.float64))
    mats = rng.normal(0, 10, (3, 4, 5, 2, 2)).astype(np.float32)
    strided = wp.array(mats, dtype=wp.mat22f, device=cuda)[:, ::2, ::2]
    mat_out = wp.zeros((3, 2, 3), dtype=wp.mat22d, device=cuda)
    wu.array_cast(strided, mat_out)
    np.testing.assert_array_equal(mat_out.numpy(), mats[:, ::2, ::2].astype(np.float64))


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_multidimensional_inputs_flatten_by_element(request, device):
    """A (2, 2) input cast into (4,) (different dimension counts: flattened) converts all four
    elements on the host path and on the device alike."""
    where = "cpu" if device == "cpu" else request.getfixturevalue("cuda")
    out = wp.zeros(4, dtype=wp.float32, device=where)
    wu.array_cast(wp.array(np.arange(4, dtype=np.int32).reshape(2, 2), device=where), out)
    np.testing.assert_array_equal(out.numpy(), [0.0, 1.0, 2.0, 3.0])


def test_undefined_conversions_saturate_on_the_device(cuda):
    """NaN and out-of-range floats to integers (undefined in C, platform-dependent in NumPy):
    the device gives 0 for NaN and the type's limits otherwise."""
    values = np.float32([np.nan, 1e10, -1e10, -5.5, 300.0, np.inf, -np.inf])
    ints = wp.zeros(7, dtype=wp.int32, device=cuda)
    wu.array_cast(wp.array(values, device=cuda), ints)
    np.testing.assert_array_equal(ints.numpy(), [0, 2**31 - 1, -(2**31), -5, 300, 2**31 - 1, -(2**31)])
    bytes_ = wp.zeros(7, dtype=wp.uint8, device=cuda)
    wu.array_cast(wp.array(values, device=cuda), bytes_)
    np.testing.assert_array_equal(bytes_.numpy(), [0, 255, 0, 0, 255, 255, 0])


def test_cast_is_recorded_by_graph_capture(cuda):
    rng = np.random.default_rng(4)
    src = wp.zeros(700, dtype=wp.float64, device=cuda)
    out = wp.zeros(700, dtype=wp.int16, device=cuda)
    vec_src = wp.zeros(100, dtype=wp.vec3f, device=cuda)
    flat = wp.zeros(300, dtype=wp.float16, device=cuda)
    with wp.ScopedCapture(device="cuda:0") as capture:
        wu.array_cast(src, out)
        wu.array_cast(vec_src, flat, count=60)
    for replay in range(2):
        values = rng.uniform(-3e4, 3e4, 700)
        vecs = rng.normal(0, 100, (100, 3)).astype(np.float32)
        src.assign(values)
        vec_src.assign(vecs)
        wp.capture_launch(capture.graph)
        np.testing.assert_array_equal(out.numpy(), values.astype(np.int16), err_msg=f"replay {replay}")
        np.testing.assert_array_equal(flat.numpy()[:180], vecs[:60].reshape(-1).astype(np.float16))


def test_views_beyond_four_dimensions_fall_back_to_the_host(fake_cuda):
    """A strided 4-D array of matrices (six dimensions of components that do not merge) is not
    cast in kernels: staged through the host outside a capture, refused inside one."""
    data = np.arange(4**4 * 4, dtype=np.float32).reshape(4, 4, 4, 4, 2, 2)
    src = wp.array(data, dtype=wp.mat22f, device="cuda:0")[::2, ::2, ::2, ::2]
    out = wp.zeros((2, 2, 2, 2), dtype=wp.mat22d, device="cuda:0")
    wu.array_cast(src, out)
    np.testing.assert_array_equal(out.numpy(), data[::2, ::2, ::2, ::2].astype(np.float64))
    with wp.ScopedCapture(device="cuda:0", force_module_load=False):
        with pytest.raises(NotImplementedError, match="cannot be recorded by graph capture"):
            wu.array_cast(src, out)


def test_host_path_rounds_to_bfloat16_once():
    """float64 -> bfloat16 on the host rounds once (as the device does), not through float32:
    1 + 2**-8 + 2**-30 is just above the halfway point between two bfloat16 values."""
    value = 1.0 + 2.0**-8 + 2.0**-30
    out = wp.zeros(1, dtype=wp.bfloat16)
    wu.array_cast(wp.array([value], dtype=wp.float64), out)
    assert float(out.numpy()[0]) == 1.0 + 2.0**-7
