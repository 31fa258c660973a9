"""The launch machinery behind ``wp.launch``: argument validation and packing per compiled kernel.

The hot path is a packer generated once per compiled kernel: it checks array arguments by
identity (type, dtype, ndim, device) and hands everything to one ``struct.pack``; the packed
buffer (layout: :mod:`warp.compiler.abi`) goes to the target's ``launch`` (the CPU target
runs it on the thread pool). Anything unusual (NumPy arrays, wrong types, wrong count) falls to a
slow path that converts what it can and otherwise raises an error naming the kernel and the
parameter.

The pieces have modules of their own: :mod:`warp.runtime.launch_packers` generates the packers,
:mod:`warp.runtime.launch_args` is the slow path, :mod:`warp.runtime.launch_grid` checks ``dim``
and block shapes, :mod:`warp.runtime.launch_debug` runs debug launches and kernels that print;
:class:`Launcher` holds the hot path (:meth:`Launcher.launch`) and takes the rest as mixins.

:class:`Launcher` is per compiled kernel part and device; :func:`get_launcher` finds or builds
it (generic kernels pick their instance there). ``wp.launch`` (:mod:`warp.runtime.launch`) and
``wp.Launch`` (:mod:`warp.runtime.recorded_launch`) both run kernels through it.

Kernels with a vector entry (CUDA, :mod:`warp.compiler.lowering.vector_entry`) run it where the
launch allows: one-dimensional, every array contiguous and its data aligned to
:data:`~warp.compiler.abi.VECTOR_ALIGNMENT` bytes (the packer's "contiguous" answer then means
all of that), with a grid for ``n / vector_width`` threads; other launches take the strided entry.
"""

from __future__ import annotations

import ctypes
import struct
import threading
from typing import Any, Sequence

from warp import config
from warp.compiler.abi import buffer_format, params_format
from warp.kernels import Kernel
from warp.errors import LaunchTypeError
from warp.runtime import devices
from warp.runtime.launch_args import null_array  # noqa: F401  (re-exported: the name's old home)
from warp.runtime.launch_debug import InstrumentedLaunches
from warp.runtime.launch_grid import (  # noqa: F401  (MAX_LAUNCH_*, launch_dims re-exported: their old home)
    DEFAULT_BLOCK_DIM,
    MAX_LAUNCH_DIM,
    MAX_LAUNCH_SIZE,
    LaunchShapes,
    _exact_int_dim,
    launch_dims,
)
from warp.runtime.launch_packers import _SlowPath, generate_packers
from warp.runtime.launch_plan import LaunchPlan, new_plan


class Launcher(LaunchShapes, InstrumentedLaunches):
    """Packs arguments of one compiled kernel part and has the device's target run it.

    The hot path (:meth:`launch`) is here; the mixins hold the rest: launch dims and block shapes
    (:class:`~warp.runtime.launch_grid.LaunchShapes`), instrumented launches and their errors
    (:class:`~warp.runtime.launch_debug.InstrumentedLaunches`) and the slow path's checked
    arguments (:class:`~warp.runtime.launch_args.ArgumentChecks`).
    """

    def __init__(self, compiled: Any, *, adjoint: bool = False):
        self.compiled = compiled
        self.kernel = compiled.kernel
        names, types = list(self.kernel.arg_names), list(self.kernel.arg_types)
        if adjoint:
            names += [f"adj_{n}" for n in names]
            types += types
        self.part = compiled.adjoint() if adjoint else compiled.forward
        self.entry_contiguous, self.entry_strided = self.part.entry_contiguous, self.part.entry_strided
        self.debug, self.uses_print = compiled.debug, self.part.uses_print
        self.instrumented = self.debug or self.uses_print
        self.names, self.types = names, types
        self.packer = struct.Struct(buffer_format(types))
        #: the parameters alone, after the header (launches packing into a plan's buffer)
        self.params_packer = struct.Struct(params_format(types))
        self.mode = config.mode
        self.device = compiled.device
        self.target = compiled.target
        self.run_contiguous = self.target.runner(self.device, self.entry_contiguous)
        self.run_strided = self.target.runner(self.device, self.entry_strided)
        #: thread indices per thread of the part's vector entry (0: none); where there is one, it
        #: replaces the contiguous entry, and "contiguous" launches are those it can run
        self.vector_width = getattr(self.part, "vector_width", 0) or 0
        if self.vector_width > 1:
            self.run_contiguous = _vector_runner(
                self.target.runner(self.device, self.part.entry_vector), self.vector_width
            )
        self.fast_pack, self.fast_pack_params = generate_packers(
            self.kernel.name, self.types, self.device, self.packer, self.params_packer, self.vector_width
        )
        self._headers: dict[Any, tuple[tuple[int, ...], int]] = {}
        #: most threads per block (the target's limit, lowered by the kernel's launch_bounds), or
        #: None where the target has no blocks (the CPU ignores block_dim and max_blocks)
        self.block_limit = self._block_limit()
        #: the runner's ``shape`` for launches with the default block_dim (256) and no max_blocks
        limit = self.block_limit
        self.default_shape = None if limit is None or limit >= DEFAULT_BLOCK_DIM else (limit, 0)
        self._shapes: dict[tuple[int, int], Any] = {}
        #: per-launch scratch memory the part needs (adjoints storing loop iterations), or None
        self.scratch = getattr(self.part, "scratch", None)
        self._scratch: Any = None
        self._scratch_lock = threading.Lock()
        #: per thread: the :class:`LaunchPlan` where the target launches from a reused argument
        #: buffer (:meth:`warp.targets.base.Target.argument_buffer`)
        self._plans = threading.local()
        #: whether launches pack straight into a plan's buffer (else into bytes for ``run_*``):
        #: where the target launches from one, for launches with no scratch memory, error record
        #: or printing
        self.in_place = self._new_plan() is not None and self.scratch is None and not self.instrumented

    def _new_plan(self) -> LaunchPlan | None:
        """This thread's launch plan (None: the target takes argument bytes), made once per thread."""
        plan = self._plans.plan = self.make_plan()
        return plan

    def make_plan(self) -> LaunchPlan | None:
        """A new launch plan with its own argument buffer (None: the target takes argument bytes)."""
        contiguous = self.part.entry_vector if self.vector_width > 1 else self.entry_contiguous
        return new_plan(
            self.target, self.device, (contiguous, self.entry_strided), self.packer.size, self.vector_width
        )

    def launch(self, args: Sequence[Any], dim: Any, stream: Any = None, blocks: Any = None) -> None:
        """Pack ``args`` and run the kernel over ``dim`` (the hot path of ``wp.launch``).

        ``blocks``: ``(block_dim, max_blocks)`` as given to ``wp.launch``, or None for the defaults.
        """
        hit = self._headers.get(dim) if dim.__class__ is int or _exact_int_dim(dim) else None
        dims, n = hit if hit is not None else self.header(dim)
        shape = self.default_shape if blocks is None else self.launch_shape(*blocks)
        if self.in_place:
            try:
                plan = self._plans.plan
            except AttributeError:  # this thread's first launch
                plan = self._new_plan()
            if plan.dims is not dims:
                plan.write_header(dims)
            try:
                contiguous = self.fast_pack_params(plan.buffer, args, dims)
            except (_SlowPath, TypeError, ValueError, AttributeError, OverflowError, struct.error):
                contiguous = self.pack_checked_params(plan.buffer, args, dims)
            (plan.run_contiguous if contiguous else plan.run_strided)(n, stream, args, shape)
            return
        if self.scratch is not None:
            self.launch_with_scratch(args, dims, n, stream, shape)
            return
        if self.instrumented:
            self.launch_instrumented(args, dims, n, stream, shape=shape)
            return
        try:
            buf, contiguous = self.fast_pack(args, dims, 0)
        except (_SlowPath, TypeError, ValueError, AttributeError, OverflowError, struct.error):
            buf, contiguous = self.pack_checked(args, dims, 0)
        (self.run_contiguous if contiguous else self.run_strided)(buf, n, stream, args, shape)

    def launch_with_scratch(
        self, args: Sequence[Any], dims: tuple[int, ...], n: int, stream: Any = None, shape: Any = None
    ) -> None:
        """Launch a part that needs per-launch scratch memory (its address goes in the header)."""
        with self._scratch_lock:
            scratch = self._scratch_memory(n)
            if self.instrumented:
                self.launch_instrumented(args, dims, n, stream, scratch.ptr, shape)
                return
            try:
                buf, contiguous = self.fast_pack(args, dims, 0, scratch.ptr)
            except (_SlowPath, TypeError, ValueError, AttributeError, OverflowError, struct.error):
                buf, contiguous = self.pack_checked(args, dims, 0, scratch.ptr)
            (self.run_contiguous if contiguous else self.run_strided)(buf, n, stream, (args, scratch), shape)

    def _scratch_memory(self, n: int) -> Any:
        """The scratch buffer for a launch of ``n`` threads (kept, reused, grown when needed):
        ``config.adjoint_loop_memory`` bytes, or the part's minimum if larger, after a 64-byte
        header holding that size (see ``warp_autodiff.loop_memory``)."""
        assert self.scratch is not None  # only parts that need scratch memory get here
        data = max(int(config.adjoint_loop_memory), n * int(self.scratch.get("min_bytes_per_thread", 0)))
        if self._scratch is None or self._scratch.nbytes < data + 64:
            self._scratch = self.target.allocate(self.device, data + 64)
        size = ctypes.c_int64(data)
        cpu = devices.get_device("cpu")
        self.target.copy(self._scratch.ptr, self.device, ctypes.addressof(size), cpu, 8)
        return self._scratch


def _vector_runner(run: Any, width: int) -> Any:
    """The runner of a vector entry: a grid for ``ceil(n / width)`` threads (the entry reads the
    launch size from the header)."""

    def run_vector(args: bytes, n: int, stream: Any = None, keep: Any = None, shape: Any = None) -> None:
        run(args, (n + width - 1) // width, stream, keep, shape)

    return run_vector


def get_launcher(kernel: Any, device: Any, adjoint: bool = False, args: Sequence[Any] = ()) -> Launcher:
    """Find or build the (forward or adjoint) launcher of ``kernel`` for ``device`` and the current mode.

    A generic kernel is first replaced by its instance for the argument types of ``args``.
    """
    if not isinstance(kernel, Kernel):
        raise LaunchTypeError(f"wp.launch expects a @wp.kernel, got {type(kernel).__name__}")
    if kernel.is_generic:
        kernel = kernel.specialize(args)
    dev = devices.get_device(device)
    base = device if device.__class__ is str or device is None else dev.alias
    key = ("adjoint", base) if adjoint else base
    launcher = kernel._launchers.get(key)
    if launcher is None or launcher.mode is not config.mode or launcher.device is not dev:
        launcher = Launcher(kernel.compiled(dev), adjoint=adjoint)
        kernel._launchers[key] = launcher
    return launcher


#: The old private name (tests and plugins call it).
_get_launcher = get_launcher
