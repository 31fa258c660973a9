"""The launch machinery behind ``wp.launch``: argument validation and packing per compiled kernel.

The hot path is a packer generated once per compiled kernel: it checks array arguments by
identity (type, dtype, ndim, device) and hands everything to one ``struct.pack``; the packed
buffer (layout: :mod:`warp.compiler.abi`) goes to the target's ``launch`` (the CPU target
runs it on the thread pool). Anything unusual (NumPy arrays, wrong types, wrong count) falls to a
slow path that converts what it can and otherwise raises an error naming the kernel and the
parameter.

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
import operator
import struct
import threading
from typing import Any, Sequence

import numpy as np

from warp import config
from warp.arrays import array as Array
from warp.arrays import as_array
from warp.arrays.descriptor import ArrayDescriptor
from warp.arrays.indexed import indexedarray
from warp.compiler.abi import HEADER_SIZE, VECTOR_ALIGNMENT, buffer_format, decode_error_record, params_format
from warp.kernels import Kernel
from warp.errors import LaunchTypeError, LaunchValueError, SourceLoc
from warp.plugins import manager as _plugins
from warp.runtime import devices
from warp.runtime.launch_plan import LaunchPlan, new_plan
from warp.types import bfloat16_bits
from warp.types.array_type import MAX_DIMS, ArrayType
from warp.types.scalars import bfloat16, is_scalar_type, type_repr
from warp.arrays.array import _array_type
from warp.plugins.manager import get_plugin_manager
from warp.types.scalars import dtype_to_numpy


class _SlowPath(Exception):
    pass


#: Largest extent of one launch dimension: thread coordinates are 32-bit signed integers (as Warp).
MAX_LAUNCH_DIM = 2**31 - 1
#: Largest number of threads of one launch (the linear thread index is a signed 64-bit integer).
MAX_LAUNCH_SIZE = 2**63 - 1
#: ``wp.launch``'s default ``block_dim`` (threads per CUDA block), as NVIDIA Warp
DEFAULT_BLOCK_DIM = 256


def launch_dims(dim: Any, kernel_name: str = "?") -> tuple[tuple[int, ...], int]:
    """Validate a launch ``dim`` (an int, or a sequence of 1 to 4 ints; NumPy integers accepted).

    Returns the dimensions padded to 4 with ones, and the number of threads. Raises ``TypeError``
    for non-integers and ``ValueError`` for negative or too large dimensions (each must fit a
    32-bit signed integer, as in NVIDIA Warp).
    """
    where = f"wp.launch of kernel '{kernel_name}'"
    expected = f"dim must be an int or a tuple of 1 to {MAX_DIMS} ints"
    if isinstance(dim, (str, bytes)):
        raise LaunchTypeError(f"{where}: {expected}, got {type(dim).__name__} {dim!r}")
    try:
        items: tuple[Any, ...] = (operator.index(dim),)
    except TypeError:
        try:
            items = tuple(dim)
        except TypeError:
            raise LaunchTypeError(f"{where}: {expected}, got {type(dim).__name__} {dim!r}") from None
    if not 1 <= len(items) <= MAX_DIMS:
        raise LaunchValueError(f"{where}: dim must have 1 to {MAX_DIMS} dimensions, got {dim!r}")
    dims = []
    for k, d in enumerate(items):
        try:
            value = operator.index(d)
        except TypeError:
            got = f"{type(d).__name__} {d!r}"
            raise LaunchTypeError(f"{where}: launch dimension {k} must be an int, got {got}") from None
        if value < 0:
            raise LaunchValueError(f"{where}: launch dimension {k} is negative ({value}) in dim={dim!r}")
        if value > MAX_LAUNCH_DIM:
            raise LaunchValueError(
                f"{where}: launch dimension {k} is {value}, more than the limit of 2**31 - 1 = "
                f"{MAX_LAUNCH_DIM} (thread indices are 32-bit signed integers); split the work over "
                "more dimensions"
            )
        dims.append(value)
    n = 1
    for value in dims:
        n *= value
    if n > MAX_LAUNCH_SIZE:
        raise LaunchValueError(f"{where}: dim={dim!r} has {n} threads, more than the limit of 2**63 - 1")
    return tuple(dims) + (1,) * (MAX_DIMS - len(dims)), n


def _exact_int_dim(dim: Any) -> bool:
    """True for an ``int`` or a tuple of ``int`` (not bool, float or NumPy integers)."""
    cls = dim.__class__
    return cls is int or (cls is tuple and all(d.__class__ is int for d in dim))


class Launcher:
    """Packs arguments of one compiled kernel part and has the device's target run it."""

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
        self.fast_pack, self.fast_pack_params = self._generate_packers()
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
        return new_plan(self.target, self.device, (contiguous, self.entry_strided), self.packer.size,
                        self.vector_width)

    def _generate_packers(self) -> tuple[Any, Any]:
        """Build ``pack(args, dims, err, res=0) -> (bytes, contiguous)`` and
        ``pack_params(buffer, args, dims) -> contiguous`` (the parameters after the buffer's header),
        specialized to the signature."""
        n = len(self.types)
        unpack = f"    {''.join(f'a{i}, ' for i in range(n))}= args" if n else "    if args: raise Slow"
        lines = [unpack]
        env: dict[str, Any] = {
            "Array": Array, "Desc": ArrayDescriptor, "Slow": _SlowPath, "struct_pack": self.packer.pack,
            "pack_into": self.params_packer.pack_into, "dev": self.device,
        }
        fields, arrays = [], []
        for i, t in enumerate(self.types):
            if isinstance(t, ArrayType):
                env[f"T{i}"] = _array_type(t.dtype, t.ndim)
                # wp.array or a launch-only descriptor (from_torch(..., return_ctype=True)) of the right type
                lines.append(
                    f"    if (type(a{i}) is not Array and type(a{i}) is not Desc)"
                    f" or a{i}._array_type is not T{i} or a{i}._device is not dev: raise Slow"
                )
                fields.append(f"a{i}._desc")
                arrays.append(f"a{i}._is_contiguous")
            elif is_scalar_type(t):
                fields.append(f"a{i}")
            else:
                env[f"C{i}"] = getattr(t, "_wp_pack_", None)
                if env[f"C{i}"] is None:
                    raise LaunchTypeError(
                        f"kernel '{self.kernel.name}': parameter type {type_repr(t)} cannot be launched"
                    )
                fields.append(f"*C{i}(a{i})")
                if getattr(t, "_wp_all_contiguous_", None) is not None:
                    env[f"K{i}"] = t._wp_all_contiguous_
                    arrays.append(f"K{i}(a{i})")
        contiguous = " and ".join(arrays) or "True"
        if self.vector_width > 1:  # the vector entry's conditions (see the module docstring)
            # (a None pointer, of an empty array, raises TypeError here: the slow path decides)
            pointers = [f"a{i}._ptr" for i, t in enumerate(self.types) if isinstance(t, ArrayType)]
            aligned = f" and not ({' | '.join(pointers)}) & {VECTOR_ALIGNMENT - 1}" if pointers else ""
            contiguous = f"{contiguous}{aligned} and dims[1] == dims[2] == dims[3] == 1"
        packed = "".join(f + ", " for f in fields)
        source = [
            "def pack(args, dims, err, res=0):", *lines,
            f"    return struct_pack(*dims, err, res, {packed}), {contiguous}",
            "def pack_params(buffer, args, dims):", *lines,
            f"    pack_into(buffer, {HEADER_SIZE}, {packed})",
            f"    return {contiguous}",
        ]
        exec("\n".join(source), env)  # noqa: S102 - generated from the kernel signature only
        return env["pack"], env["pack_params"]

    def _block_limit(self) -> int | None:
        limit = getattr(self.target, "max_block_dim", None)
        options = getattr(self.part, "options", None)
        bounds = getattr(options, "launch_bounds", None)
        if limit is None or bounds is None:
            return limit
        return min(limit, bounds[0])

    def launch_shape(self, block_dim: Any, max_blocks: Any) -> Any:
        """The runner's ``shape`` for ``wp.launch(block_dim=..., max_blocks=...)``, validated.

        ``block_dim`` <= 0 or 256 (the default) means 256, or the kernel's ``launch_bounds`` if
        lower; a larger ``block_dim`` than the device or the bounds allow is an error.
        ``max_blocks`` <= 0 means no cap on the grid. None on targets without blocks.
        """
        exact = block_dim.__class__ is int and max_blocks.__class__ is int
        if exact:
            hit = self._shapes.get((block_dim, max_blocks))
            if hit is not None:
                return hit
        if self.block_limit is None:
            return None
        where = f"wp.launch of kernel '{self.kernel.name}'"
        values = []
        for name, value in (("block_dim", block_dim), ("max_blocks", max_blocks)):
            if isinstance(value, bool):
                raise LaunchTypeError(f"{where}: {name} must be an int, got {value!r}")
            try:
                values.append(operator.index(value))
            except TypeError:
                got = f"{type(value).__name__} {value!r}"
                raise LaunchTypeError(f"{where}: {name} must be an int, got {got}") from None
        threads, blocks = values
        if threads <= 0 or threads == DEFAULT_BLOCK_DIM:
            threads = min(DEFAULT_BLOCK_DIM, self.block_limit)
        elif threads > self.block_limit:
            limit = getattr(self.target, "max_block_dim", None)
            if limit is not None and threads > limit:
                why = f"blocks on device '{self.device}' have at most {limit} threads"
            else:
                why = (f"the kernel's launch_bounds allow at most {self.block_limit} threads per block "
                       f"(@wp.kernel(launch_bounds={self.kernel.launch_bounds!r}))")
            if getattr(self.device, "is_cuda", False):
                # NVIDIA Warp's wording for the launch the driver refuses (CUDA_ERROR_INVALID_VALUE)
                where = f"Error launching kernel: {where} on device '{self.device}'"
                why += " (the CUDA driver refuses such a launch: Warp CUDA error 1, invalid argument)"
            raise LaunchValueError(f"{where}: block_dim={threads} is too large: {why}")
        shape = (threads, max(blocks, 0))
        if exact and len(self._shapes) < 64:
            self._shapes[(block_dim, max_blocks)] = shape
        return shape

    def header(self, dim: Any) -> tuple[tuple[int, ...], int]:
        """Validated launch dimensions, memoized for dims that are exactly ints or tuples of ints.

        Only those are looked up in the memo (:meth:`launch`): ``10.0 == 10`` and ``(2, 3.0) ==
        (2, 3)`` as dict keys, and a float dim must be rejected however often 10 was launched.
        """
        hit = launch_dims(dim, self.kernel.name)
        if len(self._headers) < 64 and _exact_int_dim(dim):
            self._headers[dim] = hit
        return hit

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

    def launch_instrumented(
        self, args: Sequence[Any], dims: tuple[int, ...], n: int, stream: Any = None, scratch: int = 0,
        shape: Any = None,
    ) -> None:
        """Launch with an error record (debug mode) and/or output flushing (kernels that print)."""
        target, device = self.target, self.device
        if self.debug:
            _plugins.get_plugin_manager().hook.warp_check_launch(kernel=self.kernel, args=args, device=device)
        record = target.new_error_record(device) if self.debug else None
        buf, contiguous = self.pack_checked(args, dims, record.address if record is not None else 0, scratch)
        if n == 0:
            return
        capturing = target.is_capturing(device, stream)

        def at_replay(fn: Any) -> None:
            try:
                target.capture_host_callback(device, fn, stream)
            except NotImplementedError:  # the target's graphs cannot call Python
                pass

        if self.uses_print:
            target.flush_output(device)
            if capturing:
                at_replay(lambda: target.flush_output(device))
        (self.run_contiguous if contiguous else self.run_strided)(buf, n, stream, (args, record), shape)
        if self.uses_print:
            if capturing:
                at_replay(lambda: target.flush_output(device))
            else:
                target.flush_output(device)
        if record is None:
            return
        if capturing:  # each replay checks (and clears) the record after this launch
            at_replay(lambda: self.check_error_record(record))
            return
        target.synchronize(device)
        self.check_error_record(record)

    def check_error_record(self, record: Any) -> None:
        """Raise the ``IndexError`` (out-of-bounds access) or ``AssertionError`` (failed
        ``assert``) a debug launch recorded, if any (and clear the record)."""
        error = decode_error_record(record.read())
        if error is not None:
            record.reset()
            sites = self.part.sites
            info = sites[error.site] if 0 <= error.site < len(sites) else {}
            if info.get("kind") == "assert":
                raise self.assertion_error(info)
            raise self.index_error(error)

    # -- slow path: conversions and precise errors ------------------------------------------
    def pack_checked(
        self, args: Sequence[Any], dims: tuple[int, ...], err: int, res: int = 0
    ) -> tuple[bytes, bool]:
        """Validate and convert every argument, then pack (errors name the parameter)."""
        fields, contiguous = self.checked_fields(args, dims)
        return self.packer.pack(*dims, err, res, *fields), contiguous

    def pack_checked_params(self, buffer: Any, args: Sequence[Any], dims: tuple[int, ...]) -> bool:
        """:meth:`pack_checked`'s parameters into ``buffer`` after its header; returns whether
        the launch is "contiguous" (as :meth:`pack_checked` says)."""
        fields, contiguous = self.checked_fields(args, dims)
        self.params_packer.pack_into(buffer, HEADER_SIZE, *fields)
        return contiguous

    def checked_fields(self, args: Sequence[Any], dims: tuple[int, ...]) -> tuple[list[Any], bool]:
        """The buffer fields of ``args`` after validation and conversion, and whether the launch
        over ``dims`` is "contiguous" (all arrays are; with a vector entry, also what it needs)."""
        values = self.convert(args)
        fields: list[Any] = []
        contiguous = True
        for t, v in zip(self.types, values, strict=True):
            if isinstance(t, ArrayType):
                fields.append(v._desc)
                contiguous = contiguous and v._is_contiguous
            elif is_scalar_type(t):
                fields.append(v)
            else:
                fields.extend(t._wp_pack_(v))
                check = getattr(t, "_wp_all_contiguous_", None)
                contiguous = contiguous and (check is None or check(v))
        if self.vector_width > 1 and contiguous:
            contiguous = _vector_launch(self.types, values, dims)
        return fields, contiguous

    def convert(self, args: Sequence[Any]) -> list[Any]:
        kname = self.kernel.name
        if len(args) != len(self.types):
            missing = self.names[len(args):]
            detail = f"; missing: {', '.join(missing)}" if missing else ""
            raise LaunchTypeError(
                f"Error launching kernel '{kname}', passed {len(args)} arguments but kernel requires "
                f"{len(self.types)} ({', '.join(self.names)}){detail}"
            )
        return [self.convert_one(name, t, a) for name, t, a in zip(self.names, self.types, args, strict=True)]

    def convert_one(self, name: str, t: Any, value: Any) -> Any:
        where = f"kernel '{self.kernel.name}', argument '{name}'"
        if isinstance(t, ArrayType):
            if value is None:
                return null_array(t, self.device)
            if not isinstance(value, Array):
                value = self.foreign_array(where, name, t, value)
            if value.dtype != t.dtype:
                raise LaunchTypeError(
                    f"{where}: expected an array of {type_repr(t.dtype)}, "
                    f"got an array of {type_repr(value.dtype)}"
                )
            if value.ndim != t.ndim:
                raise LaunchTypeError(f"{where}: expected a {t.ndim}-d array, got a {value.ndim}-d array")
            if value.device is not self.device:
                raise LaunchValueError(
                    f"{where}: array is on device '{value.device}' but the launch is on '{self.device}'"
                )
            return value
        if is_scalar_type(t):
            return _scalar_arg(where, t, value)
        if value is None and getattr(t, "_shape_", None):
            raise LaunchValueError(
                f"{where}: Failed to convert argument for param {name} to {type_repr(t)} (None)"
            )
        check = getattr(t, "_wp_check_arg_", None)
        return check(where, value) if check is not None else value

    def foreign_array(self, where: str, name: str, t: ArrayType, value: Any) -> Any:
        """Wrap a NumPy / array-interface object zero-copy; never convert its dtype silently."""
        import numpy as np

        if isinstance(value, indexedarray):  # its NumPy form is a gathered copy: writes would be lost
            raise LaunchTypeError(
                f"{where}: indexed arrays (wp.indexedarray, a[index_array]) cannot be kernel arguments here; "
                "pass the data array and its index arrays and read data[idx[i]] in the kernel, or pass "
                ".contiguous() (a gathered copy) for reading"
            )
        converted = get_plugin_manager().hook.warp_convert_array(obj=value, dtype=t.dtype, device=self.device)
        if converted is not None:
            return self.convert_one(name, t, converted)
        try:
            host = np.asarray(value)
        except Exception as exc:
            raise LaunchTypeError(f"{where}: expected {t}, got {type(value).__name__} ({exc})") from None
        expected = dtype_to_numpy(t.dtype)
        if host.dtype != expected:
            raise LaunchTypeError(
                f"{where}: expected an array of {type_repr(t.dtype)}, got a {type(value).__name__} of dtype "
                f"{host.dtype} (convert it explicitly; a converted copy would not see the kernel's writes)"
            )
        try:
            return as_array(value, dtype=t.dtype)
        except Exception as exc:
            raise LaunchTypeError(f"{where}: expected {t}, got {type(value).__name__} ({exc})") from None

    def assertion_error(self, info: dict[str, Any]) -> AssertionError:
        """The ``AssertionError`` of a failed ``assert`` whose site is ``info``."""
        loc = SourceLoc(info.get("file", "?"), info.get("line", 0), info.get("text", ""))
        message = info.get("message", "")
        return AssertionError(
            f"Assertion failed in kernel '{self.kernel.name}' (function '{info.get('function', '?')}') "
            f"at {loc}: {loc.text}" + (f": {message}" if message else "")
        )

    def index_error(self, error: Any) -> IndexError:
        """The ``IndexError`` describing a decoded error record (:class:`warp.compiler.abi.ErrorRecord`)."""
        sites = self.part.sites
        info = sites[error.site] if 0 <= error.site < len(sites) else {}
        loc = SourceLoc(info.get("file", "?"), info.get("line", 0), info.get("text", ""))
        idx = ", ".join(map(str, error.index))
        return IndexError(
            f"array index out of bounds in kernel '{self.kernel.name}' "
            f"(function '{info.get('function', '?')}') "
            f"at {loc}: index ({idx}) is out of range for array '{info.get('array', '?')}' with shape "
            f"{tuple(error.shape)}\n    {loc.text}"
        )


def _vector_runner(run: Any, width: int) -> Any:
    """The runner of a vector entry: a grid for ``ceil(n / width)`` threads (the entry reads the
    launch size from the header)."""

    def run_vector(args: bytes, n: int, stream: Any = None, keep: Any = None, shape: Any = None) -> None:
        run(args, (n + width - 1) // width, stream, keep, shape)

    return run_vector


def _vector_launch(types: Sequence[Any], values: Sequence[Any], dims: Sequence[int]) -> bool:
    """Whether a launch over contiguous arrays may run the vector entry: 1-D, array data aligned."""
    if dims[1] != 1 or dims[2] != 1 or dims[3] != 1:
        return False
    return all(
        not (getattr(v, "_ptr", 0) or 0) % VECTOR_ALIGNMENT
        for t, v in zip(types, values, strict=True)
        if isinstance(t, ArrayType)
    )


def null_array(t: ArrayType, device: Any) -> Any:
    """A stand-in for ``None`` passed as an array: null data pointer, zero shape."""
    null = Array.__new__(Array)
    null._init_annotation(t.dtype, t.ndim)
    null._array_type = _array_type(t.dtype, t.ndim)
    null._device = device
    null._desc = bytes(64)
    return null


def _scalar_arg(where: str, t: Any, value: Any) -> Any:
    kind = t._kind_
    raw = getattr(value, "value", value)
    if kind == "float":
        if isinstance(raw, (str, bytes)) or not hasattr(raw, "__float__"):
            raise LaunchTypeError(f"{where}: expected {type_repr(t)}, got {type(value).__name__}")
        if t is bfloat16:  # passed as its 16-bit pattern
            return int(bfloat16_bits.to_bits(np.float64(float(raw))))
        return t(raw).value if t._bits_ < 64 else float(raw)  # beyond the type's range: inf, as Warp
    if kind == "bool":
        return bool(raw)
    if isinstance(raw, float) or not hasattr(raw, "__index__"):
        raise LaunchTypeError(f"{where}: expected {type_repr(t)}, got {type(value).__name__} {value!r}")
    v = int(raw.__index__())
    lo, hi = (0, 2**t._bits_ - 1) if kind == "uint" else (-(2 ** (t._bits_ - 1)), 2 ** (t._bits_ - 1) - 1)
    if not lo <= v <= hi:
        raise LaunchValueError(f"{where}: value {v} is out of range for {type_repr(t)}")
    return v


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
