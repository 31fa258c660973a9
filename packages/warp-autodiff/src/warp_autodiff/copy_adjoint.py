"""The adjoint of an array copy (``wp.copy``, ``array.assign``) recorded on a ``wp.Tape``.

``dest[window] = src[window]`` propagates ``dest.grad[window]`` into ``src.grad[window]`` and
consumes it (zeroes it, unless ``dest`` retains its gradient). Between arrays of one device
with floating-point elements this is the adjoint of a copy kernel, launched on the device: a
graph capture of ``Tape.backward`` records it. Other copies (between devices, of other
element types) go through host memory, which a capture cannot record: they are refused then.
"""

from __future__ import annotations

from typing import Any

import warp as wp
from warp.extending import array, float16, float32, float64, is_capturing, kernel, launch_adjoint, types_equal


@kernel(module="warp_autodiff.copy_adjoint")
def _copy_1d(src: array(dtype=Any, ndim=1), dest: array(dtype=Any, ndim=1)):
    i = wp.tid()
    dest[i] = src[i]


@kernel(module="warp_autodiff.copy_adjoint")
def _copy_2d(src: array(dtype=Any, ndim=2), dest: array(dtype=Any, ndim=2)):
    i, j = wp.tid()
    dest[i, j] = src[i, j]


@kernel(module="warp_autodiff.copy_adjoint")
def _copy_3d(src: array(dtype=Any, ndim=3), dest: array(dtype=Any, ndim=3)):
    i, j, k = wp.tid()
    dest[i, j, k] = src[i, j, k]


@kernel(module="warp_autodiff.copy_adjoint")
def _copy_4d(src: array(dtype=Any, ndim=4), dest: array(dtype=Any, ndim=4)):
    i, j, k, m = wp.tid()
    dest[i, j, k, m] = src[i, j, k, m]


_COPY_KERNELS = {1: _copy_1d, 2: _copy_2d, 3: _copy_3d, 4: _copy_4d}
_FLOAT_TYPES = (float16, float32, float64)


def _has_float_elements(dtype: Any) -> bool:
    scalar = getattr(dtype, "_wp_scalar_type_", dtype)
    return any(scalar is t for t in _FLOAT_TYPES)


def _same_layout(*arrays: Any) -> list[Any] | None:
    """The arrays as views of one shape (contiguous ones flattened when shapes differ), or None."""
    shapes = {a.shape for a in arrays}
    if len(shapes) == 1:
        return list(arrays)
    if all(a.is_contiguous for a in arrays):
        return [a.flatten() for a in arrays]
    return None


def copy_adjoint_on_device(dest: Any, src: Any, dest_grad: Any, src_grad: Any) -> bool:
    """Run the adjoint of ``dest = src`` (windows of equal size) with a kernel on their device:
    ``src_grad += dest_grad``, ``dest_grad`` consumed. False (nothing done) when the arrays are
    on different devices or their elements are not floating-point values of one type."""
    if dest.device != src.device or not types_equal(dest.dtype, src.dtype):
        return False
    if not _has_float_elements(dest.dtype):
        return False
    views = _same_layout(dest, src, dest_grad, src_grad)
    if views is None:
        return False
    dest_v, src_v, dest_grad_v, src_grad_v = views
    launch_adjoint(
        _COPY_KERNELS[dest_v.ndim], dest_v.shape, [src_v], [dest_v], [src_grad_v], [dest_grad_v],
        device=dest.device,
    )
    return True


def refuse_host_adjoint_while_capturing(dest: Any, src: Any) -> None:
    """Raise ``RuntimeError`` when a capture runs on a device of a copy whose adjoint needs the host."""
    for device in {dest.device, src.device}:
        if not device.is_cpu and is_capturing(device):
            raise RuntimeError(
                "Cannot run CPU/CUDA wp.copy() adjoints during CUDA graph capture: the gradient of a copy "
                f"from '{src.device}' to '{dest.device}' moves through host memory, which the graph "
                "cannot record (run this backward pass outside the capture)"
            )


__all__ = ["copy_adjoint_on_device", "refuse_host_adjoint_while_capturing"]
