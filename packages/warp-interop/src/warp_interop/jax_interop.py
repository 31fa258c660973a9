"""JAX interoperability: zero-copy conversions (through DLPack), dtype and device maps.

JAX arrays are immutable: ``from_jax`` gives a warp view of the buffer (read it; writing into
it changes what JAX believes is constant). ``to_jax`` hands warp memory to JAX without a copy
when it is aligned as JAX requires (warp allocations are 64-byte aligned).
"""

from __future__ import annotations

import enum
from typing import Any

import warp
from warp.extending import Device, from_dlpack, resolve_dtype, type_repr

from warp_interop.checks import check_warp_array
from warp_interop.frameworks import require

_SCALARS = ("float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
            "uint32", "uint64", "bool")


class GraphMode(enum.IntEnum):
    """How a ``jax_callable`` may be captured in a CUDA graph; also ``wp.JaxCallableGraphMode``.

    ``NONE`` and ``JAX`` call the function at every call, on any device; the ``WARP*`` modes
    capture its launches in a Warp CUDA graph, launched again for the same buffers and static
    arguments (the staged modes make no staging copies), and need a CUDA device: they raise on
    the CPU.
    """

    NONE = 0
    JAX = 1
    WARP = 2
    WARP_STAGED = 3
    WARP_STAGED_EX = 4


class ModulePreloadMode(enum.IntEnum):
    """When ``jax_kernel``/``jax_callable`` load the kernel modules they use (``wp.JaxModulePreloadMode``):
    ``NONE`` at the first call, ``CURRENT_DEVICE``/``ALL_DEVICES`` when the wrapper is made.
    Loading is cheap here (compiled objects are cached), so every mode loads at the first call."""

    NONE = 0
    CURRENT_DEVICE = 1
    ALL_DEVICES = 2


def _jax(what: str) -> Any:
    return require("jax", what)


def dtype_from_jax(jax_dtype: Any) -> Any:
    """The warp scalar type of a JAX dtype (``jnp.float32`` -> ``wp.float32``)."""
    import numpy as np

    _jax("dtype_from_jax")
    try:
        key = np.dtype(jax_dtype)
    except TypeError:
        raise TypeError(f"cannot convert JAX dtype {jax_dtype} to a warp type") from None
    name = "bool" if key == np.dtype(bool) else key.name
    if name not in _SCALARS:
        raise TypeError(f"cannot convert JAX dtype {jax_dtype} to a warp type")
    return getattr(warp, name)


def dtype_to_jax(warp_dtype: Any) -> Any:
    """The JAX dtype (``jnp.float32``, ...) of a warp scalar type; composites give their components'."""
    jax = _jax("dtype_to_jax")
    t = resolve_dtype(warp_dtype)
    t = getattr(t, "_wp_scalar_type_", None) or t
    name = getattr(t, "__name__", None)
    if name not in _SCALARS:
        raise TypeError(f"cannot convert warp dtype {type_repr(warp_dtype)} to a JAX dtype")
    return getattr(jax.numpy, name if name != "bool" else "bool_")


def device_from_jax(jax_device: Any) -> Device:
    """The warp device of a JAX device: ``cpu`` devices map to ``"cpu"``; a GPU maps to the CUDA
    device of this process with its process-local ordinal (``local_hardware_id``), so that under
    ``jax.distributed`` (where ``jax.Device.id`` counts every process's GPUs) it is the same GPU.
    A GPU of another process raises RuntimeError."""
    platform = getattr(jax_device, "platform", None)
    if platform == "cpu":
        return warp.get_device("cpu")
    if platform in ("gpu", "cuda"):
        jax = _jax("device_from_jax")
        owner, here = getattr(jax_device, "process_index", None), jax.process_index()
        if owner is not None and owner != here:
            raise RuntimeError(
                f"device_from_jax: JAX device {jax_device} belongs to process {owner}, not to this process "
                f"({here}); warp devices are those of the current process"
            )
        ordinal = getattr(jax_device, "local_hardware_id", None)
        return warp.get_cuda_device(jax_device.id if ordinal is None else ordinal)
    raise RuntimeError(
        f"JAX device {jax_device!r} has no corresponding warp device (only CPU and GPU devices)"
    )


def device_to_jax(warp_device: Any = None) -> Any:
    """The JAX device of this process matching a warp device: the first local CPU device for
    ``"cpu"``; for ``cuda:N`` the local GPU whose process-local ordinal (``local_hardware_id``) is N."""
    jax = _jax("device_to_jax")
    device = warp.get_device(warp_device)
    if device.is_cuda:
        try:
            gpus = jax.local_devices(backend="cuda")
        except RuntimeError:  # no CUDA backend in this JAX
            gpus = []
        for d in gpus:
            if d.local_hardware_id == device.ordinal:
                return d
        raise RuntimeError(
            f"device_to_jax: warp device '{device}' is not available in JAX (JAX has no local GPU with "
            f"ordinal {device.ordinal})"
        )
    if device.is_cpu:
        return jax.local_devices(backend="cpu")[0]
    raise RuntimeError(f"device_to_jax: warp device '{device}' has no JAX equivalent (CPU and CUDA only)")


def get_jax_device() -> Any:
    """The JAX device computations run on by default (``jax_default_device`` or the first device)."""
    jax = _jax("get_jax_device")
    default = jax.config.jax_default_device
    if default is not None and not isinstance(default, str):
        return default
    return jax.local_devices()[0]


def from_jax(jax_array: Any, dtype: Any = None) -> Any:
    """A warp array viewing a JAX array's buffer (zero-copy, through DLPack).

    ``dtype`` may reinterpret trailing dimensions as vector/matrix elements (``(n, 3)`` float32
    -> ``n`` vec3s). The JAX array stays alive while the warp array (or a view of it) does.
    """
    jax = _jax("from_jax")
    if not isinstance(jax_array, jax.Array):
        raise TypeError(f"from_jax: expected a jax.Array, got {type(jax_array).__name__}")
    if isinstance(jax_array, jax.core.Tracer):
        raise TypeError(
            "from_jax: got a traced JAX value (inside jax.jit, vmap or grad), which has no memory yet; "
            "use warp.jax_experimental.jax_kernel or jax_callable to run warp code on it"
        )
    return from_dlpack(jax_array, dtype=dtype)


def to_jax(warp_array: Any) -> Any:
    """A JAX array sharing a warp array's memory (JAX copies only if the memory is misaligned)."""
    _jax("to_jax")
    check_warp_array(warp_array, "to_jax")
    import jax.dlpack

    return jax.dlpack.from_dlpack(warp_array)


def jax_kernel(kernel: Any, *args: Any, **kwargs: Any) -> Any:
    """``wp.jax_kernel``: :func:`warp.jax_experimental.ffi.jax_kernel` (imports JAX when called)."""
    _jax("wp.jax_kernel")
    from warp_interop.jax_experimental import ffi  # JAX is optional: imported on first use

    return ffi.jax_kernel(kernel, *args, **kwargs)


def jax_callable(func: Any, *args: Any, **kwargs: Any) -> Any:
    """``wp.jax_callable``: :func:`warp.jax_experimental.ffi.jax_callable` (imports JAX when called)."""
    _jax("wp.jax_callable")
    from warp_interop.jax_experimental import ffi  # JAX is optional: imported on first use

    return ffi.jax_callable(func, *args, **kwargs)
