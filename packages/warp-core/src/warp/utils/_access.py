"""What the ``warp.utils`` modules share: reading and writing an array's values from the host,
the plugin implementation for an array's device, and checks of dtypes and devices.

The modules call ``read``, ``write``, ``on_host`` and ``device_impl`` through this module
(``_access.read(...)``), so that replacing one of them here (a test proving that a device path
never staged through the host) takes effect everywhere."""

from __future__ import annotations

from typing import Any

import numpy as np

from warp.arrays.array import array
from warp.arrays.capture_guard import refuse_while_capturing
from warp.arrays.conversion import is_bfloat16_element
from warp.plugins.array_utils import DeviceArrayUtils, device_array_utils
from warp.types import bfloat16_bits
from warp.types.composite_values import is_composite


def device_impl(a: array) -> DeviceArrayUtils | None:
    """The plugin implementation of ``warp.utils`` for ``a``'s device (None: compute on the host)."""
    return device_array_utils(a.device)


def read(a: array) -> np.ndarray:
    """The array's values as a NumPy array (composite dtypes add trailing dimensions; bfloat16
    components as float32 values, not their bit patterns).

    Raises ``NotImplementedError`` while a graph capture records ``a``'s device: the host
    computation would run once, on values not computed yet, and never on replay."""
    if a.device is not None:
        refuse_while_capturing(a.device, "wp.utils functions (they compute on the host)")
    if is_bfloat16_element(a.dtype):
        return bfloat16_bits.from_bits(a._storage())
    return a._storage()


def on_host(a: array) -> bool:
    """True when ``a``'s memory is host memory (a NumPy view of it writes through)."""
    if a.device is None:
        raise TypeError("expected a warp array with data, got an array annotation")
    return a.device.is_cpu


def write(a: array, values: np.ndarray) -> None:
    """Store ``values`` (shaped like ``a.numpy()``, as values) into ``a`` (bfloat16: rounded to nearest)."""
    if is_bfloat16_element(a.dtype):
        values = bfloat16_bits.to_bits(values)
    if on_host(a):
        a._storage()[...] = values
    else:
        host = np.array(a._storage())
        host[...] = values
        a.assign(host)


def check_same_device(*arrays: Any) -> None:
    """``RuntimeError`` unless every array that is not None lives on the same device."""
    devices = {str(a.device) for a in arrays if a is not None}
    if len(devices) > 1:
        raise RuntimeError(f"arrays live on different devices: {sorted(devices)}")


def scalar_type(dtype: Any) -> Any:
    """The component type of a composite dtype; a scalar dtype itself."""
    return dtype._wp_scalar_type_ if is_composite(dtype) else dtype


def type_name(dtype: Any) -> str:
    """The dtype's name for error messages."""
    return getattr(dtype, "__name__", str(dtype))
