"""Stream ordering for the zero-copy exchange protocols (DLPack, CUDA array interface v3).

Both protocols name a CUDA stream by an integer: a raw ``CUstream`` handle, ``1`` for the
legacy default stream, ``2`` for the per-thread default stream, and ``None`` (DLPack also ``-1``)
for "no synchronization"; ``0`` is disallowed as ambiguous. The side that knows of pending work
orders the other side's stream after it on the device, with an event (no host round trip):

* producer (``wp.array.__dlpack__(stream=s)``): the consumer's stream ``s`` waits for warp's
  current stream of the array's device (:func:`order_consumer_stream`);
* consumer (``wp.from_dlpack``): warp passes its current stream (:func:`consumer_stream_value`)
  so that the producer orders it;
* CUDA array interface: warp exports its current stream as ``"stream"``; reading another
  library's interface, warp's current stream waits for the ``"stream"`` it names
  (:func:`wait_for_producer_stream`).
"""

from __future__ import annotations

from typing import Any

from warp.targets.cuda.driver import CudaError
from warp.targets.cuda.streams import (
    LEGACY_STREAM,
    current_stream,
    handle_is_capturing,
    make_handle_wait,
    wait_handle,
)


def _integer(value: Any) -> int | None:
    """``value`` as an int when it is an integer (``int``, NumPy integers; not ``bool``), else None."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        return None
    return value.__index__()


def dlpack_stream_arg(stream: Any, device: Any) -> int | None:
    """The consumer stream a ``__dlpack__(stream=...)`` call asks to order, or None for none.

    CPU arrays accept only None and -1 (``TypeError`` otherwise); CUDA arrays accept None, -1
    and integers >= 1 (``TypeError`` for a non-integer, ``ValueError`` for 0 and below -1).
    """
    if stream is None:
        return None
    value = _integer(stream)
    if value == -1:
        return None
    if not device.is_cuda:
        raise TypeError(
            f"__dlpack__: DLPack stream must be None or -1 for CPU device '{device}', got {stream!r}"
        )
    if value is None:
        raise TypeError(
            f"__dlpack__: DLPack stream of CUDA device '{device}' must be None or an integer "
            f"(-1, 1, 2 or a CUstream handle), got {type(stream).__name__} {stream!r}"
        )
    if value == 0:
        raise ValueError(
            f"__dlpack__: DLPack stream 0 is not allowed for CUDA device '{device}' (ambiguous); "
            "pass 1 for the legacy default stream, 2 for the per-thread default stream or a stream handle"
        )
    if value < -1:
        raise ValueError(
            f"__dlpack__: DLPack stream must be None, -1 or >= 1 for CUDA device '{device}', got {value}"
        )
    return value


def order_consumer_stream(device: Any, handle: int) -> None:
    """Make the consumer's stream ``handle`` wait for the work issued so far to warp's current
    stream of ``device`` (an event and ``cuStreamWaitEvent``; a host synchronization of warp's
    stream where the driver refuses the wait).

    While warp's stream captures a graph its work is recorded, not run: a consumer stream that
    captures too gets the dependency (an edge of the graph); any other is left alone (waiting
    would pull it into the capture).
    """
    ours = current_stream(device)
    if ours.is_capturing and not handle_is_capturing(handle, device.ordinal):
        return
    try:
        make_handle_wait(ours, handle)
    except CudaError as exc:
        try:
            ours.synchronize()
        except CudaError:
            raise BufferError(
                f"__dlpack__: cannot order consumer stream {handle} after warp's stream "
                f"{ours.cuda_stream:#x} on '{device}' ({exc}), nor synchronize that stream"
            ) from exc


def consumer_stream_value(device: Any) -> int:
    """Warp's current stream of CUDA ``device`` as a protocol stream value (the null stream as 1)."""
    return current_stream(device).cuda_stream or LEGACY_STREAM


def exported_stream_value(device: Any) -> int | None:
    """The ``"stream"`` of a CUDA array interface warp exports: its current stream of ``device``,
    or None while that stream captures a graph (consumers would synchronize a capturing stream)."""
    ours = current_stream(device)
    if ours.is_capturing:
        return None
    return ours.cuda_stream or LEGACY_STREAM


def wait_for_producer_stream(device: Any, stream: Any, what: str) -> None:
    """Make warp's current stream of ``device`` wait for the work issued to the producer's
    ``stream`` (the ``"stream"`` of a CUDA array interface: None for no synchronization)."""
    if stream is None:
        return
    value = _integer(stream)
    if value is None:
        raise TypeError(f"{what}: __cuda_array_interface__ stream must be None or an integer, got {stream!r}")
    if value <= 0:
        raise ValueError(
            f"{what}: __cuda_array_interface__ stream must be None or a positive integer (0 is "
            f"disallowed as ambiguous), got {value}"
        )
    wait_handle(current_stream(device), value)
