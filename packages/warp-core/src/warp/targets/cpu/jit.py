"""Host CPU code generation with llvmlite: LLVM IR text -> optimized object code -> callable addresses.

The pipeline is split so that object code can be cached on disk and reloaded without recompiling:

* :func:`compile_ir` parses, verifies, optimizes (new pass manager, O3, loop + SLP vectorization) and
  emits an object file for the host CPU (its triple, CPU name and features);
* :func:`load_object` links such an object into the process (ORC LLJIT with JITLink) and returns a
  :class:`LoadedModule` that keeps the code alive and maps symbol names to addresses;
* :func:`entry_function` wraps a kernel entry ``void entry(const char* args, int64_t start, int64_t end)``
  as a ctypes function (ctypes releases the GIL during the call).

Compilation uses one LLVM context per call and one target machine per thread, so several Python
threads may compile concurrently. Object loading is serialized by a lock.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import itertools
import os
import struct
import sys
import tempfile
import threading
from collections.abc import Mapping
from typing import Callable, Iterator

import llvmlite
import llvmlite.binding as llvm

from warp.compiler.registry import builtin_registry
from warp.errors import WarpCodegenError
from warp.targets.cpu.late_intrinsics import DefineLate, define_late_intrinsics
from warp.targets.llvm_passes import run_passes

#: Bumped when the code generation settings below change (part of :func:`target_fingerprint`).
CODEGEN_VERSION = "2"

# Object files are position independent with the small code model; JITLink places all sections of
# an object in one allocation and builds GOT/PLT entries for external symbols (libm, libc).
_RELOC = "pic"
_CODEMODEL = "default"

#: The C signature of kernel entry points: ``void entry(const char* args, int64_t start, int64_t end)``.
EntryFunction = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_int64, ctypes.c_int64)

#: LLVM command-line options of the CPU code generator (part of :func:`target_fingerprint`; they
#: are process-wide, so they also apply to other users of llvmlite in the process):
#:
#: - ``-enable-vplan-native-path`` lets the loop vectorizer vectorize kernel thread loops that
#:   contain inner loops (only loops marked ``llvm.loop.vectorize.enable`` take this path);
#: - ``-misched=ilpmax`` schedules instructions for instruction-level parallelism. Vectorized
#:   kernels are long chains of dependent vector operations, and the default scheduler can order
#:   two independent chains so that the CPU's scheduler window fills with one of them: a kernel
#:   summing ``sin`` and ``cos`` in an inner loop ran 1.9x slower (``bench_sincos.py``, 0.19 s
#:   against 0.10 s with this option). Measured neutral or better on the other benchmarks.
#: - ``-slp-vectorize-hor=false`` keeps the SLP vectorizer from starting at horizontal reductions
#:   and at the operands of reduction roots. In LLVM 22.1 that path miscompiles: tuned for Intel
#:   AVX-512 CPUs (``skylake-avx512``, ``icelake-server``, ``sapphirerapids``), the 4-D ``wp.pnoise``
#:   kernel returned other values than the unvectorized code for most points (found on a Xeon
#:   host; ``opt-bisect`` names the SLP pass, and its output is wrong on every backend).
#:   Kernels rarely have horizontal reductions SLP could form (floating-point ones need
#:   ``reassoc``, which warp does not emit), so little is lost
#:   (tests/builtins/test_noise_cpu_tuning.py).
LLVM_OPTIONS = ("-enable-vplan-native-path", "-misched=ilpmax", "-slp-vectorize-hor=false")


def llvm_options() -> list[str]:
    """:data:`LLVM_OPTIONS`, then those in ``$WARP_LLVM_OPTIONS`` (space separated; for
    experiments with LLVM's code generation, e.g. ``-misched=ilpmax``)."""
    return [*LLVM_OPTIONS, *os.environ.get("WARP_LLVM_OPTIONS", "").split()]


_init_lock = threading.Lock()
_initialized = False
_thread_state = threading.local()


def _ensure_initialized() -> None:
    """Initialize the native target once and make libm/libc symbols visible to JIT'd code."""
    global _initialized
    if _initialized:
        return
    with _init_lock:
        if _initialized:
            return
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        llvm.initialize_native_asmparser()
        for option in llvm_options():
            llvm.set_option("", option)
        # Loaded with RTLD_GLOBAL, so the process symbol search of the JIT finds sinf, printf, ...
        for lib in ("m", "c"):
            path = ctypes.util.find_library(lib)
            if path:
                try:
                    llvm.load_library_permanently(path)
                except RuntimeError:
                    pass  # the symbols are usually in the process already
        _initialized = True


# --------------------------------------------------------------------------------------------------
# Target description
# --------------------------------------------------------------------------------------------------


def host_triple() -> str:
    """The LLVM target triple of this process."""
    return llvm.get_process_triple()


def host_cpu_name() -> str:
    """The LLVM name of the CPU that code is tuned for: the host's (e.g. ``"rocketlake"``), or
    ``$WARP_LLVM_CPU`` where set (to reproduce another machine's code generation: the instruction
    set stays the host's, :func:`host_cpu_features`)."""
    _ensure_initialized()
    return os.environ.get("WARP_LLVM_CPU") or llvm.get_host_cpu_name()


def host_cpu_features() -> str:
    """The host CPU feature string (``"+avx2,+avx512f,-amx-tile,..."``), sorted; empty if unknown."""
    _ensure_initialized()
    try:
        features = llvm.get_host_cpu_features()
    except RuntimeError:
        return ""
    if features.get("avx512f"):
        # Kernels are throughput loops: use full 512-bit vectors where the CPU has them (LLVM's
        # tuning for many AVX-512 CPUs otherwise caps auto-vectorization at 256 bits).
        features["prefer-256-bit"] = False
    return features.flatten(sort=True)


def _create_target_machine(opt_level: int) -> llvm.TargetMachine:
    _ensure_initialized()
    target = llvm.Target.from_triple(host_triple())
    return target.create_target_machine(
        cpu=host_cpu_name(),
        features=host_cpu_features(),
        opt=opt_level,
        reloc=_RELOC,
        codemodel=_CODEMODEL,
    )


def host_target_machine(opt_level: int = 3) -> llvm.TargetMachine:
    """The target machine for the host CPU at ``opt_level``, cached per thread.

    LLVM target machines are not shared between threads, so each thread gets its own; the
    returned object must not be handed to another thread or to an execution engine (which
    would take ownership of it).
    """
    machines = getattr(_thread_state, "machines", None)
    if machines is None:
        machines = _thread_state.machines = {}
    tm = machines.get(opt_level)
    if tm is None:
        tm = machines[opt_level] = _create_target_machine(opt_level)
    return tm


@functools.lru_cache(maxsize=None)
def target_fingerprint() -> str:
    """A stable string naming everything that makes object code host specific, for cache keys."""
    llvm_version = ".".join(str(v) for v in llvm.llvm_version_info)
    return "|".join(
        [
            f"triple={host_triple()}",
            f"cpu={host_cpu_name()}",
            f"features={host_cpu_features()}",
            f"reloc={_RELOC}",
            f"codemodel={_CODEMODEL}",
            f"llvmlite={llvmlite.__version__}",
            f"llvm={llvm_version}",
            f"codegen={CODEGEN_VERSION}",
            f"options={' '.join(llvm_options())}",
        ]
    )


# --------------------------------------------------------------------------------------------------
# Compilation
# --------------------------------------------------------------------------------------------------


def _first_lines(text: str, limit: int = 40) -> str:
    lines = text.strip().splitlines()
    if len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(lines) - limit} more lines)"]
    return "\n".join(lines)


def _parse_and_verify(llvm_ir: str, context: llvm.ContextRef, name: str) -> llvm.ModuleRef:
    """Parse textual IR into ``context`` and verify it; errors become :class:`WarpCodegenError`."""
    try:
        module = llvm.parse_assembly(llvm_ir, context=context)
    except RuntimeError as e:
        detail = _first_lines(str(e))
        raise WarpCodegenError(f"invalid LLVM IR in module '{name}' (parse error):\n{detail}") from None
    try:
        module.verify()
    except RuntimeError as e:
        module.close()
        raise WarpCodegenError(
            f"invalid LLVM IR in module '{name}' (verifier):\n{_first_lines(str(e))}"
        ) from None
    module.name = name
    return module


def _optimize(module: llvm.ModuleRef, tm: llvm.TargetMachine, opt_level: int) -> None:
    """Run the new-pass-manager pipeline at ``opt_level`` with loop and SLP vectorization."""
    module.triple = tm.triple
    module.data_layout = str(tm.target_data)
    if opt_level >= 2:
        run_passes(
            module,
            tm,
            speed_level=opt_level,
            loop_vectorization=True,
            slp_vectorization=True,
            loop_unrolling=True,
            loop_interleaving=True,
        )
    else:
        run_passes(module, tm, speed_level=opt_level)


_stderr_lock = threading.Lock()


@contextlib.contextmanager
def _vectorizer_remarks_filtered() -> Iterator[None]:
    """Drop LLVM's "loop not vectorized" remarks (printed to fd 2) for loops we hinted.

    Kernel thread loops carry a vectorization hint; when LLVM declines it, it reports that on
    stderr. That is not an error, so those lines are dropped; anything else is passed on.
    """
    with _stderr_lock:
        sys.stderr.flush()
        saved = os.dup(2)
        with tempfile.TemporaryFile() as capture:
            os.dup2(capture.fileno(), 2)
            try:
                yield
            finally:
                os.dup2(saved, 2)
                os.close(saved)
                capture.seek(0)
                text = capture.read().decode("utf-8", errors="replace")
        kept = [line for line in text.splitlines() if line.strip() and "loop not vectorized" not in line]
        if kept:
            sys.stderr.write("\n".join(kept) + "\n")


class _CompiledModule:
    """Context manager: a parsed, verified, optimized module and its private LLVM context.

    ``late`` defines the late intrinsics the module calls (:mod:`warp.targets.cpu.late_intrinsics`);
    None means those registered in :data:`warp.compiler.registry.builtin_registry`.
    """

    def __init__(self, llvm_ir: str, opt_level: int, name: str, late: Mapping[str, DefineLate] | None = None):
        if not 0 <= opt_level <= 3:
            raise ValueError(f"opt_level must be 0..3, got {opt_level}")
        self.tm = host_target_machine(opt_level)
        self.context = llvm.create_context()
        try:
            self.module = _parse_and_verify(llvm_ir, self.context, name)
        except BaseException:
            self.context.close()
            raise
        try:
            with _vectorizer_remarks_filtered():
                _optimize(self.module, self.tm, opt_level)
            providers = builtin_registry.late_intrinsics_for("cpu") if late is None else late
            define_late_intrinsics(self.module, providers, self.context, self.tm)
        except BaseException:
            self.__exit__()
            raise

    def __enter__(self) -> _CompiledModule:
        return self

    def __exit__(self, *exc: object) -> None:
        # The module must die before its context.
        self.module.close()
        self.context.close()


def compile_ir(
    llvm_ir: str, *, opt_level: int = 3, name: str = "module", late: Mapping[str, DefineLate] | None = None
) -> bytes:
    """Parse, verify and optimize ``llvm_ir`` for the host CPU and return an object file's bytes.

    ``late`` defines the late intrinsics it calls (None: the registered ones, see
    :mod:`warp.targets.cpu.late_intrinsics`). Raises :class:`WarpCodegenError` (carrying LLVM's
    message) for IR that does not parse or verify.
    """
    with _CompiledModule(llvm_ir, opt_level, name, late) as cm:
        return bytes(cm.tm.emit_object(cm.module))


def optimize_ir(
    llvm_ir: str, *, opt_level: int = 3, name: str = "module", late: Mapping[str, DefineLate] | None = None
) -> str:
    """The optimized IR text of ``llvm_ir`` (what :func:`compile_ir` turns into machine code)."""
    with _CompiledModule(llvm_ir, opt_level, name, late) as cm:
        return str(cm.module)


def emit_assembly(llvm_ir: str, *, opt_level: int = 3, name: str = "module") -> str:
    """The host assembly of ``llvm_ir`` after optimization, for inspection."""
    with _CompiledModule(llvm_ir, opt_level, name) as cm:
        return cm.tm.emit_assembly(cm.module)


# --------------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------------

_jit_lock = threading.Lock()
_jit: llvm.LLJIT | None = None
_library_ids = itertools.count()


def _get_jit() -> llvm.LLJIT:
    """The process-wide LLJIT instance (created on first use, never disposed)."""
    global _jit
    if _jit is None:
        _ensure_initialized()
        # Link errors are reported as exceptions (see _undefined_symbols), not printed to stderr.
        jit = llvm.create_lljit_compiler(None, use_jit_link=True, suppress_errors=True)
        # Never dispose the JIT: loaded libraries may outlive this module's globals at exit.
        jit._owned = True
        _jit = jit
    return _jit


def warm_up() -> None:
    """Initialize LLVM and create the JIT now (both are otherwise done on first use)."""
    with _jit_lock:
        _get_jit()


class LoadedModule:
    """Object code linked into the process; keeps the code alive while referenced."""

    def __init__(self, tracker: llvm.ResourceTracker, symbols: list[str], name: str):
        self._tracker = tracker
        self._addresses = {s: tracker[s] for s in symbols}
        self.name = name

    @property
    def symbols(self) -> list[str]:
        """The names whose addresses were requested at load time."""
        return list(self._addresses)

    def address(self, name: str) -> int:
        """The address of the exported symbol ``name`` (one of the symbols given to :func:`load_object`)."""
        try:
            return self._addresses[name]
        except KeyError:
            raise KeyError(f"symbol '{name}' was not requested when loading module '{self.name}'") from None

    def __repr__(self) -> str:
        return f"LoadedModule({self.name!r}, symbols={self.symbols})"


def _undefined_symbols(obj: bytes) -> list[str]:
    """Names of the global undefined symbols of an ELF64 little-endian object (empty for other formats)."""
    if len(obj) < 64 or obj[:4] != b"\x7fELF" or obj[4] != 2 or obj[5] != 1:
        return []
    try:
        shoff, = struct.unpack_from("<Q", obj, 0x28)
        shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
        sections = [struct.unpack_from("<IIQQQQIIQQ", obj, shoff + i * shentsize) for i in range(shnum)]
        names = []
        for _, sh_type, _, _, offset, size, link, _, _, entsize in sections:
            if sh_type != 2 or not entsize:  # SHT_SYMTAB
                continue
            str_offset, str_size = sections[link][4], sections[link][5]
            strtab = obj[str_offset : str_offset + str_size]
            for k in range(1, size // entsize):
                st_name, st_info, _, st_shndx = struct.unpack_from("<IBBH", obj, offset + k * entsize)
                if st_shndx == 0 and st_name and (st_info >> 4) in (1, 2):  # SHN_UNDEF, GLOBAL/WEAK
                    names.append(strtab[st_name : strtab.index(b"\0", st_name)].decode())
        return names
    except (struct.error, IndexError, ValueError, UnicodeDecodeError):
        return []


def _unresolved_symbols(obj: bytes, imports: dict[str, int]) -> list[str]:
    """Undefined symbols of ``obj`` that neither ``imports`` nor the process provide."""
    return [s for s in _undefined_symbols(obj) if s not in imports and not llvm.address_of_symbol(s)]


def load_object(
    obj: bytes, symbols: list[str], *, name: str = "module", imports: dict[str, int] | None = None
) -> LoadedModule:
    """Link the object file ``obj`` into the process and resolve ``symbols`` to addresses.

    External references resolve to ``imports`` (name -> address) first, then to symbols of the
    process (libc, libm, ...). Each call creates a separate JIT library whose code is freed when
    the returned module is garbage collected. Safe to call from several threads. Undefined or
    missing symbols raise :class:`WarpCodegenError`.
    """
    return load_objects([obj], symbols, name=name, imports=imports)


def load_objects(
    objs: list[bytes], symbols: list[str], *, name: str = "module", imports: dict[str, int] | None = None
) -> LoadedModule:
    """:func:`load_object` for several object files linked into one JIT library (one link:
    cheaper than a library per object); their global symbols must be distinct."""
    if not symbols:
        raise ValueError("load_object needs at least one symbol to export")
    objs = [bytes(obj) for obj in objs]
    imports = dict(imports or {})
    builder = llvm.JITLibraryBuilder()
    for obj in objs:
        builder.add_object_img(obj)
    builder.add_current_process()
    for s, address in imports.items():
        builder.import_symbol(s, address)
    for s in symbols:
        builder.export_symbol(s)
    with _jit_lock:
        jit = _get_jit()
        library = f"{name}.{next(_library_ids)}"
        try:
            tracker = builder.link(jit, library)
        except RuntimeError as e:
            unresolved = sorted({s for obj in objs for s in _unresolved_symbols(obj, imports)})
            detail = f"undefined symbols: {', '.join(unresolved)}" if unresolved else str(e)
            raise WarpCodegenError(f"failed to load object code of module '{name}': {detail}") from None
    loaded = LoadedModule(tracker, symbols, library)
    missing = [s for s, a in loaded._addresses.items() if not a]
    if missing:
        raise WarpCodegenError(f"symbols not found in module '{name}': {', '.join(missing)}")
    return loaded


def entry_function(address: int) -> Callable[[bytes, int, int], None]:
    """A ctypes function for the kernel entry at ``address``: ``fn(args: bytes, start, end)``.

    The caller must keep the :class:`LoadedModule` alive while the function is in use.
    """
    if not address:
        raise ValueError("null kernel entry address")
    return EntryFunction(address)


# --------------------------------------------------------------------------------------------------
# C stdio
# --------------------------------------------------------------------------------------------------

_libc: ctypes.CDLL | None = None


def flush_c_stdout() -> None:
    """Flush Python's ``sys.stdout`` and then C stdio (``fflush(NULL)``), so kernel printf output
    and Python prints appear in program order."""
    global _libc
    try:
        sys.stdout.flush()
    except (AttributeError, ValueError, OSError):
        pass
    if _libc is None:
        _libc = ctypes.CDLL(None)
        _libc.fflush.argtypes = [ctypes.c_void_p]
        _libc.fflush.restype = ctypes.c_int
    _libc.fflush(None)
