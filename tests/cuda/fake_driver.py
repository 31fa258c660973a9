"""A stand-in for ``cuda.bindings.driver`` whose "devices" are the host CPU.

It lets the CUDA runtime's Python code run without a GPU: the same calls, argument types
(cuda-python's own handle types and enums) and ``(CUresult, value)`` results. Device memory is
a range of address space the host cannot touch (:mod:`fake_memory`: mapped ``PROT_NONE`` except
while the fake runs its own copies, memsets and launches), so host code that reads or writes a
device address faults, and a launch whose array arguments point at pageable host memory fails
an assertion naming the kernel and the argument. Copies are ``memmove``; streams run their work
at once, or record it while a stream capture is active (replayed by ``cuGraphLaunch``; a
capture can be paused and resumed into the same graph, ``cuStreamBeginCaptureToGraph``
checking that the new work follows the graph's last node). ``cuModuleLoadDataEx`` checks the
PTX names its entries; the JIT linker (``cuLinkCreate``/``cuLinkAddData``/``cuLinkComplete``)
makes a checksummed stand-in cubin for the GPU's compute capability and driver version, which
``cuModuleLoadData`` refuses when damaged or made for another GPU or a newer driver;
``cuLaunchKernel`` reads the argument buffer the runtime passed through
``CU_LAUNCH_PARAM_BUFFER_POINTER`` and runs the kernel's CPU build of the same entry (same
argument layout) over all threads, so results are real (whatever the grid and block sizes: the
CUDA entry's own thread mapping is checked separately, by ``grid_emulator``).

What it cannot check: that a ``uint64`` id passed to a kernel points at device memory (only
array arguments are checked), that the PTX runs on a GPU, real asynchrony, and driver-specific
limits.

The driver's areas live in mixins, one module each, over :class:`fake_driver_base.FakeDriverBase`
(the state they share, declared once): devices and contexts (:mod:`fake_driver_devices`), memory
(:mod:`fake_driver_memory`), streams and events (:mod:`fake_driver_streams`), capture and graphs
(:mod:`fake_driver_graphs`), modules, linking and launches (:mod:`fake_driver_modules`) and
inter-process handles (:mod:`fake_driver_ipc`). Importers use this module's names only.
"""

from __future__ import annotations

from fake_driver_base import ERR, OK
from fake_driver_devices import DevicesMixin
from fake_driver_graphs import GraphsMixin
from fake_driver_ipc import IpcMixin
from fake_driver_memory import MemoryMixin
from fake_driver_modules import FAKE_CUBIN_MAGIC, ModulesMixin, make_fake_cubin, parse_fake_cubin
from fake_driver_streams import StreamsMixin

__all__ = ["ERR", "FAKE_CUBIN_MAGIC", "OK", "FakeDriver", "make_fake_cubin", "parse_fake_cubin"]


class FakeDriver(DevicesMixin, MemoryMixin, StreamsMixin, GraphsMixin, ModulesMixin, IpcMixin):
    """Module-like object with the driver functions the runtime uses."""
