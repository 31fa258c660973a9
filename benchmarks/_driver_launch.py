"""A kernel's ``cuLaunchKernel`` call prepared once (the argument buffer packed, the ``extra``
array built, the function and stream resolved), for timing the driver call alone."""

from __future__ import annotations

import ctypes
from typing import Any, Callable

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
