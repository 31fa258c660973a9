"""Where an FFI call runs: the warp device and stream of XLA's call, and per-device helpers.

On JAX's CPU platform a target works on host buffers with ``device="cpu"``. On its CUDA platform
XLA hands over device buffers, the CUDA stream of the computation and the device ordinal; the
target then launches on that device *on XLA's stream* (a warp :class:`~warp.Stream` wrapping
the handle, made current for the call), so the work is ordered with XLA's and nothing goes
through the host.
"""

from __future__ import annotations

import ctypes
import threading
from contextlib import contextmanager
from typing import Any, Iterator

import warp
from warp.extending import get_device

from warp_interop.jax_experimental.xla_ffi import ExecutionContext

_lock = threading.Lock()
#: (device ordinal, stream handle) -> warp Stream wrapping XLA's stream (not owned)
_streams: dict[tuple[int, int], Any] = {}


def _wrapped_stream(device: Any, handle: int) -> Any:
    key = (device.ordinal, handle)
    with _lock:
        stream = _streams.get(key)
        if stream is None:
            stream = _streams[key] = warp.Stream(device, cuda_stream=handle)
        return stream


@contextmanager
def call_device(ctx: ExecutionContext) -> Iterator[Any]:
    """The warp device of a call, made the default device for it (``cpu``, or ``cuda:<ordinal>``
    with XLA's stream current, so launches without ``device``/``stream`` arguments go there)."""
    if ctx.stream is None:
        with warp.ScopedDevice("cpu"):
            yield get_device("cpu")
        return
    device = get_device(f"cuda:{ctx.device_ordinal}")
    with warp.ScopedDevice(device), warp.ScopedStream(_wrapped_stream(device, ctx.stream), sync_enter=False):
        yield device


def zero_memory(ptr: int, nbytes: int, device: Any) -> None:
    """Zero ``nbytes`` at ``ptr`` on ``device`` (on a CUDA device: a memset on the current stream)."""
    if not nbytes:
        return
    if device.is_cpu:
        ctypes.memset(ptr, 0, nbytes)
    else:
        warp.array(ptr=ptr, dtype=warp.uint8, shape=(nbytes,), device=device, copy=False).zero_()


def alias(ptr: int, shape: tuple[int, ...], dtype: Any, device: Any) -> Any:
    """A warp array over memory XLA owns (no copy, never freed by warp)."""
    return warp.array(ptr=ptr, dtype=dtype, shape=shape, device=device, copy=False)
