"""Device implementations of indexed-array gathers and scatters (the ``warp_device_indexed_ops``
hook): what such an implementation provides, and how ``wp.indexedarray`` finds the one for a
device.

On the CPU, ``wp.indexedarray`` reads and writes its data with NumPy in place. For data on
another device an implementation runs kernels on that device: nothing is staged through host
memory, so graph capture records fills, assignments, copies and gathers of indexed arrays and a
replay repeats them. warp-core implements it for every device other than the CPU
(``warp.indexed_kernels``, a core plugin, with core builtins only).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from warp.plugins.manager import get_plugin_manager

if TYPE_CHECKING:  # the argument types only
    from warp.runtime.devices import Device


class DeviceIndexedOps(Protocol):
    """Gathers and scatters through index arrays, computed on the arrays' device.

    ``indices`` hold, per dimension of ``data``, a 1-D ``int32`` index array on the device or None
    (the dimension taken whole), as ``wp.indexedarray.indices`` does. Element ``[j0, j1, ...]`` of
    the indexed view is ``data[i0[j0], i1[j1], ...]``. The arrays may be strided views; the caller
    has checked shapes, dtypes and devices. Each returns ``True`` when it did the work (issued on
    the device's current stream) and ``False`` when it does not handle the arguments. They never
    read device memory on the host, so graph capture records them. Elements whose index is out of
    the data's bounds are skipped (the caller checks indices on the host outside graph capture).
    """

    def fill(self, data: Any, indices: Sequence[Any | None], value: Any) -> bool:
        """Set the indexed elements of ``data`` to ``value`` (a kernel-argument value of
        ``data.dtype``)."""
        ...

    def copy(
        self, dest: Any, dest_indices: Sequence[Any | None], src: Any, src_indices: Sequence[Any | None]
    ) -> bool:
        """``dest`` seen through ``dest_indices`` = ``src`` seen through ``src_indices``: two views
        of one shape and one dtype on one device."""
        ...


def device_indexed_ops(device: Device | None) -> DeviceIndexedOps | None:
    """The implementation of indexed gathers and scatters for arrays on ``device``; None on the
    CPU (whose arrays NumPy reads in place) and when no plugin provides one."""
    if device is None or device.is_cpu:
        return None
    result: DeviceIndexedOps | None = get_plugin_manager().hook.warp_device_indexed_ops(device=device)
    return result
