"""PTX generation for the CUDA target (llvmlite NVPTX + libdevice), checked offline with ptxas."""

from __future__ import annotations

import re

import pytest
from ptxas_util import cuda_compile, needs_ptxas, ptxas_check

import warp as wp
from warp.targets.cuda import ptx
from warp.targets.cuda.entry import args_buffer_size
from warp.errors import WarpCodegenError


def _ptx(kernel, **kwargs) -> tuple[str, dict]:
    return cuda_compile(kernel, **kwargs)


@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.kernel
def grid2d(out: wp.array2d(dtype=wp.int32)):
    i, j = wp.tid()
    out[i, j] = i * 100 + j + wp.block_dim()


@needs_ptxas
def test_entry_takes_the_argument_buffer_and_loops_grid_stride() -> None:
    from warp.compiler.frontend.translator import build_kernel

    text, meta = _ptx(saxpy)
    size = args_buffer_size(build_kernel(saxpy))
    assert size == 48 + 64 + 64 + 8  # header, two array descriptors, one float slot
    for entry in meta["entries"].values():
        assert re.search(rf"\.entry {entry}\(\s*\.param \.align 8 \.b8 {entry}_param_0\[{size}\]", text)
    for sreg in ("%tid.x", "%ntid.x", "%ctaid.x", "%nctaid.x"):
        assert sreg in text
    assert ".version 8.0" in text and ".target sm_90" in text
    ptxas_check(text)


@needs_ptxas
def test_multi_dim_tid_and_block_dim() -> None:
    text, _ = _ptx(grid2d)
    assert "rem" in text or "div" in text  # i, j decomposed from the linear index
    ptxas_check(text)


ATOMIC_TYPES = [wp.int32, wp.uint32, wp.int64, wp.uint64, wp.float32, wp.float64, wp.float16]


def _atomic_kernel(T):
    ints = T._kind_ != "float"

    def body(a: wp.array(dtype=T), v: T):
        wp.atomic_add(a, 0, v)
        wp.atomic_sub(a, 1, v)
        if wp.static(T is not wp.float16):  # atomic_min/max have no float16 form (as in Warp)
            wp.atomic_min(a, 2, v)
            wp.atomic_max(a, 3, v)
        wp.atomic_exch(a, 4, v)
        wp.atomic_cas(a, 5, v, v)
        a[6] += v

    def int_body(a: wp.array(dtype=T), v: T):
        wp.atomic_add(a, 0, v)
        wp.atomic_sub(a, 1, v)
        wp.atomic_min(a, 2, v)
        wp.atomic_max(a, 3, v)
        wp.atomic_exch(a, 4, v)
        wp.atomic_cas(a, 5, v, v)
        wp.atomic_and(a, 6, v)
        wp.atomic_or(a, 7, v)
        wp.atomic_xor(a, 8, v)

    fn = int_body if ints else body
    fn.__annotations__["a"] = wp.array(dtype=T)
    fn.__annotations__["v"] = T
    return wp.kernel(fn, module=f"ptx_atomics_{T.__name__}")


@needs_ptxas
@pytest.mark.parametrize("T", ATOMIC_TYPES, ids=lambda t: t.__name__)
def test_atomics(T) -> None:
    text, _ = _ptx(_atomic_kernel(T))
    assert "atom.global" in text or "atom." in text
    if T in (wp.float32, wp.float64):
        assert re.search(r"atom\.global(\.\w+)*\.add\.f" + str(T._bits_), text), "native float atomic add"
    ptxas_check(text)


@wp.kernel
def printing(x: wp.array(dtype=float), n: wp.int64, flag: bool):
    i = wp.tid()
    print("value", x[i], i, n, flag)
    wp.printf("%d %f %lld\n", i, x[i], n)
    wp.printf("no arguments\n")


@needs_ptxas
def test_printf_uses_vprintf() -> None:
    text, meta = _ptx(printing)
    assert meta["uses_print"]
    assert "vprintf" in text and "printf(" not in text.replace("vprintf(", "")
    assert ".extern .func" in text
    externs = re.findall(r"\.extern \.func[^;]*?(\w+)\s*\(", text)
    assert set(externs) == {"vprintf"}
    ptxas_check(text)


@wp.kernel
def math_kernel(x: wp.array(dtype=float), y: wp.array(dtype=wp.float64), h: wp.array(dtype=wp.float16)):
    i = wp.tid()
    x[i] = (
        wp.sin(x[i])
        + wp.cos(x[i]) * wp.exp(x[i])
        + wp.sqrt(wp.abs(x[i]))
        + wp.atan2(x[i], 2.0)
        + wp.pow(x[i], 1.5)
    )
    y[i] = wp.log(y[i]) + wp.tanh(y[i]) + wp.floor(y[i])
    h[i] = wp.sin(h[i])


@needs_ptxas
def test_libdevice_is_linked_and_trimmed() -> None:
    text, _ = _ptx(math_kernel)
    assert "__nv_" not in text.split(".visible .entry")[0] or ".extern" not in text  # nothing left external
    assert ".extern" not in text
    # only the libdevice functions the kernel uses survive (not all 500+)
    assert len(re.findall(r"^\.func ", text, re.M)) < 20
    ptxas_check(text)


@wp.struct
class Particle:
    pos: wp.vec3
    vel: wp.vec3
    mass: float


@wp.kernel
def composite(
    ps: wp.array(dtype=Particle),
    m: wp.array(dtype=wp.mat33),
    q: wp.array(dtype=wp.quat),
    out: wp.array(dtype=wp.vec3),
):
    i = wp.tid()
    p = ps[i]
    r = wp.quat_rotate(q[i], p.vel)
    v = m[i] * p.pos + r * p.mass
    n = wp.length(v)
    if n > 1.0:
        v = wp.normalize(v)
    for k in range(3):
        v[k] = v[k] + wp.determinant(m[i])
    out[i] = wp.cross(v, p.pos) + wp.transpose(m[i]) @ v


@needs_ptxas
def test_structs_and_composite_math() -> None:
    text, _ = _ptx(composite)
    ptxas_check(text)


@wp.kernel
def control(x: wp.array(dtype=int), n: int):
    i = wp.tid()
    s = int(0)
    k = int(0)
    while k < n:
        if k % 3 == 0:
            k += 1
            continue
        s += k
        if s > 1000:
            break
        k += 1
    for j in range(i, n, 2):
        s = s - j
    x[i] = s if s > 0 else -s


@needs_ptxas
def test_control_flow() -> None:
    text, _ = _ptx(control)
    ptxas_check(text)


@needs_ptxas
def test_debug_mode_bounds_check_writes_the_error_record() -> None:
    text, meta = _ptx(saxpy, debug=True)
    assert len(meta["sites"]) >= 3
    assert meta["sites"][0]["function"] == "saxpy"
    # the first failing thread claims the record with a device-scope compare-and-swap
    assert re.search(r"atom\.relaxed\.gpu\.global\.cas\.b32", text)
    assert "_wp_scratch" in text  # faulting accesses redirected to scratch memory
    ptxas_check(text)


@needs_ptxas
def test_adjoint_compiles_for_cuda() -> None:
    pytest.importorskip("warp_autodiff")
    text, _ = _ptx(math_kernel, part="adjoint")
    ptxas_check(text)


@needs_ptxas
@pytest.mark.parametrize("cc", [(7, 5), (8, 0), (8, 6), (8, 9), (9, 0)])
def test_targets_per_compute_capability(cc) -> None:
    arch, version = ptx.choose_target(cc, 13000)
    assert arch == cc[0] * 10 + cc[1]
    text, _ = _ptx(math_kernel, target=(arch, version))
    assert f".target sm_{arch}" in text and f".version {version // 10}.{version % 10}" in text
    ptxas_check(text, arch)


def test_choose_target_caps_ptx_by_driver() -> None:
    assert ptx.ptx_version_for_driver(12040) == 84
    assert ptx.ptx_version_for_driver(12000) == 78
    assert ptx.ptx_version_for_driver(11080) == 78
    assert ptx.ptx_version_for_driver(13000) == 90
    assert ptx.choose_target((9, 0), 12040) == (90, 84)
    assert ptx.choose_target((9, 0), 13000) == (90, ptx.MAX_PTX_VERSION)
    assert ptx.choose_target((8, 6), 11080) == (86, 78)
    # a GPU newer than LLVM knows gets the newest known SM (the driver JITs PTX forward)
    newest = ptx.supported_archs()[-1]
    assert ptx.choose_target((99, 0), 13000)[0] == newest
    with pytest.raises(RuntimeError, match="older than any target"):
        ptx.choose_target((1, 0), 13000)


_DECL = (
    "declare float @{name}(float)\n"
    "define float @f(float %x) {{\n  %r = call float @{name}(float %x)\n  ret float %r\n}}\n"
)


def test_math_intrinsics_are_rewritten_to_libdevice() -> None:
    text = ptx.rewrite_intrinsics(_DECL.format(name="llvm.sin.f32"))
    assert "llvm.sin" not in text and "@__nv_sinf" in text
    text = ptx.rewrite_intrinsics(
        "declare double @llvm.pow.f64(double, double)\ndeclare double @__nv_pow(double, double)\n"
    )
    assert text.count("declare") == 1


def test_unsupported_intrinsic_is_a_python_error() -> None:
    ir_text = "declare <4 x float> @llvm.experimental.vector.frob.v4f32(<4 x float>)\n"
    with pytest.raises(WarpCodegenError, match=r"llvm\.experimental\.vector\.frob.*cannot compile"):
        ptx.rewrite_intrinsics(ir_text, "m")
    with pytest.raises(WarpCodegenError, match="llvm.sin.v4f32"):
        ptx.rewrite_intrinsics("declare <4 x float> @llvm.sin.v4f32(<4 x float>)\n", "m")


def _kernel_ir(call: str) -> str:
    return (
        f"{call}\n"
        "define ptx_kernel void @k(ptr %p) {\n"
        "  %v = load float, ptr %p\n"
        "  %r = call float @sinf(float %v)\n"
        "  store float %r, ptr %p\n"
        "  ret void\n}\n"
    )


def test_host_library_calls_are_rejected() -> None:
    with pytest.raises(WarpCodegenError, match="do not exist on CUDA devices: sinf"):
        ptx.compile_ptx(_kernel_ir("declare float @sinf(float)"), kernels=["k"], name="m")


def test_invalid_ir_is_a_python_error() -> None:
    with pytest.raises(WarpCodegenError, match="invalid LLVM IR in module 'bad'"):
        ptx.compile_ptx("define void @k() {\n  ret i32 0\n}\n", kernels=["k"], name="bad")
    with pytest.raises(WarpCodegenError, match="does not define the kernel entries"):
        ptx.compile_ptx("define void @k() {\n  ret void\n}\n", kernels=["other"], name="m")


def test_libdevice_is_found() -> None:
    try:
        path = ptx.libdevice_path()
    except RuntimeError as exc:
        pytest.skip(str(exc))
    assert path.endswith("libdevice.10.bc")


def test_atomics_get_device_scope() -> None:
    text = (
        "  %old = atomicrmw fadd ptr %p, float %v monotonic, align 4\n"
        "  %r = cmpxchg ptr %q, i32 0, i32 1 monotonic monotonic\n"
    )
    out = ptx.device_scope_atomics(text)
    assert 'fadd ptr %p, float %v syncscope("device") monotonic, align 4' in out
    assert 'i32 1 syncscope("device") monotonic monotonic' in out
    assert ptx.device_scope_atomics(out) == out


_mat22ui = wp.types.matrix(shape=(2, 2), dtype=wp.uint32)


@wp.kernel
def bitwise_augassign(
    a: wp.array(dtype=wp.uint32), q: wp.array(dtype=wp.int64), v: wp.array(dtype=wp.vec3ui),
    m: wp.array(dtype=_mat22ui), op: int
):
    i = wp.tid()
    bit = wp.uint32(1) << wp.uint32(i % 32)
    if op == 0:
        a[i // 32] &= ~bit
        q[i % 4] &= wp.int64(i)
        v[0] &= wp.vec3ui(bit, bit, bit)
        m[0][1, 1] &= bit
    elif op == 1:
        a[i // 32] |= bit
        q[i % 4] |= wp.int64(i)
        v[0] |= wp.vec3ui(bit, bit, bit)
        m[0][1, 1] |= bit
    else:
        a[i // 32] ^= bit
        q[i % 4] ^= wp.int64(i)
        v[0] ^= wp.vec3ui(bit, bit, bit)
        m[0][1, 1] ^= bit


@needs_ptxas
def test_bitwise_augmented_assignment_to_elements_is_atomic() -> None:
    # a[i] &= x (|=, ^=) from many threads on one element: a plain load/op/store loses updates
    text, _ = _ptx(bitwise_augassign)
    for op in ("and", "or", "xor"):
        # per op: a (1), q (1, 64-bit), v (3 components), m[0][1, 1] only (1)
        assert len(re.findall(rf"\batom\.global\.{op}\.b32\b", text)) == 5, op
        assert len(re.findall(rf"\batom\.global\.{op}\.b64\b", text)) == 1, op
    assert not re.search(r"\bst\.global\.", text), "no element is stored non-atomically"
    ptxas_check(text)
