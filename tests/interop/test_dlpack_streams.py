"""Stream semantics of DLPack and the CUDA array interface on CUDA devices.

``__dlpack__(stream=s)`` must order the consumer's stream ``s`` after the work warp issued to its
current stream (an event recorded there, ``cuStreamWaitEvent`` on ``s``); ``wp.from_dlpack``
passes warp's current stream to the producer; a CUDA array interface carries warp's stream and
an imported one's ``"stream"`` is waited for. The stand-in driver (``fake_cuda``) logs
``record <event> <stream>`` and ``wait <stream> <event>`` for each event record and wait; the
``real_device`` tests run the same with PyTorch on real GPUs (they skip on the CPU).
"""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp


@wp.kernel
def add_one(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0


def sync_calls(fake) -> list[str]:
    """The event records and stream waits (and host syncs) the stand-in saw, in order."""
    return [c for c in fake.calls if c.split()[0] in ("record", "wait", "cuStreamSynchronize")]


def waited_on(fake, stream: int) -> str:
    """The event the stand-in saw ``stream`` wait for, after checking it was recorded on warp's
    current stream of cuda:0 just before."""
    calls = sync_calls(fake)
    ours = wp.get_stream("cuda:0").cuda_stream
    assert len(calls) == 2, calls
    record, wait = calls
    event = record.split()[1]
    assert record == f"record {event} {ours}"
    assert wait == f"wait {stream} {event}"
    return event


@pytest.mark.parametrize("stream", [1, 2, np.int32(2)], ids=["legacy", "per-thread", "numpy-int"])
def test_export_orders_the_special_consumer_streams(fake_cuda, stream) -> None:
    a = wp.array(np.arange(4, dtype=np.float32), device="cuda:0")
    wp.launch(add_one, dim=4, inputs=[a])
    fake_cuda.calls.clear()
    capsule = a.__dlpack__(stream=stream, max_version=(1, 1))
    waited_on(fake_cuda, stream)
    assert wp.from_dlpack(capsule).numpy().tolist() == [1.0, 2.0, 3.0, 4.0]


def test_export_orders_a_consumer_stream_handle(fake_cuda) -> None:
    a = wp.zeros(3, dtype=float, device="cuda:0")
    consumer = wp.Stream("cuda:0")
    fake_cuda.calls.clear()
    a.__dlpack__(stream=consumer.cuda_stream)
    first = waited_on(fake_cuda, consumer.cuda_stream)
    # a second export reuses warp's event: re-recorded after the later work, waited on again
    fake_cuda.calls.clear()
    a.__dlpack__(stream=consumer.cuda_stream)
    assert waited_on(fake_cuda, consumer.cuda_stream) == first


def test_export_follows_the_current_stream(fake_cuda) -> None:
    a = wp.zeros(3, dtype=float, device="cuda:0")
    producer = wp.Stream("cuda:0")
    with wp.ScopedStream(producer):
        fake_cuda.calls.clear()
        a.__dlpack__(stream=1)
        assert waited_on(fake_cuda, 1)
        assert sync_calls(fake_cuda)[0].endswith(f" {producer.cuda_stream}")


@pytest.mark.parametrize("stream", [None, -1, np.int64(-1)])
def test_no_sync_values_issue_nothing(fake_cuda, stream) -> None:
    a = wp.array([1.0, 2.0], dtype=float, device="cuda:0")
    fake_cuda.calls.clear()
    capsule = a.__dlpack__(stream=stream)
    assert sync_calls(fake_cuda) == []
    assert wp.from_dlpack(capsule).numpy().tolist() == [1.0, 2.0]


def test_consumer_on_warps_own_stream_needs_no_wait(fake_cuda) -> None:
    a = wp.zeros(2, dtype=float, device="cuda:0")
    fake_cuda.calls.clear()
    a.__dlpack__(stream=wp.get_stream("cuda:0").cuda_stream)
    assert sync_calls(fake_cuda) == []


def test_export_copy_orders_the_consumer_after_the_copy(fake_cuda) -> None:
    a = wp.array(np.arange(3, dtype=np.float32), device="cuda:0")
    fake_cuda.calls.clear()
    capsule = a.__dlpack__(stream=2, max_version=(1, 0), copy=True)
    waited_on(fake_cuda, 2)
    copied = wp.from_dlpack(capsule)
    assert copied.ptr != a.ptr and copied.numpy().tolist() == [0.0, 1.0, 2.0]


@pytest.mark.parametrize(
    ("stream", "error", "message"),
    [
        (0, ValueError, r"DLPack stream 0 is not allowed for CUDA device 'cuda:0' \(ambiguous\)"),
        (-2, ValueError, "DLPack stream must be None, -1 or >= 1 for CUDA device 'cuda:0', got -2"),
        ("nope", TypeError, "DLPack stream of CUDA device 'cuda:0' must be None or an integer"),
        (1.0, TypeError, "must be None or an integer .* got float 1.0"),
        (True, TypeError, "must be None or an integer .* got bool True"),
    ],
)
def test_bad_stream_values_on_cuda(fake_cuda, stream, error, message) -> None:
    a = wp.zeros(2, dtype=float, device="cuda:0")
    fake_cuda.calls.clear()
    with pytest.raises(error, match=message):
        a.__dlpack__(stream=stream)
    assert sync_calls(fake_cuda) == []


def test_refused_wait_falls_back_to_synchronizing_warps_stream(fake_cuda, monkeypatch) -> None:
    a = wp.zeros(2, dtype=float, device="cuda:0")
    monkeypatch.setattr(
        fake_cuda, "cuStreamWaitEvent",
        lambda stream, event, flags: (fake_cuda.CUresult.CUDA_ERROR_INVALID_HANDLE,),
    )
    fake_cuda.calls.clear()
    a.__dlpack__(stream=7)
    assert sync_calls(fake_cuda)[-1] == "cuStreamSynchronize"


def test_export_that_can_neither_wait_nor_synchronize_is_a_buffer_error(fake_cuda, monkeypatch) -> None:
    a = wp.zeros(2, dtype=float, device="cuda:0")
    err = fake_cuda.CUresult
    refuse_wait = (err.CUDA_ERROR_STREAM_CAPTURE_ISOLATION,)
    refuse_sync = (err.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,)
    monkeypatch.setattr(fake_cuda, "cuStreamWaitEvent", lambda s, e, f: refuse_wait)
    monkeypatch.setattr(fake_cuda, "cuStreamSynchronize", lambda s: refuse_sync)
    message = r"cannot order consumer stream 1 after warp's stream .* on 'cuda:0'"
    with pytest.raises(BufferError, match=message):
        a.__dlpack__(stream=1)


def test_export_while_warp_captures_leaves_outside_streams_alone(fake_cuda) -> None:
    a = wp.zeros(2, dtype=float, device="cuda:0")
    outside = wp.Stream("cuda:0")
    with wp.ScopedDevice("cuda:0"):
        wp.capture_begin()
        try:  # nothing of warp's runs while it captures; a wait would pull them into the graph
            fake_cuda.calls.clear()
            for stream in (1, 2, outside.cuda_stream):
                a.__dlpack__(stream=stream)
            assert sync_calls(fake_cuda) == []
        finally:
            wp.capture_end()


def test_export_while_both_streams_capture_adds_the_dependency(fake_cuda) -> None:
    # the consumer stream takes part in warp's capture (forked into it by an event wait, as a
    # framework's side stream would be): the dependency becomes an edge of the graph
    a = wp.zeros(2, dtype=float, device="cuda:0")
    consumer = wp.Stream("cuda:0")
    with wp.ScopedDevice("cuda:0"):
        wp.capture_begin()
        ours = wp.get_stream()
        try:
            consumer.wait_stream(ours)
            assert consumer.is_capturing
            fake_cuda.calls.clear()
            a.__dlpack__(stream=consumer.cuda_stream)
            waited_on(fake_cuda, consumer.cuda_stream)
        finally:
            ours.wait_stream(consumer)  # joined back before the capture ends
            wp.capture_end()


# -- consumer side: wp.from_dlpack ----------------------------------------------------------------


class Producer:
    """A DLPack producer that records the ``stream`` it was asked to order and exports ``inner``."""

    def __init__(self, inner: wp.array, device: tuple[int, int]) -> None:
        self.inner, self.device, self.streams = inner, device, []

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.device

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        self.streams.append(stream)
        return self.inner.__dlpack__(max_version=max_version)


def test_from_dlpack_passes_warps_current_stream(fake_cuda) -> None:
    inner = wp.array([1.0, 2.0], dtype=float, device="cuda:0")
    producer = Producer(inner, (2, 0))
    assert wp.from_dlpack(producer).ptr == inner.ptr
    other = wp.Stream("cuda:0")
    with wp.ScopedStream(other):
        wp.from_dlpack(producer)
    assert producer.streams == [wp.get_stream("cuda:0").cuda_stream, other.cuda_stream]
    assert all(isinstance(s, int) and s > 2 for s in producer.streams)


def test_from_dlpack_names_the_null_stream_as_the_legacy_stream(fake_cuda) -> None:
    producer = Producer(wp.zeros(1, dtype=float, device="cuda:0"), (2, 0))
    with wp.ScopedStream(wp.Stream("cuda:0", cuda_stream=0)):
        wp.from_dlpack(producer)
    assert producer.streams == [1]  # 0 is disallowed by the protocol


def test_from_dlpack_passes_the_stream_of_the_producers_device(fake_cuda) -> None:
    producer = Producer(wp.zeros(1, dtype=float, device="cuda:1"), (2, 1))
    with wp.ScopedDevice("cuda:0"):
        wp.from_dlpack(producer)
    assert producer.streams == [wp.get_stream("cuda:1").cuda_stream]


def test_from_dlpack_of_host_memory_passes_no_stream() -> None:
    producer = Producer(wp.zeros(1, dtype=float, device="cpu"), (1, 0))
    wp.from_dlpack(producer)
    assert producer.streams == [None]


# -- the CUDA array interface ---------------------------------------------------------------------


def test_cuda_array_interface_exports_warps_current_stream(fake_cuda) -> None:
    a = wp.zeros(2, dtype=float, device="cuda:0")
    assert a.__cuda_array_interface__["stream"] == wp.get_stream("cuda:0").cuda_stream
    other = wp.Stream("cuda:0")
    with wp.ScopedStream(other):
        assert a.__cuda_array_interface__["stream"] == other.cuda_stream
    with wp.ScopedDevice("cuda:0"):
        wp.capture_begin()
        try:  # a capturing stream has nothing to wait for (and consumers could not sync it)
            assert "stream" not in a.__cuda_array_interface__
        finally:
            wp.capture_end()


class Interface:
    def __init__(self, ptr: int, n: int, stream) -> None:
        self.__cuda_array_interface__ = {
            "version": 3, "shape": (n,), "typestr": "<f4", "data": (ptr, False), "strides": None,
            "stream": stream,
        }


@pytest.mark.parametrize("stream", [1, 2, 12345], ids=["legacy", "per-thread", "handle"])
def test_imported_interface_stream_is_waited_for(fake_cuda, stream) -> None:
    source = wp.array([5.0, 6.0], dtype=float, device="cuda:0")
    fake_cuda.calls.clear()
    view = wp.array(Interface(source.ptr, 2, stream), device="cuda:0", copy=False)
    calls = sync_calls(fake_cuda)
    assert len(calls) == 2, calls
    event = calls[0].split()[1]
    assert calls == [f"record {event} {stream}", f"wait {wp.get_stream('cuda:0').cuda_stream} {event}"]
    assert view.ptr == source.ptr and view.numpy().tolist() == [5.0, 6.0]


def test_imported_interface_without_stream_or_on_warps_stream_issues_nothing(fake_cuda) -> None:
    source = wp.zeros(2, dtype=float, device="cuda:0")
    fake_cuda.calls.clear()
    wp.array(Interface(source.ptr, 2, None), device="cuda:0")
    wp.array(Interface(source.ptr, 2, wp.get_stream("cuda:0").cuda_stream), device="cuda:0")
    assert sync_calls(fake_cuda) == []


@pytest.mark.parametrize(
    ("stream", "error", "message"),
    [
        (0, ValueError, r"Interface: __cuda_array_interface__ stream must be None or a positive integer \(0"),
        (-1, ValueError, "must be None or a positive integer .* got -1"),
        ("s", TypeError, "Interface: __cuda_array_interface__ stream must be None or an integer, got 's'"),
    ],
)
def test_bad_interface_streams(fake_cuda, stream, error, message) -> None:
    source = wp.zeros(2, dtype=float, device="cuda:0")
    with pytest.raises(error, match=message):
        wp.array(Interface(source.ptr, 2, stream), device="cuda:0")


# -- the device fixture: values after a stream-ordered exchange -----------------------------------


def test_stream_ordered_round_trip(device) -> None:
    """A kernel's result read back through a capsule exported for each valid stream value."""
    a = wp.array(np.arange(5, dtype=np.float32), device=device)
    wp.launch(add_one, dim=5, inputs=[a], device=device)
    consumer = wp.Stream(device) if device.is_cuda else None  # alive while its handle is used
    values = [None, -1] + ([1, 2, consumer.cuda_stream] if consumer is not None else [])
    for value in values:
        b = wp.from_dlpack(a.__dlpack__(stream=value, max_version=(1, 1)))
        np.testing.assert_array_equal(b.numpy(), np.arange(5, dtype=np.float32) + 1.0)


# -- real GPUs with PyTorch -----------------------------------------------------------------------


def _torch_on(real_device):
    if not real_device.is_cuda:
        pytest.skip("needs a CUDA device (the CPU has no streams to order)")
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch was built without CUDA")
    return torch


@wp.kernel
def slow_fill(a: wp.array(dtype=float), value: float, rounds: int):
    i = wp.tid()
    x = float(0.0)
    for _ in range(rounds):  # keeps warp's stream busy while the consumer is being set up
        x = x + 1.0e-7
    a[i] = value + x * 0.0


def test_torch_reads_warp_results_on_its_own_stream(real_device) -> None:
    torch = _torch_on(real_device)
    n = 1 << 20
    a = wp.zeros(n, dtype=float, device=real_device)
    torch_stream = torch.cuda.Stream(device=f"cuda:{real_device.ordinal}")
    with torch.cuda.stream(torch_stream):
        wp.launch(slow_fill, dim=n, inputs=[a, 3.0, 20000], device=real_device)
        t = torch.from_dlpack(a)  # torch passes torch_stream: it must wait for the kernel
        total = t.sum()
    torch_stream.synchronize()
    assert t.data_ptr() == a.ptr and float(total) == 3.0 * n


def test_warp_reads_torch_results_on_its_own_stream(real_device) -> None:
    torch = _torch_on(real_device)
    n = 1 << 20
    torch_stream = torch.cuda.Stream(device=f"cuda:{real_device.ordinal}")
    with torch.cuda.stream(torch_stream):
        t = torch.full((n,), 2.0, device=f"cuda:{real_device.ordinal}")
        t.mul_(1.5)
        # warp passes its stream: torch makes it wait for the work of its current stream
        a = wp.from_dlpack(t)
    wp.launch(add_one, dim=n, inputs=[a], device=real_device)
    np.testing.assert_array_equal(a.numpy(), np.full(n, 4.0, dtype=np.float32))
