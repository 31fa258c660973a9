"""PTX code generation with llvmlite's NVPTX target: LLVM IR text -> PTX assembly.

:func:`compile_ptx` checks the module for LLVM intrinsics the NVPTX backend cannot lower (it
would abort the process on them), rewrites the math ones to libdevice calls, parses and verifies
the module, links ``libdevice.10.bc`` when the module calls ``__nv_*`` functions, makes every
function but the kernel entries internal (so the optimizer drops the unused libdevice code),
merges ``sin``/``cos`` pairs of one value into ``sincos`` (:mod:`~warp.targets.cuda.sincos_fusion`),
optimizes at O3 and emits PTX for the chosen SM architecture and PTX ISA version.

No GPU or driver is needed; ``ptxas`` (CUDA toolkit) can check the result offline.
"""

from __future__ import annotations

import functools
import glob
import hashlib
import os
import re
import shutil
import threading
from typing import Protocol

import llvmlite
import llvmlite.binding as llvm

from warp.errors import WarpCodegenError
from warp.plugins.install_hints import install_hint
from warp.targets.llvm_passes import run_passes
from warp.targets.cuda.sincos_fusion import fuse_sincos

TRIPLE = "nvptx64-nvidia-cuda"

#: Bumped when code generation settings change (part of :func:`target_fingerprint`).
CODEGEN_VERSION = "4"

#: Default target when no device says otherwise (offline compilation, ``ptxas`` checks).
DEFAULT_ARCH = 90
DEFAULT_PTX_VERSION = 80

#: LLVM intrinsics (name prefixes) that the NVPTX backend lowers to PTX instructions.
_SUPPORTED_INTRINSICS = (
    "llvm.nvvm.",
    "llvm.fabs.",
    "llvm.sqrt.",
    "llvm.floor.",
    "llvm.ceil.",
    "llvm.trunc.",
    "llvm.rint.",
    "llvm.nearbyint.",
    "llvm.roundeven.",
    "llvm.round.",
    "llvm.minnum.",
    "llvm.maxnum.",
    "llvm.minimum.",
    "llvm.maximum.",
    "llvm.fma.",
    "llvm.fmuladd.",
    "llvm.copysign.",
    "llvm.ctpop.",
    "llvm.ctlz.",
    "llvm.cttz.",
    "llvm.bswap.",
    "llvm.bitreverse.",
    "llvm.abs.",
    "llvm.smin.",
    "llvm.smax.",
    "llvm.umin.",
    "llvm.umax.",
    "llvm.fshl.",
    "llvm.fshr.",
    "llvm.memcpy.",
    "llvm.memset.",
    "llvm.memmove.",
    "llvm.lifetime.",
    "llvm.assume",
    "llvm.expect.",
    "llvm.sadd.with.overflow.",
    "llvm.uadd.with.overflow.",
    "llvm.ssub.with.overflow.",
    "llvm.usub.with.overflow.",
    "llvm.smul.with.overflow.",
    "llvm.umul.with.overflow.",
    "llvm.stacksave",
    "llvm.stackrestore",
    "llvm.fptosi.sat.",
    "llvm.fptoui.sat.",
    "llvm.is.fpclass.",
    "llvm.experimental.noalias.scope.decl",
    "llvm.umul.",
    "llvm.vector.reduce.",
)

#: math intrinsics rewritten to libdevice (f32 symbol, f64 symbol)
_MATH_TO_LIBDEVICE = {
    name: (f"__nv_{name}f", f"__nv_{name}")
    for name in ("sin", "cos", "tan", "exp", "exp2", "log", "log2", "log10", "pow", "exp10")
}

#: external functions a PTX module may call: the CUDA runtime's ``vprintf``
_DEVICE_RUNTIME = frozenset({"vprintf"})

_INTRINSIC_CALL = re.compile(r"@\"?(llvm\.[A-Za-z0-9_.]+)")

# atomics without a scope are system-wide in LLVM; kernels only need device scope (CUDA's atomicAdd)
_UNSCOPED_ORDERING = re.compile(
    r"^(\s*(?:%\S+ = )?(?:atomicrmw|cmpxchg) .*?)( (?:monotonic|acquire|release|acq_rel|seq_cst)\b)", re.M
)


def device_scope_atomics(llvm_ir: str) -> str:
    """Give atomic instructions without a sync scope ``syncscope("device")`` (GPU-wide atomics)."""
    return _UNSCOPED_ORDERING.sub(
        lambda m: (
            m.group(0) if "syncscope" in m.group(1) else f'{m.group(1)} syncscope("device"){m.group(2)}'
        ),
        llvm_ir,
    )


def rewrite_intrinsics(llvm_ir: str, name: str = "module") -> str:
    """Replace math intrinsics by libdevice calls; reject intrinsics NVPTX would abort on.

    Raises :class:`WarpCodegenError` naming the intrinsic and the module.
    """

    def replace(m: re.Match) -> str:
        intrinsic = m.group(1)
        parts = intrinsic.split(".")
        if len(parts) == 3 and parts[1] in _MATH_TO_LIBDEVICE and parts[2] in ("f32", "f64"):
            f32, f64 = _MATH_TO_LIBDEVICE[parts[1]]
            return "@" + (f32 if parts[2] == "f32" else f64)
        if intrinsic.startswith(_SUPPORTED_INTRINSICS) or intrinsic in (
            "llvm.assume",
            "llvm.stacksave",
            "llvm.stackrestore",
        ):
            return m.group(0)
        raise WarpCodegenError(
            f"module '{name}' uses the LLVM intrinsic '{intrinsic}', which the CUDA (NVPTX) backend cannot "
            "compile; lower it to libdevice (__nv_*) or to supported instructions on the CUDA target"
        )

    text = _INTRINSIC_CALL.sub(replace, llvm_ir)
    # a rewritten declaration may now be declared twice (llvm.sin.f32 and __nv_sinf both declared)
    seen: set[str] = set()
    lines = []
    for line in text.splitlines():
        if line.startswith("declare "):
            key = re.search(r"@\"?([\w.$]+)", line)
            if key is not None:
                if key.group(1) in seen:
                    continue
                seen.add(key.group(1))
        lines.append(line)
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------------
# Target
# --------------------------------------------------------------------------------------------------

_init_lock = threading.Lock()
_initialized = False


def _ensure_initialized() -> None:
    global _initialized
    if not _initialized:
        with _init_lock:
            if not _initialized:
                llvm.initialize_all_targets()
                llvm.initialize_all_asmprinters()
                _initialized = True


@functools.lru_cache(maxsize=None)
def supported_archs() -> tuple[int, ...]:
    """SM architectures this LLVM's NVPTX backend knows (e.g. ``(75, 80, 86, 89, 90, ...)``)."""
    _ensure_initialized()
    found = set()
    target = llvm.Target.from_triple(TRIPLE)
    for sm in (50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90, 100, 101, 103, 110, 120, 121):
        tm = target.create_target_machine(cpu=f"sm_{sm}", features="")
        # an unknown CPU name falls back to the generic one, which reports no sm in its PTX
        ptx = tm.emit_assembly(llvm.parse_assembly(f'target triple = "{TRIPLE}"\n'))
        if f".target sm_{sm}" in ptx:
            found.add(sm)
    return tuple(sorted(found))


#: lowest PTX ISA version (x10) that can target each SM
_MIN_PTX_FOR_SM = {
    75: 63,
    80: 70,
    86: 71,
    87: 74,
    89: 78,
    90: 78,
    100: 86,
    101: 86,
    103: 88,
    110: 90,
    120: 87,
    121: 88,
}

#: highest PTX ISA version (x10) each CUDA driver version (major*1000 + minor*10) accepts
_PTX_FOR_DRIVER = [
    (13000, 90),
    (12090, 88),
    (12080, 87),
    (12050, 85),
    (12040, 84),
    (12030, 83),
    (12020, 82),
    (12010, 81),
    (12000, 78),
    (11080, 78),
    (11070, 77),
    (11060, 76),
    (11050, 75),
    (11040, 74),
    (11030, 73),
    (11020, 72),
    (11010, 71),
    (11000, 70),
]

#: highest PTX ISA version our code generation asks for
MAX_PTX_VERSION = 87


def ptx_version_for_driver(driver_version: int) -> int:
    """Highest PTX ISA version (x10) a driver of ``driver_version`` (e.g. 12040) loads."""
    for version, ptx in _PTX_FOR_DRIVER:
        if driver_version >= version:
            return ptx
    return 60


def choose_target(compute_capability: tuple[int, int], driver_version: int) -> tuple[int, int]:
    """The (SM, PTX version) to compile for a device of ``compute_capability`` under a driver.

    The SM is the device's own when LLVM knows it, else the newest known one below it (PTX is
    forward compatible: the driver JIT-compiles it for newer GPUs). The PTX version is the
    highest the driver accepts, capped by :data:`MAX_PTX_VERSION`, and at least what the SM needs.
    """
    wanted = compute_capability[0] * 10 + compute_capability[1]
    archs = [a for a in supported_archs() if a <= wanted]
    if not archs:
        raise RuntimeError(
            f"compute capability {compute_capability} is older than any target this LLVM supports"
        )
    arch = archs[-1]
    ptx = min(ptx_version_for_driver(driver_version), MAX_PTX_VERSION)
    ptx = max(ptx, _MIN_PTX_FOR_SM.get(arch, 60))
    return arch, ptx


_thread_state = threading.local()


def target_machine(arch: int = DEFAULT_ARCH, ptx_version: int = DEFAULT_PTX_VERSION) -> llvm.TargetMachine:
    """An NVPTX target machine for ``sm_<arch>`` and PTX ISA ``ptx_version`` (x10), cached per thread."""
    machines = getattr(_thread_state, "machines", None)
    if machines is None:
        machines = _thread_state.machines = {}
    key = (arch, ptx_version)
    tm = machines.get(key)
    if tm is None:
        _ensure_initialized()
        target = llvm.Target.from_triple(TRIPLE)
        tm = machines[key] = target.create_target_machine(
            cpu=f"sm_{arch}", features=f"+ptx{ptx_version}", opt=3
        )
    return tm


def target_fingerprint(arch: int = DEFAULT_ARCH, ptx_version: int = DEFAULT_PTX_VERSION) -> str:
    """A string naming everything that makes PTX specific, for cache keys."""
    llvm_version = ".".join(str(v) for v in llvm.llvm_version_info)
    return (
        f"{TRIPLE}|sm_{arch}|ptx{ptx_version}|llvmlite={llvmlite.__version__}|llvm={llvm_version}"
        f"|codegen={CODEGEN_VERSION}"
    )


# --------------------------------------------------------------------------------------------------
# libdevice
# --------------------------------------------------------------------------------------------------


def _libdevice_candidates() -> list[str]:
    paths = []
    for env in ("WARP_LIBDEVICE_PATH",):
        if os.environ.get(env):
            paths.append(os.environ[env])
    roots = [os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH")]
    nvcc = shutil.which("nvcc")
    if nvcc:
        roots.append(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))))
    roots += [
        "/usr/local/cuda",
        *sorted(glob.glob("/usr/local/cuda-*"), reverse=True),
        "/usr/lib/cuda",
        "/opt/cuda",
    ]
    for root in roots:
        if root:
            paths.append(os.path.join(root, "nvvm", "libdevice", "libdevice.10.bc"))
    try:  # the nvidia-cuda-nvcc wheel (nvidia/cuda_nvcc/nvvm/libdevice or nvidia/cu13/nvvm/libdevice)
        import nvidia  # type: ignore[import-not-found]

        for base in getattr(nvidia, "__path__", []):
            paths += sorted(glob.glob(os.path.join(base, "*", "nvvm", "libdevice", "libdevice.10.bc")))
    except ImportError:
        pass
    return paths


@functools.lru_cache(maxsize=None)
def libdevice_path() -> str:
    """Path of ``libdevice.10.bc`` (``$WARP_LIBDEVICE_PATH``, the CUDA toolkit, or the nvcc wheel)."""
    for path in _libdevice_candidates():
        if os.path.isfile(path):
            return path
    raise RuntimeError(
        "libdevice.10.bc not found: kernels using math functions need it on CUDA. Install the CUDA "
        f"toolkit, or the nvidia-cuda-nvcc wheel ({install_hint('libdevice')}), or set WARP_LIBDEVICE_PATH"
    )


@functools.lru_cache(maxsize=None)
def _libdevice_bytes() -> bytes:
    with open(libdevice_path(), "rb") as f:
        return f.read()


#: bumped when the way subsets are made changes (part of their disk cache key)
_SUBSET_VERSION = "1"


@functools.lru_cache(maxsize=None)
def _libdevice_digest() -> str:
    return hashlib.sha256(_libdevice_bytes()).hexdigest()


def _subset_key(needed: frozenset[str], data_layout: str) -> str:
    """Disk cache key of a libdevice subset: the library's content, LLVM, layout and the names."""
    h = hashlib.sha256()
    llvm_version = ".".join(str(v) for v in llvm.llvm_version_info)
    for part in ("libdevice-subset", _SUBSET_VERSION, _libdevice_digest(), llvm_version, TRIPLE, data_layout):
        h.update(part.encode() + b"\0")
    for name in sorted(needed):
        h.update(name.encode() + b"\0")
    return h.hexdigest()


class BitcodeStore(Protocol):
    """Where trimmed libdevice bitcode is kept between processes (the kernel cache has this API)."""

    def get(self, key: str) -> tuple[bytes, dict] | None: ...

    def put(self, key: str, obj: bytes, meta: dict) -> None: ...


_subset_lock = threading.Lock()
#: needed ``__nv_*`` functions -> bitcode of libdevice trimmed to them (and what they call)
_subsets: dict[frozenset[str], bytes] = {}


def _trim_libdevice(needed: frozenset[str], data_layout: str) -> bytes:
    """Parse the whole library (~0.5 MB of bitcode) and keep what ``needed`` reaches, as bitcode."""
    lib = llvm.parse_bitcode(_libdevice_bytes(), context=llvm.create_context())
    try:
        lib.triple = TRIPLE
        lib.data_layout = data_layout
        for f in lib.functions:
            if not f.is_declaration and f.name not in needed:
                f.linkage = llvm.Linkage.internal
        run_passes(lib, target_machine(), speed_level=0, passes=_global_dce, loop_unrolling=True)
        return lib.as_bitcode()
    finally:
        lib.close()


def _make_subset(needed: frozenset[str], data_layout: str, store: BitcodeStore | None, key: str) -> bytes:
    bitcode = _trim_libdevice(needed, data_layout)
    if store is not None:
        store.put(key, bitcode, {"libdevice": libdevice_path(), "functions": sorted(needed)})
    return bitcode


def libdevice_subset(
    needed: frozenset[str], data_layout: str, context: llvm.ContextRef, store: BitcodeStore | None = None
) -> llvm.ModuleRef:
    """libdevice trimmed to ``needed`` (plus their callees), parsed into ``context``.

    Parsing the whole library is the costliest step of compiling a small kernel that uses math
    functions, so the trimmed bitcode is kept: in this process for later kernels needing the same
    functions, and in ``store`` (the kernel cache directory) for later processes.
    """
    bitcode = _subsets.get(needed)
    if bitcode is None:
        key = _subset_key(needed, data_layout) if store is not None else ""
        hit = store.get(key) if store is not None else None
        bitcode = hit[0] if hit is not None else _make_subset(needed, data_layout, store, key)
        with _subset_lock:
            _subsets[needed] = bitcode
    try:
        module = llvm.parse_bitcode(bitcode, context=context)
    except RuntimeError:  # stored bitcode that does not parse (another LLVM wrote it?): make it again
        key = _subset_key(needed, data_layout) if store is not None else ""
        bitcode = _make_subset(needed, data_layout, store, key)
        with _subset_lock:
            _subsets[needed] = bitcode
        module = llvm.parse_bitcode(bitcode, context=context)
    module.triple = TRIPLE
    module.data_layout = data_layout
    return module


# --------------------------------------------------------------------------------------------------
# Compilation
# --------------------------------------------------------------------------------------------------


def _first_lines(text: str, limit: int = 40) -> str:
    lines = text.strip().splitlines()
    return "\n".join(
        lines[:limit] + ([f"... ({len(lines) - limit} more lines)"] if len(lines) > limit else [])
    )


def _global_dce(pb: llvm.PassBuilder) -> llvm.ModulePassManager:
    mpm = llvm.create_new_module_pass_manager()
    mpm.add_global_dead_code_eliminate_pass()
    return mpm


def _optimize(module: llvm.ModuleRef, tm: llvm.TargetMachine) -> None:
    """Drop the unreferenced (internalized) libdevice functions, then run the O3 pipeline."""
    run_passes(module, tm, speed_level=0, passes=_global_dce, loop_unrolling=True)
    run_passes(module, tm, speed_level=3, loop_unrolling=True)


def _unresolved(module: llvm.ModuleRef) -> list[str]:
    return sorted(
        f.name
        for f in module.functions
        if f.is_declaration and f.name not in _DEVICE_RUNTIME and not f.name.startswith("llvm.")
    )


def compile_ptx(
    llvm_ir: str,
    *,
    kernels: list[str],
    name: str = "module",
    arch: int = DEFAULT_ARCH,
    ptx_version: int = DEFAULT_PTX_VERSION,
    libdevice_store: BitcodeStore | None = None,
) -> str:
    """Compile LLVM IR text holding ``ptx_kernel`` entries ``kernels`` to PTX for ``sm_<arch>``.

    ``libdevice_store`` keeps trimmed libdevice bitcode between processes (see
    :func:`libdevice_subset`).

    Errors (invalid IR, unsupported intrinsics, calls to functions that do not exist on the GPU)
    raise :class:`WarpCodegenError` naming the module; nothing reaches the NVPTX backend that
    could make it abort.
    """
    text = device_scope_atomics(fuse_sincos(rewrite_intrinsics(llvm_ir, name)))
    tm = target_machine(arch, ptx_version)
    context = llvm.create_context()
    try:
        try:
            module = llvm.parse_assembly(text, context=context)
        except RuntimeError as e:
            raise WarpCodegenError(
                f"invalid LLVM IR in module '{name}' (parse error):\n{_first_lines(str(e))}"
            ) from None
        try:
            module.name = name
            module.triple = TRIPLE
            module.data_layout = str(tm.target_data)
            try:
                module.verify()
            except RuntimeError as e:
                raise WarpCodegenError(
                    f"invalid LLVM IR in module '{name}' (verifier):\n{_first_lines(str(e))}"
                ) from None
            needed = frozenset(
                f.name for f in module.functions if f.is_declaration and f.name.startswith("__nv_")
            )
            if needed:
                module.link_in(libdevice_subset(needed, module.data_layout, context, libdevice_store))
            keep = set(kernels)
            missing = keep - {f.name for f in module.functions if not f.is_declaration}
            if missing:
                raise WarpCodegenError(
                    f"module '{name}' does not define the kernel entries {sorted(missing)}"
                )
            for f in module.functions:
                if not f.is_declaration and f.name not in keep:
                    f.linkage = llvm.Linkage.internal
            unresolved = [f for f in _unresolved(module) if f != "__nvvm_reflect"]  # folded by the optimizer
            if unresolved:
                raise WarpCodegenError(
                    f"module '{name}' calls functions that do not exist on CUDA devices: "
                    + ", ".join(unresolved)
                )
            _optimize(module, tm)
            unresolved = _unresolved(module)
            if unresolved:  # the optimizer must not have introduced library calls
                raise WarpCodegenError(f"module '{name}': optimized code calls {', '.join(unresolved)}")
            return tm.emit_assembly(module)
        finally:
            module.close()
    finally:
        context.close()
