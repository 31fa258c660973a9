"""The CUDA target: PTX from llvmlite's NVPTX target, loaded and launched through cuda-python.

* code: :mod:`~warp.targets.cuda.entry` defines ``ptx_kernel`` entries taking the packed
  argument buffer; :func:`warp.targets.cuda.ptx.compile_ptx` emits PTX for the device's SM and the PTX
  ISA its driver accepts; ``cuModuleLoadDataEx`` loads it (its error log goes into the exception),
  or, given the kernel cache, the cubin the driver's linker made from it once (:mod:`.cubin`).
* launches (:mod:`~warp.targets.cuda.launching`): ``cuLaunchKernel`` with the argument buffer
  passed whole through ``CU_LAUNCH_PARAM_BUFFER_POINTER`` (the same bytes the CPU entry reads),
  on the given or the device's current stream; the launcher packs each launch's arguments
  straight into a buffer kept per kernel and thread (:meth:`CudaTarget.argument_buffer`);
  ``ceil(n / block_dim)`` blocks of ``block_dim`` threads (256 unless ``wp.launch`` says), at
  most ``max_blocks`` of them when that is positive: a grid-stride loop in the entry covers any
  launch size.
* memory: device memory from the device's memory pool (``cuMemAllocAsync``/``cuMemFreeAsync`` on
  the current stream, kept cached by the pool) or ``cuMemAlloc`` where pools are unsupported;
  pinned host memory from ``cuMemHostAlloc``; copies with ``cuMemcpyAsync`` (unified addressing
  makes one call serve every direction).
* graphs: ``wp.capture_begin``/``capture_end`` map to stream capture, ``capture_launch`` to
  ``cuGraphLaunch``; ``wp.capture_pause`` ends the capture keeping the graph and the nodes it
  ended on (``cuStreamGetCaptureInfo``), ``wp.capture_resume`` captures into that graph again
  after those nodes (``cuStreamBeginCaptureToGraph``, CUDA 12.3+).
"""

from __future__ import annotations

import ctypes
import functools
import re
import threading
import weakref
from typing import Any, Sequence

import llvmlite.ir as ir

from warp.compiler import ir as wir
from warp.compiler.abi import ERROR_RECORD_SIZE
from warp.compiler.lowering.context import LowerContext
from warp.compiler.lowering.kernel import EntryVariant
from warp.compiler.options import CompileOptions
from warp.errors import WarpCodegenError
from warp.targets.base import Allocation, CodeStore, CommandList, ErrorRecordBuffer, LoadedCode, Target
from warp.targets.cuda import cubin
from warp.targets.cuda import driver as drv
from warp.targets.cuda import ptx
from warp.targets.cuda.context import device_info, make_current
from warp.targets.cuda.entry import VECTOR_WIDTH, define_entry, define_vector_entry, with_byval_args
from warp.targets.cuda.lowering import emit_vprintf
from warp.targets.cuda.launching import BLOCK_DIM as BLOCK_DIM  # noqa: F401  (the name's old home)
from warp.targets.cuda.launching import argument_buffer, buffer_runner, bytes_runner
from warp.targets.cuda.launching import stream_handle as _stream_handle
from warp.targets.cuda import memory as cuda_memory
from warp.targets.cuda.memory import allocate_device
from warp.targets.cuda.memory import allocate_pinned
from warp.targets.cuda.memory import fill_pattern, fill_strided
from warp.targets.cuda.streams import current_stream, device_streams

_ENTRY_NAME = re.compile(r'^define ptx_kernel void @"?([\w.$]+)"?\(', re.M)


def _ordinal(device: Any) -> int:
    return device.ordinal


def ptx_target(device: Any) -> tuple[int, int]:
    """(SM, PTX version) for ``device``: its own, or the offline default without one."""
    if device is None:
        return ptx.DEFAULT_ARCH, ptx.DEFAULT_PTX_VERSION
    target = getattr(device, "ptx_target", None)
    if target is not None:
        return tuple(target)  # type: ignore[return-value]
    return device_info(device.ordinal).ptx_target


class CudaEntry:
    """A ``CUfunction`` plus the module that owns it."""

    __slots__ = ("function", "module", "symbol")

    def __init__(self, function: Any, module: Any, symbol: str) -> None:
        self.function, self.module, self.symbol = function, module, symbol

    def __repr__(self) -> str:
        return f"CudaEntry({self.symbol!r})"


class CudaLoadedCode(LoadedCode):
    """A ``CUmodule`` loaded on one device; unloaded when garbage collected."""

    def __init__(self, module: Any, functions: dict[str, Any], device: Any) -> None:
        self.module, self.functions, self.device = module, functions, device
        unload = functools.partial(_unload, module, device.ordinal)
        weakref.finalize(self, cuda_memory.defer_while_capturing, -1, unload)

    def entry(self, symbol: str) -> CudaEntry:
        return CudaEntry(self.functions[symbol], self, symbol)


def _unload(module: Any, ordinal: int) -> None:
    try:
        make_current(ordinal)
        drv.driver().cuModuleUnload(module)
    except Exception:
        pass


def load_ptx(
    ptx_text: bytes, symbols: list[str], *, name: str, device: Any, store: CodeStore | None = None
) -> CudaLoadedCode:
    """Load PTX on ``device`` and look up ``symbols``; JIT errors carry the driver's log.

    With a ``store`` (the kernel cache) the PTX loads as a cached cubin (:mod:`.cubin`) where it can.
    """
    cu = drv.driver()
    info = make_current(device.ordinal)
    image = bytes(ptx_text) + (b"" if bytes(ptx_text).endswith(b"\0") else b"\0")
    if store is not None and cubin.cubins_enabled():
        linked = cubin.load_cubin(
            image, symbols, name=name, arch=info.arch, driver_version=info.driver_version, store=store
        )
        if linked is not None:
            return CudaLoadedCode(linked[0], linked[1], device)
    # cuda-python takes the log buffer as a bytes-like object (converted to char*), its size as int
    log = bytearray(8192)
    options = [cu.CUjit_option.CU_JIT_ERROR_LOG_BUFFER, cu.CUjit_option.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES]
    values = [log, len(log)]
    err, module = cu.cuModuleLoadDataEx(image, len(options), options, values)
    if int(err) != 0:
        detail = bytes(log).split(b"\0", 1)[0].decode(errors="replace").strip()
        raise WarpCodegenError(
            f"CUDA driver could not load the PTX of module '{name}' on '{device}': "
            f"{drv.error_name(cu, err)}{': ' + detail if detail else ''}"
        )
    functions = {
        s: drv.check(cu.cuModuleGetFunction(module, s.encode()), "cuModuleGetFunction") for s in symbols
    }
    return CudaLoadedCode(module, functions, device)


class _DeviceErrorRecord(ErrorRecordBuffer):
    def __init__(self, target: CudaTarget, device: Any) -> None:
        self.device = device
        self.allocation = target.allocate(device, ERROR_RECORD_SIZE, zero=True)
        self.address = self.allocation.ptr
        self._target = target

    def read(self) -> bytes:
        host = ctypes.create_string_buffer(ERROR_RECORD_SIZE)
        self._target.copy_to_host(ctypes.addressof(host), self.address, self.device, ERROR_RECORD_SIZE)
        return host.raw

    def reset(self) -> None:
        self._target.memset(self.device, self.address, 0, ERROR_RECORD_SIZE)


class CudaGraph(CommandList):
    """A captured CUDA graph, instantiated for replay with ``cuGraphLaunch``.

    A graph from ``wp.capture_pause`` is not instantiated yet (it is, lazily, if launched while
    paused) and remembers the nodes that work captured after ``wp.capture_resume`` must follow.
    """

    def __init__(self, device: Any, graph: Any, graph_exec: Any = None) -> None:
        super().__init__(device)
        #: [CUgraph, CUgraphExec or None], shared with the finalizer
        self._handles = [graph, graph_exec]
        #: while paused: the graph nodes the next captured operation depends on
        self.resume_after: list[Any] | None = None
        #: whether a resumed capture is recording into the graph now
        self.recording = False
        #: host buffers the graph's copies read (staged uploads): kept alive as long as the graph
        self.kept: list[Any] = []
        # (destroying a graph while a capture runs would invalidate that capture: deferred)
        weakref.finalize(
            self, cuda_memory.defer_while_capturing, device.ordinal,
            functools.partial(_destroy_graph, self._handles, device.ordinal),
        )

    @property
    def graph(self) -> Any:
        """The ``CUgraph``."""
        return self._handles[0]

    @property
    def graph_exec(self) -> Any:
        """The ``CUgraphExec`` replayed by ``capture_launch`` (None until instantiated)."""
        return self._handles[1]

    def instantiate(self) -> Any:
        """Instantiate the graph (again, if it changed since), returning the ``CUgraphExec``."""
        self.discard_exec()
        cu = drv.driver()
        # memory the graph allocates and nothing freed by its next launch (an array made inside
        # the capture and still referenced) is freed at that launch, as NVIDIA Warp's graphs do
        flags = int(cu.CUgraphInstantiate_flags.CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH)
        self._handles[1] = drv.check(cu.cuGraphInstantiate(self.graph, flags), "cuGraphInstantiate")
        return self._handles[1]

    def discard_exec(self) -> None:
        """Destroy the instantiated graph (it no longer matches a graph being recorded into)."""
        graph_exec, self._handles[1] = self._handles[1], None
        if graph_exec is not None:
            drv.check(drv.driver().cuGraphExecDestroy(graph_exec), "cuGraphExecDestroy")


def _destroy_graph(handles: list[Any], ordinal: int) -> None:
    try:
        make_current(ordinal)
        if handles[1] is not None:
            drv.driver().cuGraphExecDestroy(handles[1])
        drv.driver().cuGraphDestroy(handles[0])
    except Exception:
        pass


def _join_forked_streams(cu: Any, origin: Any, ordinal: int) -> None:
    """Make the capturing stream ``origin`` wait for the device's other streams still in its
    capture: streams forked into it (``wp.ScopedStream``, ``wait_stream``) and never joined back.
    The driver refuses to end a capture with unjoined work; as in NVIDIA Warp, their work ends
    the graph."""
    query = getattr(cu, "cuStreamGetCaptureInfo_v3", None) or cu.cuStreamGetCaptureInfo
    info = query(origin)
    active = int(cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE)
    if int(info[0]) != 0 or int(info[1]) != active:
        return
    capture_id = int(info[2])
    for stream in device_streams(ordinal):
        if int(stream.handle) == int(origin):
            continue
        other = query(stream.handle)
        if int(other[0]) != 0 or int(other[1]) != active or int(other[2]) != capture_id:
            continue
        flags = int(cu.CUevent_flags.CU_EVENT_DISABLE_TIMING)
        event = drv.check(cu.cuEventCreate(flags), "cuEventCreate")
        try:
            drv.check(cu.cuEventRecord(event, stream.handle), "cuEventRecord")
            drv.check(cu.cuStreamWaitEvent(origin, event, 0), "cuStreamWaitEvent")
        finally:
            cu.cuEventDestroy(event)


def _capture_dependencies(cu: Any, handle: Any) -> list[Any]:
    """The graph nodes the next operation captured on stream ``handle`` would depend on."""
    query = getattr(cu, "cuStreamGetCaptureInfo_v3", None) or cu.cuStreamGetCaptureInfo
    result = query(handle)
    drv.check((result[0],), "cuStreamGetCaptureInfo")
    if len(result) < 6:  # cuda-python before 12.3 reports no dependencies here
        raise RuntimeError(
            "wp.capture_pause on CUDA needs cuda-python (cuda-bindings) 12.3 or newer and a driver "
            "for CUDA 12.3 or newer"
        )
    count = int(result[-1])
    return list(result[4] or [])[:count]


class CudaTarget(Target):
    """CUDA devices through the driver API (cuda-python)."""

    name = "cuda"
    #: one strided entry per kernel, as NVIDIA Warp (array indexing always uses the strides): the
    #: contiguous variant saves no GPU instructions worth its cost (twice the code to optimize
    #: and emit when compiling)
    contiguous_entry = False
    #: kernels accessing 1-D arrays at ``wp.tid()`` get a vector entry of 4 indices per thread
    #: (128-bit loads and stores; see :func:`warp.targets.cuda.entry.define_vector_entry`)
    vector_width = VECTOR_WIDTH
    max_block_dim = 1024

    def device_count(self) -> int:
        return drv.device_count()

    def device_name(self, ordinal: int) -> str | None:
        return device_info(ordinal).name

    # -- lowering --------------------------------------------------------------------------
    def emit_printf(self, ctx: LowerContext, fmt: ir.Value, args: Sequence[ir.Value]) -> None:
        emit_vprintf(ctx, fmt, args)

    def __init__(self) -> None:
        #: device ordinal -> (capturing stream handle, the CudaGraph resumed into or None)
        self._capturing: dict[int, tuple[Any, CudaGraph | None]] = {}
        #: device ordinals whose capture was begun outside Warp (``capture_join``)
        self._external: set[int] = set()
        #: per device ordinal: host buffers copies captured now read from (moved to the graph)
        self._capture_kept: dict[int, list[Any]] = {}
        #: such buffers of external captures (whose graphs warp does not own)
        self._external_kept: list[Any] = []
        self._lock = threading.Lock()

    # -- code ------------------------------------------------------------------------------
    def fingerprint(self, device: Any) -> str:
        return ptx.target_fingerprint(*ptx_target(device))

    def define_entry(
        self, module: ir.Module, name: str, body: ir.Function, kernel_ir: wir.Function,
        options: CompileOptions, *, contiguous: bool, variant: EntryVariant | None = None,
    ) -> None:
        define_entry(module, name, body, kernel_ir, options, contiguous=contiguous, variant=variant)

    def define_vector_entry(
        self, module: ir.Module, name: str, body: ir.Function, kernel_ir: wir.Function,
        options: CompileOptions,
    ) -> None:
        define_vector_entry(module, name, body, kernel_ir, options)

    def compile(
        self, llvm_ir: str, *, name: str, options: CompileOptions, device: Any = None,
        store: CodeStore | None = None,
    ) -> bytes:
        text = with_byval_args(llvm_ir)
        arch, version = ptx_target(device)
        kernels = _ENTRY_NAME.findall(text)
        return ptx.compile_ptx(
            text, kernels=kernels, name=name, arch=arch, ptx_version=version,
            libdevice_store=store,
        ).encode()

    def load(
        self, code: bytes, symbols: list[str], *, name: str, device: Any, store: CodeStore | None = None
    ) -> CudaLoadedCode:
        return load_ptx(code, symbols, name=name, device=device, store=store)

    def runner(self, device: Any, entry: CudaEntry) -> Any:
        return bytes_runner(device, entry)

    def argument_buffer(self, device: Any, size: int) -> Any:
        return argument_buffer(size)

    def buffer_runner(self, device: Any, entry: CudaEntry, buffer: Any) -> Any:
        return buffer_runner(device, entry, buffer)

    def launch(
        self, device: Any, entry: CudaEntry, args: bytes, n: int, stream: Any = None, keep: Any = None,
        shape: Any = None,
    ) -> None:
        self.runner(device, entry)(args, n, stream, keep, shape)

    def new_error_record(self, device: Any) -> ErrorRecordBuffer:
        return _DeviceErrorRecord(self, device)

    def flush_output(self, device: Any) -> None:
        # device printf output appears when the host synchronizes with the device
        if not self.is_capturing(device):
            self.synchronize(device)

    def synchronize(self, device: Any) -> None:
        """Wait for all work on ``device``; ``RuntimeError`` while a graph capture runs on it
        (the driver would invalidate the capture)."""
        if self.is_capturing(device):
            raise RuntimeError(
                f"Cannot synchronize device '{device}' while graph capture is active on it "
                "(synchronize before wp.capture_begin or after wp.capture_end)"
            )
        make_current(device.ordinal)
        drv.check(drv.driver().cuCtxSynchronize(), "cuCtxSynchronize")

    # -- memory ----------------------------------------------------------------------------
    def allocate(self, device: Any, nbytes: int, *, zero: bool = False, pinned: bool = False) -> Allocation:
        nbytes = int(nbytes)
        if getattr(device, "is_cpu", False):
            return allocate_pinned(device, nbytes, zero=zero)
        mem = allocate_device(device, nbytes, self._stream_for_alloc(device))
        if zero and nbytes:
            self.memset(device, mem.ptr, 0, nbytes)
        return mem

    def _stream_for_alloc(self, device: Any) -> Any:
        return current_stream(device)

    def copy(
        self, dst: int, dst_device: Any, src: int, src_device: Any, nbytes: int, stream: Any = None,
        keep: Any = None,
    ) -> None:
        to_host = getattr(dst_device, "is_cpu", False)
        cuda_side = src_device if to_host else dst_device
        self._copy(dst, src, cuda_side, nbytes, stream, to_host=to_host)
        if keep is not None and self.is_capturing(cuda_side, stream):
            # the graph's copy node reads (or writes) ``keep`` on every replay: it must outlive the graph
            with self._lock:
                self._capture_kept.setdefault(cuda_side.ordinal, []).append(keep)

    def copy_to_host(self, dst: int, src: int, device: Any, nbytes: int, stream: Any = None) -> None:
        """Copy ``nbytes`` from ``device`` memory at ``src`` to host memory at ``dst`` (done on return)."""
        self._copy(dst, src, device, nbytes, stream, to_host=True)

    def _copy(self, dst: int, src: int, cuda_side: Any, nbytes: int, stream: Any, *, to_host: bool) -> None:
        if nbytes <= 0:
            return
        make_current(cuda_side.ordinal)
        handle = _stream_handle(cuda_side, stream)
        cu = drv.driver()
        drv.check(cu.cuMemcpyAsync(cu.CUdeviceptr(dst), cu.CUdeviceptr(src), nbytes, handle), "cuMemcpyAsync")
        if to_host and not self.is_capturing(cuda_side, stream):
            # host code reads the destination right after the copy returns
            drv.check(cu.cuStreamSynchronize(handle), "cuStreamSynchronize")

    def memset(
        self, device: Any, ptr: int, value: int, nbytes: int, stream: Any = None, keep: Any = None
    ) -> None:
        if nbytes <= 0:
            return
        cu = drv.driver()
        make_current(device.ordinal)
        handle = _stream_handle(device, stream)
        drv.check(
            cu.cuMemsetD8Async(cu.CUdeviceptr(ptr), int(value) & 0xFF, nbytes, handle), "cuMemsetD8Async"
        )

    def fill(
        self, device: Any, ptr: int, pattern: bytes, count: int, stream: Any = None, keep: Any = None
    ) -> None:
        if count > 0 and pattern:
            make_current(device.ordinal)
            fill_pattern(ptr, pattern, count, _stream_handle(device, stream))

    #: at most this many driver memsets for a strided fill outside a capture (else the caller's
    #: host path is faster); a capture takes any number (it has no other way to record the fill)
    max_strided_fill_calls = 4096

    def fill_strided(
        self, device: Any, ptr: int, pattern: bytes, shape: tuple[int, ...], strides: tuple[int, ...],
        stream: Any = None, keep: Any = None,
    ) -> bool:
        if not pattern or any(s <= 0 for s, n in zip(strides, shape) if n > 1):
            return False
        size = 1
        for n in shape:
            size *= n
        calls = size // max(shape, default=1) * len(pattern)  # at most: one memset per byte
        if calls > self.max_strided_fill_calls and not self.is_capturing(device, stream):
            return False
        make_current(device.ordinal)
        fill_strided(ptr, pattern, tuple(shape), tuple(strides), _stream_handle(device, stream))
        return True

    # -- graph capture ---------------------------------------------------------------------
    def capture_begin(self, device: Any, stream: Any = None) -> None:
        cu = drv.driver()
        make_current(device.ordinal)
        handle = _stream_handle(device, stream)
        with self._lock:
            if device.ordinal in self._capturing:
                raise RuntimeError(f"a graph capture is already active on device '{device}'")
            mode = cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
            drv.check(cu.cuStreamBeginCapture(handle, mode), "cuStreamBeginCapture")
            self._capturing[device.ordinal] = (handle, None)
            cuda_memory.capture_started(device.ordinal)

    def capture_join(self, device: Any, stream: Any = None) -> None:
        """Record Warp's work into a capture another framework began on ``stream``."""
        cu = drv.driver()
        make_current(device.ordinal)
        handle = _stream_handle(device, stream)
        err, status = cu.cuStreamIsCapturing(handle)
        if int(err) != 0 or int(status) != int(cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE):
            raise RuntimeError(
                f"capture_begin(external=True): stream {int(handle)} of device '{device}' is not capturing; "
                "begin the capture on it first (e.g. torch.cuda.graph(..., stream=...)), or capture with Warp"
            )
        with self._lock:
            if device.ordinal in self._capturing:
                raise RuntimeError(f"a graph capture is already active on device '{device}'")
            self._capturing[device.ordinal] = (handle, None)
            self._external.add(device.ordinal)
            cuda_memory.capture_started(device.ordinal)

    def _end_external(self, device: Any) -> bool:
        """Stop taking part in an external capture of ``device`` (left running); False if none."""
        with self._lock:
            if device.ordinal not in self._external:
                return False
            self._external.discard(device.ordinal)
            self._capturing.pop(device.ordinal, None)
            # the foreign graph's copy nodes may read these on every replay, and warp cannot know
            # when that graph is destroyed: they are kept for the life of the process
            self._external_kept.extend(self._capture_kept.pop(device.ordinal, []))
        cuda_memory.capture_ended(device.ordinal)
        return True

    def _stop_capture(self, device: Any, *, pause: bool) -> CudaGraph:
        """End the stream capture on ``device``; the graph, with what resuming needs when pausing."""
        cu = drv.driver()
        make_current(device.ordinal)
        with self._lock:
            handle, target = self._capturing.get(device.ordinal, (None, None))
            if handle is None:
                raise RuntimeError(f"no graph capture is active on device '{device}'")
            _join_forked_streams(cu, handle, device.ordinal)
            # (a failed query leaves the capture active, to be ended with capture_end)
            dependencies = _capture_dependencies(cu, handle) if pause else None
            self._capturing.pop(device.ordinal, None)
            kept = self._capture_kept.pop(device.ordinal, [])
            try:
                graph = drv.check(cu.cuStreamEndCapture(handle), "cuStreamEndCapture")
            finally:
                cuda_memory.capture_ended(device.ordinal)
        if target is None:
            target = CudaGraph(device, graph)
        target.kept.extend(kept)
        target.recording = False
        target.resume_after = dependencies
        return target

    def capture_end(self, device: Any, stream: Any = None) -> CudaGraph | None:
        if self._end_external(device):
            return None  # the framework that began the capture ends it
        graph = self._stop_capture(device, pause=False)
        graph.instantiate()
        return graph

    def capture_pause(self, device: Any, stream: Any = None) -> CudaGraph:
        """End the capture for now, keeping the graph open for :meth:`capture_resume`.

        The graph is not instantiated (``capture_launch`` of a paused graph instantiates it).
        """
        if device.ordinal in self._external:
            raise RuntimeError("wp.capture_pause: the capture was begun outside Warp (external=True)")
        return self._stop_capture(device, pause=True)

    def capture_resume(self, device: Any, commands: Any, stream: Any = None) -> None:
        """Capture into the paused graph again (``cuStreamBeginCaptureToGraph``), after its last work."""
        if not isinstance(commands, CudaGraph):
            raise TypeError("capture_resume on a CUDA device needs a graph paused on a CUDA device")
        if commands.resume_after is None:
            raise RuntimeError(
                "capture_resume: the graph's capture was ended, not paused (resume the graph that "
                "wp.capture_pause returned)"
            )
        cu = drv.driver()
        begin = getattr(cu, "cuStreamBeginCaptureToGraph", None)
        if begin is None:
            raise RuntimeError("wp.capture_resume on CUDA needs cuda-python (cuda-bindings) 12.3 or newer")
        make_current(device.ordinal)
        handle = _stream_handle(device, stream)
        with self._lock:
            if device.ordinal in self._capturing:
                raise RuntimeError(f"a graph capture is already active on device '{device}'")
            commands.discard_exec()  # an instance made while paused would miss the work to come
            dependencies = commands.resume_after
            mode = cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
            drv.check(
                begin(handle, commands.graph, dependencies or None, None, len(dependencies), mode),
                "cuStreamBeginCaptureToGraph",
            )
            self._capturing[device.ordinal] = (handle, commands)
            cuda_memory.capture_started(device.ordinal)
        commands.resume_after = None
        commands.recording = True

    def capture_replay(self, commands: CommandList, stream: Any = None) -> None:
        if not isinstance(commands, CudaGraph):
            raise TypeError("capture_launch on a CUDA device needs a graph captured on a CUDA device")
        if commands.recording:
            raise RuntimeError(
                "capture_launch: the graph is being captured into (resumed); end or pause the capture first"
            )
        cu = drv.driver()
        make_current(commands.device.ordinal)
        handle = _stream_handle(commands.device, stream)
        graph_exec = commands.graph_exec if commands.graph_exec is not None else commands.instantiate()
        drv.check(cu.cuGraphLaunch(graph_exec, handle), "cuGraphLaunch")

    def is_capturing(self, device: Any, stream: Any = None) -> bool:
        return getattr(device, "ordinal", -1) in self._capturing
