"""The target interface: everything that differs between running kernels on the CPU and on a GPU.

A target (one per device kind, registered in :mod:`warp.targets.registry`) owns, for the
devices of its kind:

* code: the per-target kernel entry wrapped around a lowered kernel body (:meth:`Target.define_entry`),
  turning LLVM IR into loadable code (:meth:`Target.compile`), loading it (:meth:`Target.load`)
  and launching an entry over a range of threads (:meth:`Target.launch`, with a stream);
* memory: allocation (freed when the returned :class:`Allocation` is garbage collected), copies
  between host and device memory, memset and pattern fills;
* graph capture: a per-device list of recorded commands (:class:`CommandList`) that
  ``wp.capture_begin``/``capture_end``/``capture_launch`` build and replay;
* devices: how many there are (:meth:`Target.device_count`; device strings are parsed by
  :mod:`warp.targets.registry`);
* lowering: the lowering (typed IR -> LLVM IR) is shared; the target object travels in
  :attr:`warp.compiler.options.CompileOptions.target` and ``LowerContext.target``, and code that
  differs per target asks it (:meth:`Target.emit_printf`, :meth:`Target.finish_module`) or picks
  a builtin's per-target lowering by :attr:`Target.name` (``registry.add(..., lower_for=...)``).

The argument buffer and error record layouts are the same for every target
(:mod:`warp.compiler.abi`).
"""

from __future__ import annotations

import abc
import ctypes
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Protocol, Sequence

import llvmlite.ir as ir

from warp.compiler import ir as wir
from warp.compiler.lowering.kernel import EntryVariant
from warp.compiler.options import CompileOptions
from warp.compiler.abi import ERROR_RECORD_SIZE

if TYPE_CHECKING:
    from warp.compiler.lowering.context import LowerContext


@dataclass(eq=False)
class Allocation:
    """A block of device memory: ``ptr`` and ``nbytes`` on ``device``.

    The memory stays valid while this object is alive. Targets that must free explicitly attach a
    finalizer (``weakref.finalize(allocation, ...)``); host targets keep the owning buffer in ``owner``.
    """

    ptr: int
    nbytes: int
    device: Any
    owner: Any = None


class CodeStore(Protocol):
    """Where a target may keep compiled pieces between processes, by content key (the runtime's
    kernel cache, :class:`warp.runtime.cache.KernelCache`, has this API)."""

    def get(self, key: str) -> tuple[bytes, dict] | None: ...

    def put(self, key: str, obj: bytes, meta: dict) -> None: ...


class LoadedCode(abc.ABC):
    """Code of one kernel part loaded on a device; keeps the code alive while referenced."""

    @abc.abstractmethod
    def entry(self, symbol: str) -> Any:
        """A launchable handle of the entry ``symbol``, accepted by :meth:`Target.launch`."""


class ErrorRecordBuffer(abc.ABC):
    """Memory for one launch's error record (:mod:`warp.compiler.abi`) that kernels can write."""

    #: address handed to the kernel in the launch header
    address: int

    @abc.abstractmethod
    def read(self) -> bytes:
        """The record's bytes after the launch finished (the caller synchronizes first)."""

    @abc.abstractmethod
    def reset(self) -> None:
        """Zero the record (a captured launch reuses its record at every replay)."""


@dataclass
class Command:
    """One recorded operation: ``run()`` replays it on the device it was recorded for."""

    kind: str  # "launch", "copy", "memset", "fill", ...
    run: Callable[[], object]  # its result, if any, is ignored
    #: what the command keeps alive while the graph exists (argument buffers, arrays)
    keep: tuple[Any, ...] = ()
    description: str = ""


@dataclass
class CommandList:
    """Commands recorded on one device while a capture is active, in issue order."""

    device: Any
    commands: list[Command] = field(default_factory=list)


class Target(abc.ABC):
    """Compiles, loads and launches kernels and manages memory for the devices of one kind."""

    #: the target's name, also the device kind it runs (``"cpu"``, ``"cuda"``) and the key of
    #: per-target lowerings (``registry.add(..., lower_for={"cuda": ...})``)
    name: str = ""
    #: whether the entry runs a kernel's fast variant when its guard holds
    #: (:attr:`warp.compiler.ir.Function.variants`; see :func:`warp.compiler.lowering.kernel.lower_kernel`)
    entry_variants: bool = False
    #: whether kernels get an entry specialized to all-contiguous arrays besides the strided one
    #: (see :func:`warp.compiler.lowering.kernel.lower_kernel`)
    contiguous_entry: bool = True
    #: consecutive thread indices one thread of the target's vector entry runs (see
    #: :mod:`warp.compiler.lowering.vector_entry` and :meth:`define_vector_entry`); 0: no vector entry
    vector_width: int = 0
    #: most threads per block of a launch (``wp.launch(block_dim=...)``); None: the target has
    #: no blocks and ignores ``block_dim``/``max_blocks`` (the CPU)
    max_block_dim: int | None = None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} '{self.name}'>"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):  # a test of the name left from when targets were strings
            raise TypeError(
                f"a Target is compared with the string {other!r}: compare Target objects, or "
                "register per-target lowerings (lower_for=)"
            )
        return self is other

    __hash__ = object.__hash__

    # -- devices ---------------------------------------------------------------------------
    def device_count(self) -> int:
        """How many devices of this target's kind are present (0 where none is usable)."""
        return 0

    def device_name(self, ordinal: int) -> str | None:
        """A descriptive name of device ``ordinal`` (None: the device string itself)."""
        return None

    # -- lowering --------------------------------------------------------------------------
    def emit_printf(self, ctx: LowerContext, fmt: ir.Value, args: Sequence[ir.Value]) -> None:
        """Emit a call printing C format ``fmt`` with ``args`` (already promoted as C varargs)."""
        raise NotImplementedError(f"printing from kernels is not supported on target '{self.name}'")

    def finish_module(self, module: ir.Module) -> None:  # noqa: B027 - optional hook
        """Last changes to a lowered module before it is compiled (legalizations)."""

    # -- code ------------------------------------------------------------------------------
    @abc.abstractmethod
    def fingerprint(self, device: Any) -> str:
        """Everything that makes code for ``device`` specific (triple, CPU/SM, toolchain versions)."""

    @abc.abstractmethod
    def define_entry(
        self, module: ir.Module, name: str, body: ir.Function, kernel_ir: wir.Function,
        options: CompileOptions, *, contiguous: bool, variant: EntryVariant | None = None,
    ) -> None:
        """Add the entry point ``name`` to the llvmlite ``module``: unpack the argument buffer
        (:func:`warp.compiler.abi.param_layout`) and call ``body(header, linear_index, *params)``
        for the entry's threads (or ``variant.fast`` where its guard holds, for targets with
        :attr:`entry_variants`)."""

    def define_vector_entry(
        self, module: ir.Module, name: str, body: ir.Function, kernel_ir: wir.Function,
        options: CompileOptions,
    ) -> None:
        """Add the vector entry ``name``: ``body`` (the contiguous body) for ``options.vector_width``
        consecutive linear thread indices per thread, in a 1-D launch over arrays whose data is
        :data:`~warp.compiler.abi.VECTOR_ALIGNMENT`-byte aligned. Only for targets with a
        :attr:`vector_width`."""
        raise NotImplementedError(f"target '{self.name}' has no vector entry")

    @abc.abstractmethod
    def compile(
        self, llvm_ir: str, *, name: str, options: CompileOptions, device: Any = None,
        store: CodeStore | None = None,
    ) -> bytes:
        """Verified, optimized loadable code for ``llvm_ir`` (CPU object code, PTX, ...).

        ``store`` may keep pieces reused between kernels and processes (CUDA: trimmed libdevice
        bitcode). Invalid IR raises :class:`warp.errors.WarpCodegenError` (never an LLVM abort).
        """

    @abc.abstractmethod
    def load(
        self, code: bytes, symbols: list[str], *, name: str, device: Any, store: CodeStore | None = None
    ) -> LoadedCode:
        """Load ``code`` on ``device`` resolving ``symbols``; failures raise ``WarpCodegenError``.

        ``store`` may keep what loading derives from ``code`` for later processes (CUDA: the
        cubin the driver makes from PTX), under keys of the target's own.
        """

    def load_many(
        self, items: Sequence[tuple[bytes, list[str], str]], *, device: Any, store: CodeStore | None = None
    ) -> list[LoadedCode]:
        """:meth:`load` each ``(code, symbols, name)`` of ``items`` (a module's cached kernels).

        Targets may load them together (the CPU links all objects into one JIT library); a
        failure of any raises, and the caller then loads them one by one.
        """
        return [
            self.load(code, symbols, name=name, device=device, store=store) for code, symbols, name in items
        ]

    @abc.abstractmethod
    def launch(
        self, device: Any, entry: Any, args: bytes, n: int, stream: Any = None, keep: Any = None
    ) -> None:
        """Run ``entry`` for linear thread indices ``0 <= i < n`` with the argument buffer ``args``.

        Returns once the work is finished (CPU) or enqueued on ``stream`` (GPU). While a capture is
        active on ``device`` the launch is recorded instead (see :meth:`capture_begin`), holding
        on to ``keep`` (the launch's argument objects) for as long as the recording lives.
        """

    def runner(self, device: Any, entry: Any) -> Callable[..., None]:
        """``run(args, n, stream=None, keep=None, shape=None)``: :meth:`launch` of ``entry`` on
        ``device``, bound; ``shape`` is ``(block_dim, max_blocks)`` for targets with blocks
        (:attr:`max_block_dim`), None for their default, and ignored by the others.

        The launcher calls this once per compiled kernel and entry; targets may return a function
        specialized for speed (the per-launch Python cost is part of ``wp.launch``'s overhead).
        """

        def run(args: bytes, n: int, stream: Any = None, keep: Any = None, shape: Any = None) -> None:
            self.launch(device, entry, args, n, stream, keep)

        return run

    def argument_buffer(self, device: Any, size: int) -> Any:
        """A reusable, writable buffer (a ctypes array) of ``size`` bytes that the launcher packs
        arguments into for :meth:`buffer_runner`, or None (the default): the target takes each
        launch's argument bytes through :meth:`runner`."""
        return None

    def buffer_runner(self, device: Any, entry: Any, buffer: Any) -> Callable[..., None]:
        """``run(n, stream=None, keep=None, shape=None)``: launch ``entry`` on ``device`` with the
        arguments packed in ``buffer`` (from :meth:`argument_buffer`), as :meth:`runner`'s ``run``.

        The launcher keeps one buffer per compiled kernel and thread, packs a launch into it and
        calls ``run`` at once on that thread; ``run`` must be done reading the buffer when it
        returns (CUDA: the driver copies the parameters in ``cuLaunchKernel``). Only targets whose
        :meth:`argument_buffer` returns a buffer are asked.
        """
        raise NotImplementedError(f"target '{self.name}' launches from argument bytes only (runner)")

    def new_error_record(self, device: Any) -> ErrorRecordBuffer:
        """A zeroed error record the kernel can write (host memory by default)."""
        return HostErrorRecord()

    def flush_output(self, device: Any) -> None:  # noqa: B027 - optional hook, nothing to do by default
        """Make kernel ``printf`` output visible (CPU: flush C stdio; GPU: synchronize)."""

    def synchronize(self, device: Any) -> None:  # noqa: B027 - synchronous targets have nothing to wait for
        """Wait for all work issued to ``device``."""

    # -- memory ----------------------------------------------------------------------------
    @abc.abstractmethod
    def allocate(self, device: Any, nbytes: int, *, zero: bool = False, pinned: bool = False) -> Allocation:
        """``nbytes`` of memory on ``device`` (zeroed when ``zero``), aligned for any element type."""

    @abc.abstractmethod
    def copy(
        self, dst: int, dst_device: Any, src: int, src_device: Any, nbytes: int, stream: Any = None,
        keep: Any = None,
    ) -> None:
        """Copy ``nbytes`` between any two devices this target can reach (one of them is its own).

        ``keep`` (for this and the other memory operations): objects owning the memory, retained by
        a capture that records the operation.
        """

    @abc.abstractmethod
    def memset(
        self, device: Any, ptr: int, value: int, nbytes: int, stream: Any = None, keep: Any = None
    ) -> None:
        """Set ``nbytes`` bytes at ``ptr`` to the byte ``value``."""

    @abc.abstractmethod
    def fill(
        self, device: Any, ptr: int, pattern: bytes, count: int, stream: Any = None, keep: Any = None
    ) -> None:
        """Write ``pattern`` ``count`` times, back to back, starting at ``ptr``."""

    def fill_strided(
        self, device: Any, ptr: int, pattern: bytes, shape: tuple[int, ...], strides: tuple[int, ...],
        stream: Any = None, keep: Any = None,
    ) -> bool:
        """Write ``pattern`` into each element of a strided layout (``shape``, byte ``strides``) at
        ``ptr`` with the target's own memory commands (recorded by a capture), returning True; or
        do nothing and return False where the target has no such way (the caller fills through
        host memory instead, which a capture cannot record)."""
        return False

    # -- graph capture ---------------------------------------------------------------------
    # ``wp.capture_begin/end/launch`` (warp.runtime.capture) call these; the commands object is the
    # target's own (the CPU's: a CommandList of host callables; CUDA: may wrap a CUgraph).
    def capture_begin(self, device: Any, stream: Any = None) -> None:
        """Start recording the work issued to ``device`` (and ``stream``) instead of running it."""
        raise RuntimeError(f"graph capture is not supported on device '{device}'")

    def capture_join(self, device: Any, stream: Any = None) -> None:
        """Take part in a capture begun outside Warp on ``stream`` (``capture_begin(external=True)``):
        Warp's work there is recorded into the other framework's graph; :meth:`capture_end`
        then leaves the capture running and returns None."""
        raise RuntimeError(f"external graph captures are not supported on device '{device}'")

    def capture_end(self, device: Any, stream: Any = None) -> Any:
        """Stop recording and return what was recorded (replayable with :meth:`capture_replay`)."""
        raise RuntimeError(f"graph capture is not supported on device '{device}'")

    def capture_pause(self, device: Any, stream: Any = None) -> Any:
        """Stop recording for now (``wp.capture_pause``): what was recorded, for :meth:`capture_resume`.

        By default the same as :meth:`capture_end` (targets whose recordings stay open for more).
        """
        return self.capture_end(device, stream)

    def capture_resume(self, device: Any, commands: Any, stream: Any = None) -> None:
        """Continue recording into ``commands`` (from :meth:`capture_pause`): ``wp.capture_resume``."""
        raise RuntimeError(f"graph capture is not supported on device '{device}'")

    def capture_replay(self, commands: Any, stream: Any = None) -> None:
        """Run recorded commands again, in order."""
        raise RuntimeError("graph capture is not supported on this device")

    def capture_host_callback(self, device: Any, fn: Callable[[], None], stream: Any = None) -> None:
        """Record a Python callable to run at this point of each replay (error checks, printing).

        Targets that cannot run host code inside a graph raise ``NotImplementedError``; the
        launcher then skips the debug-mode check of captured launches.
        """
        raise NotImplementedError(f"host callbacks in graphs are not supported on device '{device}'")

    def is_capturing(self, device: Any, stream: Any = None) -> bool:
        """Whether work issued to ``device`` (``stream``) by the calling thread is being recorded."""
        return False


class HostErrorRecord(ErrorRecordBuffer):
    """An error record in host memory."""

    def __init__(self) -> None:
        self._buf = ctypes.create_string_buffer(ERROR_RECORD_SIZE)
        self.address = ctypes.addressof(self._buf)

    def read(self) -> bytes:
        return self._buf.raw

    def reset(self) -> None:
        ctypes.memset(self.address, 0, len(self._buf))
