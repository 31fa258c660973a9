"""A kernel's ``cuLaunchKernel`` call prepared once (the argument buffer packed, the ``extra``
array built, the function and stream resolved), for timing the driver call alone."""

from __future__ import annotations

import ctypes
import time
from typing import Any, Callable

import warp as wp

from warp.runtime.launcher import get_launcher
from warp.targets.cuda import driver as drv
from warp.targets.cuda.launching import stream_handle


class PreparedLaunch:
    """One-thread launches of ``kernel`` with ``args`` on ``device``'s current stream, issued
    straight to the driver: :attr:`bindings` through cuda-bindings, :meth:`ctypes_call` through
    ctypes with prebuilt arguments."""

    def __init__(self, kernel: Any, args: list[Any], device: Any) -> None:
        launcher = get_launcher(kernel, device)
        data = launcher.pack_checked(args, (1, 1, 1, 1), 0)[0]
        self._buffer = ctypes.create_string_buffer(data, len(data))
        self._nbytes = ctypes.c_size_t(len(data))
        self._extra = (ctypes.c_void_p * 5)(
            1, ctypes.addressof(self._buffer), 2, ctypes.addressof(self._nbytes), 0
        )
        self.function = launcher.entry_strided.function
        self.stream = stream_handle(device, None)
        self.extra_address = ctypes.addressof(self._extra)
        #: address of the packed argument buffer (for ``kernelParams``: the entry's one parameter)
        self.buffer_address = ctypes.addressof(self._buffer)
        self._launch = drv.driver().cuLaunchKernel

    def bindings(self) -> Any:
        """One launch through cuda-bindings (its result tuple)."""
        return self._launch(self.function, 1, 1, 1, 256, 1, 1, 0, self.stream, None, self.extra_address)

    def ctypes_call(self) -> Callable[[], int]:
        """A function issuing one launch through ctypes (libcuda's ``cuLaunchKernel``)."""
        raw = ctypes.CFUNCTYPE(ctypes.c_int)(("cuLaunchKernel", ctypes.CDLL("libcuda.so.1")))
        f, s = ctypes.c_void_p(int(self.function)), ctypes.c_void_p(int(self.stream))
        e = ctypes.c_void_p(self.extra_address)
        return lambda: raw(f, 1, 1, 1, 256, 1, 1, 0, s, None, e)


@wp.kernel
def empty_kernel(a: wp.array(dtype=float), b: float):
    wp.tid()


def burst_us(fn: Callable[[], object], burst: int, repeats: int) -> float:
    """Best host time per call over ``repeats`` bursts of ``burst`` calls, each on an idle stream."""
    best = float("inf")
    for _ in range(repeats):
        wp.synchronize()
        t0 = time.perf_counter()
        for _ in range(burst):
            fn()
        best = min(best, (time.perf_counter() - t0) / burst)
    wp.synchronize()
    return best * 1e6


def prepare_empty_launch(device: str) -> tuple[Any, Any, PreparedLaunch] | None:
    """``(device, argument array, prepared launch)`` of ``empty_kernel`` on ``device``, loaded and
    launched once; None (after saying so) without a CUDA device."""
    if not wp.is_cuda_available():
        print("no CUDA device: skipped")
        return None
    dev = wp.get_device(device)
    a = wp.zeros(1, dtype=float, device=dev)
    wp.launch(empty_kernel, dim=1, inputs=[a, 1.0], device=dev)
    wp.synchronize()
    return dev, a, PreparedLaunch(empty_kernel, [a, 1.0], dev)
