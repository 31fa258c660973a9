"""Stream and event details on the CUDA stand-in: priorities, blocking streams, events recorded
into graphs, ``wp.copy(stream=)``, host synchronization refused during capture, graph
destruction deferred past a capture and host reads ordered after every blocking stream."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import warp as wp
from warp.targets.cuda.driver import CudaError

LEGACY = 1  # CU_STREAM_LEGACY


@wp.kernel
def add_one(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0


def test_stream_priority_is_clamped_and_read_back(fake_cuda) -> None:
    assert wp.Stream("cuda:0").priority == 0
    assert wp.Stream("cuda:0", priority=-100).priority == -1  # NVIDIA Warp's range: -1 or 0
    assert wp.Stream("cuda:0", priority=100).priority == 0
    assert wp.Stream("cuda:0", -1).priority == -1
    with pytest.raises(TypeError, match="Stream priority must be an integer, got float 0.5"):
        wp.Stream("cuda:0", priority=0.5)


def test_streams_are_blocking(fake_cuda) -> None:
    s = wp.Stream("cuda:0")
    assert s.is_blocking and wp.get_device("cuda:0").stream.is_blocking
    assert wp.get_device("cuda:0").null_stream.is_blocking
    assert wp.get_device("cuda:0").null_stream.cuda_stream == LEGACY
    assert wp.get_device("cpu").null_stream is None
    wrapped = wp.Stream("cuda:0", cuda_stream=s.cuda_stream)
    assert wrapped._is_blocking is None and wrapped.is_blocking and wrapped._is_blocking
    flags, _ = fake_cuda.stream_info[s.cuda_stream]
    assert flags == 0  # CU_STREAM_DEFAULT
    # a stream made non-blocking by another library reads so
    other = fake_cuda.cuStreamCreate(1)[1]
    assert not wp.Stream("cuda:0", cuda_stream=int(other)).is_blocking


def test_uninitialized_stream_and_event_delete_quietly(fake_cuda) -> None:
    wp.Stream.__new__(wp.Stream).__del__()
    wp.Event.__new__(wp.Event).__del__()
    s = wp.Stream("cuda:0")
    handle = s.cuda_stream
    del s
    gc.collect()
    assert handle in fake_cuda.destroyed_streams


def test_copy_on_a_given_stream(fake_cuda) -> None:
    a = wp.array(np.arange(8, dtype=np.float32), device="cuda:0")
    b = wp.zeros(8, dtype=float, device="cuda:0")
    s = wp.Stream("cuda:0")
    s.wait_stream(wp.get_stream("cuda:0"))
    fake_cuda.copies.clear()
    wp.copy(b, a, 2, 1, 4, s)
    assert [c[3] for c in fake_cuda.copies] == [s.cuda_stream]
    wp.copy(b, a, stream=s, count=1)
    assert fake_cuda.copies[-1][3] == s.cuda_stream
    np.testing.assert_array_equal(b.numpy(), [0, 0, 1, 2, 3, 4, 0, 0])
    host = wp.zeros(8, dtype=float, device="cpu")
    wp.copy(host, a, stream=s)
    np.testing.assert_array_equal(host.numpy(), np.arange(8))
    with pytest.raises(RuntimeError, match="stream of device 'cuda:1' cannot run work for device 'cuda:0'"):
        wp.copy(b, a, stream=wp.Stream("cuda:1"))


def test_numpy_reads_on_the_legacy_stream(fake_cuda) -> None:
    """The legacy stream waits for all blocking streams: values written on a side stream that
    the current stream never waited for are read after that work."""
    a = wp.zeros(16, dtype=float, device="cuda:0")
    s = wp.Stream("cuda:0")
    with wp.ScopedStream(s):
        wp.launch(add_one, dim=16, inputs=[a])
    fake_cuda.copies.clear()
    np.testing.assert_array_equal(a.numpy(), np.ones(16))
    assert [c[3] for c in fake_cuda.copies] == [LEGACY]


def test_numpy_during_capture_is_refused(fake_cuda) -> None:
    a = wp.zeros(4, dtype=float, device="cuda:0")
    with wp.ScopedDevice("cuda:0"):
        wp.capture_begin()
        try:
            with pytest.raises(RuntimeError, match="while a graph capture is active"):
                a.numpy()
        finally:
            wp.capture_end()


def test_synchronize_during_capture_is_refused_and_the_capture_survives(fake_cuda) -> None:
    a = wp.zeros(4, dtype=float, device="cuda:0")
    e = wp.Event("cuda:0")
    cases = [
        (wp.synchronize, "Cannot synchronize device 'cuda:0'"),
        (wp.synchronize_device, "Cannot synchronize device 'cuda:0'"),
        (wp.synchronize_stream, "Cannot synchronize stream"),
        (lambda: wp.synchronize_event(e), "Cannot synchronize event"),
    ]
    with wp.ScopedDevice("cuda:0"):
        for call, message in cases:
            with pytest.raises(RuntimeError, match=message):
                with wp.ScopedCapture():
                    wp.launch(add_one, dim=4, inputs=[a])
                    call()
        with wp.ScopedCapture() as capture:  # the device still captures normally afterwards
            wp.launch(add_one, dim=4, inputs=[a])
        wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(a.numpy(), np.ones(4))
    assert not fake_cuda.violations


def test_synchronize_stream_on_cpu_is_a_no_op() -> None:
    with wp.ScopedDevice("cpu"):
        wp.synchronize_stream()


def test_graph_destroyed_during_a_capture_is_destroyed_after_it(fake_cuda) -> None:
    a = wp.zeros(4, dtype=float, device="cuda:0")
    with wp.ScopedDevice("cuda:0"):
        with wp.ScopedCapture() as first:
            wp.launch(add_one, dim=4, inputs=[a])
        wp.capture_launch(first.graph)
        executable = int(first.graph.commands.graph_exec)
        with wp.ScopedCapture() as second:
            del first
            gc.collect()
            assert executable in fake_cuda.graph_execs  # not destroyed while capturing
            wp.launch(add_one, dim=4, inputs=[a])
        assert executable not in fake_cuda.graph_execs  # destroyed once the capture ended
        wp.capture_launch(second.graph)
    np.testing.assert_array_equal(a.numpy(), np.full(4, 2.0))
    assert not fake_cuda.violations


def test_timing_events_recorded_in_a_graph_time_its_replay(fake_cuda) -> None:
    a = wp.zeros(4, dtype=float, device="cuda:0")
    stream = wp.get_stream("cuda:0")
    e1, e2 = wp.Event("cuda:0", enable_timing=True), wp.Event("cuda:0", enable_timing=True)
    with wp.ScopedCapture("cuda:0") as capture:
        stream.record_event(e1)
        wp.launch(add_one, dim=4, inputs=[a], device="cuda:0")
        stream.record_event(e2)
    assert not fake_cuda.events[e1.cuda_event]["recorded"]  # recorded by replays only
    wp.capture_launch(capture.graph)
    wp.synchronize_device("cuda:0")
    assert wp.get_event_elapsed_time(e1, e2) > 0


def test_external_events_order_two_graphs(fake_cuda) -> None:
    with wp.ScopedDevice("cuda:0"):
        event = wp.Event()
        a = wp.zeros(4, dtype=float)
        with wp.ScopedCapture() as first:
            wp.launch(add_one, dim=4, inputs=[a])
            wp.record_event(event, external=True)
        with wp.ScopedCapture() as second:
            wp.wait_event(event, external=True)
            wp.launch(add_one, dim=4, inputs=[a])
        assert any(c == f"record {event.cuda_event} {wp.get_stream().cuda_stream}" for c in fake_cuda.calls)
        assert not fake_cuda.events[event.cuda_event]["captured"]
        wp.capture_launch(first.graph, stream=wp.Stream())
        wp.capture_launch(second.graph, stream=wp.Stream())
        assert fake_cuda.events[event.cuda_event]["recorded"]
    np.testing.assert_array_equal(a.numpy(), np.full(4, 2.0))
    # outside a capture the flags are invalid for the driver: warp leaves them out there
    wp.record_event(event, external=True)
    wp.get_stream("cuda:0").wait_event(event, external=True)


def test_an_internal_record_in_a_capture_leaves_the_event_unusable_by_the_host(fake_cuda) -> None:
    e = wp.Event("cuda:0")
    with wp.ScopedCapture("cuda:0"):
        wp.get_stream("cuda:0").record_event(e)
    with pytest.raises(CudaError, match="CUDA_ERROR_INVALID_VALUE"):
        e.synchronize()


@wp.kernel
def total(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(out, 0, a[i])


@pytest.mark.needs_plugin("autodiff")
def test_copy_on_a_stream_is_differentiable(fake_cuda) -> None:
    stream = wp.Stream("cuda:0")
    src = wp.array(np.ones(4, dtype=np.float32), dtype=float, requires_grad=True, device="cpu")
    dst = wp.zeros(2, dtype=float, requires_grad=True, device="cuda:0")
    loss = wp.zeros(1, dtype=float, requires_grad=True, device="cuda:0")
    tape = wp.Tape()
    with tape:
        wp.copy(dst, src, src_offset=1, count=2, stream=stream)
        wp.get_device("cuda:0").stream.wait_stream(stream)
        wp.launch(total, dim=2, inputs=[dst], outputs=[loss], device="cuda:0")
    tape.backward(loss)
    np.testing.assert_array_equal(src.grad.numpy(), [0.0, 1.0, 1.0, 0.0])


def test_deferred_stand_in_shows_unordered_reads(fake_cuda) -> None:
    """In deferred mode the stand-in runs a stream's work only when something waits for it: a
    copy to the host on a stream that never waited for a side stream reads the old values."""
    fake_cuda.deferred = True
    a = wp.zeros(16, dtype=float, device="cuda:0")
    host = wp.zeros(16, dtype=float, device="cpu")
    s = wp.Stream("cuda:0")
    s.wait_stream(wp.get_stream("cuda:0"))
    wp.launch(add_one, dim=16, inputs=[a], stream=s)
    assert not s.is_complete
    wp.copy(host, a)  # on the current stream, not ordered after s
    np.testing.assert_array_equal(host.numpy(), np.zeros(16))
    np.testing.assert_array_equal(a.numpy(), np.ones(16))  # the legacy stream waits for s


def test_scoped_stream_work_is_visible_after_the_scope(fake_cuda) -> None:
    fake_cuda.deferred = True
    with wp.ScopedDevice("cuda:0"):
        a = wp.zeros(64, dtype=float)
        b = wp.full(64, 42.0, dtype=float)
        c = wp.empty(64, dtype=float)
        old, side = wp.get_stream(), wp.Stream()
        with wp.ScopedStream(side):  # entering waits for the allocations on the old stream
            wp.launch(add_one, dim=64, inputs=[a])
            wp.copy(b, a)
            wp.launch(add_one, dim=64, inputs=[a])
            wp.copy(c, a)
            wp.launch(add_one, dim=64, inputs=[a])
        assert wp.get_stream() is old
        np.testing.assert_array_equal(a.numpy(), np.full(64, 3.0))
        np.testing.assert_array_equal(b.numpy(), np.full(64, 1.0))
        np.testing.assert_array_equal(c.numpy(), np.full(64, 2.0))


def test_stream_arguments_with_explicit_waits(fake_cuda) -> None:
    fake_cuda.deferred = True
    a = wp.zeros(64, dtype=float, device="cuda:0")
    b = wp.full(64, 42.0, dtype=float, device="cuda:0")
    s = wp.Stream("cuda:0")
    s.wait_stream(wp.get_stream("cuda:0"))
    wp.launch(add_one, dim=64, inputs=[a], stream=s)
    wp.copy(b, a, stream=s)
    wp.launch(add_one, dim=64, inputs=[a], stream=s)
    e = s.record_event()
    assert not e.is_complete
    wp.synchronize_event(e)
    assert e.is_complete
    np.testing.assert_array_equal(a.numpy(), np.full(64, 2.0))
    np.testing.assert_array_equal(b.numpy(), np.full(64, 1.0))


def test_deferred_copies_between_pageable_pinned_and_device_memory(fake_cuda) -> None:
    """A copy from pageable memory is staged when issued (the source may change or go away
    before the stream runs it); pinned memory is read when the copy runs."""
    fake_cuda.deferred = True
    n = 4096
    device = wp.zeros(n, dtype=float, device="cuda:0")
    pageable = np.ones(n, dtype=np.float32)
    wp.copy(device, wp.array(pageable, dtype=float, device="cpu"))
    pageable[:] = 5.0  # too late: staged already
    pinned = wp.full(n, 2.0, dtype=float, device="cpu", pinned=True)
    out = wp.zeros(n, dtype=float, device="cpu")
    wp.copy(out, device)
    np.testing.assert_array_equal(out.numpy(), np.ones(n))
    wp.copy(device, pinned)
    wp.copy(out, device)
    np.testing.assert_array_equal(out.numpy(), np.full(n, 2.0))
