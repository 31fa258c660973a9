"""CUDA kernel launches: ``cuLaunchKernel`` on an argument buffer passed whole.

The packed arguments (:mod:`warp.compiler.abi`, the same bytes the CPU entry reads) go to the
driver through ``extra`` (``CU_LAUNCH_PARAM_BUFFER_POINTER``, buffer, ``CU_LAUNCH_PARAM_BUFFER_SIZE``,
size, ``CU_LAUNCH_PARAM_END``); the driver copies them when ``cuLaunchKernel`` is called, so a
buffer is reused by the next launch on the same thread. ``ceil(n / block_dim)`` blocks of
``block_dim`` threads (256 unless ``wp.launch`` says), at most ``max_blocks`` of them when that
is positive: a grid-stride loop in the entry covers any launch size.

:func:`buffer_runner` is the hot path: everything a launch needs but the arguments, the grid and
the stream is resolved once (the ``CUfunction``, the driver's ``cuLaunchKernel``, the address of
the ``extra`` array), so a launch costs a context check, a stream lookup and the driver call.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any, Callable

from warp.targets.cuda import context as ctx_module
from warp.targets.cuda import driver as drv
from warp.targets.cuda import streams as streams_module
from warp.targets.cuda.context import make_current
from warp.targets.cuda.streams import current_stream

#: threads per block of launches that do not say (``wp.launch(block_dim=256)``, as NVIDIA Warp)
BLOCK_DIM = 256
MAX_GRID = 2**31 - 1
_BUFFER_POINTER, _BUFFER_SIZE, _END = 1, 2, 0


def stream_handle(device: Any, stream: Any) -> Any:
    """The ``CUstream`` of ``stream`` (a ``wp.Stream`` of ``device``), or of the device's current stream."""
    if stream is None:
        return current_stream(device).handle
    if stream.device != device:
        raise RuntimeError(f"stream of device '{stream.device}' cannot run work for device '{device}'")
    return stream.handle


def argument_buffer(size: int) -> ctypes.Array:
    """A zeroed, writable buffer of ``size`` bytes for :func:`buffer_runner`."""
    return (ctypes.c_char * size)()


def buffer_runner(device: Any, entry: Any, buffer: ctypes.Array) -> Callable[..., None]:
    """``run(n, stream=None, keep=None, shape=None)``: launch ``entry`` (a ``CudaEntry``) over
    ``n`` threads with the arguments packed in ``buffer`` (all of it is passed).

    ``shape`` is ``(block_dim, max_blocks)``, validated by the launcher, or None for 256 threads
    per block and no cap. ``keep`` is unused: the driver has copied the arguments on return.
    """
    launch_kernel = drv.driver().cuLaunchKernel
    function = entry.function
    ordinal = device.ordinal
    local = ctx_module._local
    nbytes = ctypes.c_size_t(len(buffer))
    extra = (ctypes.c_void_p * 5)(
        _BUFFER_POINTER, ctypes.addressof(buffer), _BUFFER_SIZE, ctypes.addressof(nbytes), _END
    )
    extra_address = ctypes.addressof(extra)
    block = BLOCK_DIM

    held = (buffer, nbytes, extra)

    # (``_held``: the buffer and the arrays the driver reads, alive as long as the runner)
    def run(n: int, stream: Any = None, keep: Any = None, shape: Any = None, _held: Any = held) -> None:
        if n <= 0:
            return
        if getattr(local, "current", None) != ordinal:
            make_current(ordinal)
        if stream is None:
            current = streams_module._current.get(ordinal)
            handle = current.handle if current is not None else stream_handle(device, None)
        else:
            handle = stream_handle(device, stream)
        if shape is None:
            threads = block
            grid = (n + block - 1) // block
        else:
            threads, max_blocks = shape
            grid = (n + threads - 1) // threads
            if 0 < max_blocks < grid:
                grid = max_blocks  # the entry's grid-stride loop covers the rest
        if grid > MAX_GRID:
            grid = MAX_GRID
        err = launch_kernel(function, grid, 1, 1, threads, 1, 1, 0, handle, None, extra_address)[0]
        if err:
            drv.check((err,), f"cuLaunchKernel ({entry.symbol})")

    return run


def bytes_runner(device: Any, entry: Any) -> Callable[..., None]:
    """``run(args, n, stream=None, keep=None, shape=None)``: :func:`buffer_runner` for argument
    bytes, copied into a buffer kept per thread (and per size)."""
    state = threading.local()

    def run(args: bytes, n: int, stream: Any = None, keep: Any = None, shape: Any = None) -> None:
        if n <= 0:
            return
        runners = state.__dict__.setdefault("runners", {})
        size = len(args)
        found = runners.get(size)
        if found is None:
            buffer = argument_buffer(size)
            found = runners[size] = (buffer, buffer_runner(device, entry, buffer))
        buffer, launch = found
        ctypes.memmove(buffer, args, size)
        launch(n, stream, keep, shape)

    return run
