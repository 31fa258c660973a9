"""Graph capture on the CPU: wp.capture_begin/end/launch, wp.ScopedCapture, pause/resume."""

from __future__ import annotations

import gc
import threading
import weakref

import numpy as np
import pytest
import warp as wp


@wp.kernel
def axpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = y[i] + a * x[i]


@wp.kernel
def add_one(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] + 1.0


@wp.kernel
def read_at(x: wp.array(dtype=float), out: wp.array(dtype=float), offset: int):
    i = wp.tid()
    out[i] = x[i + offset]


def test_capture_records_instead_of_running_and_replays_in_order():
    x = wp.array(np.arange(5, dtype=np.float32))
    y = wp.zeros(5, dtype=float)
    a = 2.0
    wp.capture_begin(device="cpu")
    try:
        assert wp.get_device("cpu").is_capturing
        wp.launch(add_one, dim=5, inputs=[x])
        wp.launch(axpy, dim=5, inputs=[x, y, a])
        # nothing ran yet
        np.testing.assert_array_equal(x.numpy(), np.arange(5))
        assert not y.numpy().any()
    finally:
        graph = wp.capture_end(device="cpu")
    assert not wp.get_device("cpu").is_capturing
    assert isinstance(graph, wp.Graph) and len(graph) == 2 and graph.device == "cpu"
    a = 100.0  # the graph keeps the values it was recorded with  # noqa: F841
    wp.capture_launch(graph)
    x_ref = np.arange(5) + 1.0
    np.testing.assert_array_equal(x.numpy(), x_ref)
    np.testing.assert_array_equal(y.numpy(), 2.0 * x_ref)
    wp.capture_launch(graph)
    np.testing.assert_array_equal(x.numpy(), x_ref + 1)
    np.testing.assert_array_equal(y.numpy(), 2.0 * x_ref + 2.0 * (x_ref + 1))


def test_memory_operations_are_recorded():
    src = wp.array(np.arange(6, dtype=np.float32))
    dst = wp.full(6, 7.0, dtype=float)
    v = wp.zeros(3, dtype=wp.vec3)
    with wp.ScopedCapture() as capture:
        src.fill_(3.0)
        wp.launch(add_one, dim=6, inputs=[src])
        wp.copy(dst, src, dest_offset=1, src_offset=0, count=4)
        v.fill_(wp.vec3(1.0, 2.0, 3.0))
        src.zero_()
    # nothing happened during the capture
    np.testing.assert_array_equal(src.numpy(), np.arange(6))
    np.testing.assert_array_equal(dst.numpy(), np.full(6, 7.0))
    assert not v.numpy().any()
    assert [c.kind for c in capture.graph.commands.commands] == ["fill", "launch", "copy", "fill", "memset"]
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(dst.numpy(), [7, 4, 4, 4, 4, 7])
    np.testing.assert_array_equal(v.numpy(), np.tile([1.0, 2.0, 3.0], (3, 1)))
    assert not src.numpy().any()


def test_parallel_launches_replay_correctly():
    n = max(wp.config.cpu_parallel_min_dim, 1) * 2 + 3
    x = wp.zeros(n, dtype=float)
    with wp.ScopedCapture("cpu") as capture:
        for _ in range(3):
            wp.launch(add_one, dim=n, inputs=[x])
    for _ in range(4):
        wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(x.numpy(), np.full(n, 12.0))


def test_scoped_capture_discards_on_exception():
    x = wp.zeros(4, dtype=float)
    scope = wp.ScopedCapture()
    with pytest.raises(ValueError, match="boom"):
        with scope:
            assert scope.active
            wp.launch(add_one, dim=4, inputs=[x])
            raise ValueError("boom")
    assert scope.graph is None and not scope.active
    assert not wp.get_device("cpu").is_capturing
    assert not x.numpy().any()


def test_capture_errors():
    with pytest.raises(RuntimeError, match="no graph capture is active on device 'cpu'"):
        wp.capture_end(device="cpu")
    wp.capture_begin()
    try:
        with pytest.raises(RuntimeError, match="already active on device 'cpu'"):
            wp.capture_begin()
    finally:
        wp.capture_end()
    with pytest.raises(TypeError, match="capture_launch expects a Graph"):
        wp.capture_launch("graph")
    with pytest.raises(RuntimeError, match="external=True"):
        wp.capture_begin(external=True)
    assert not wp.get_device("cpu").is_capturing


def test_pause_and_resume():
    x = wp.zeros(3, dtype=float)
    wp.capture_begin()
    wp.launch(add_one, dim=3, inputs=[x])
    partial = wp.capture_pause()
    wp.launch(add_one, dim=3, inputs=[x])  # runs now, not recorded
    np.testing.assert_array_equal(x.numpy(), [1, 1, 1])
    wp.capture_resume(partial)
    wp.launch(add_one, dim=3, inputs=[x])
    graph = wp.capture_end()
    assert graph.commands is partial.commands and len(graph) == 2
    wp.capture_launch(graph)
    np.testing.assert_array_equal(x.numpy(), [3, 3, 3])
    with pytest.raises(TypeError, match="capture_resume expects a Graph"):
        wp.capture_resume(object())


def test_graph_replayed_inside_a_capture_is_recorded():
    x = wp.zeros(2, dtype=float)
    with wp.ScopedCapture() as inner:
        wp.launch(add_one, dim=2, inputs=[x])
    with wp.ScopedCapture() as outer:
        wp.capture_launch(inner.graph)
        wp.capture_launch(inner.graph)
        wp.launch(add_one, dim=2, inputs=[x])
    assert not x.numpy().any()
    assert [c.kind for c in outer.graph.commands.commands] == ["graph", "graph", "launch"]
    wp.capture_launch(outer.graph)
    np.testing.assert_array_equal(x.numpy(), [3, 3])


def test_other_threads_are_not_captured():
    x = wp.zeros(4, dtype=float)
    y = wp.zeros(4, dtype=float)
    with wp.ScopedCapture() as capture:
        wp.launch(add_one, dim=4, inputs=[x])
        t = threading.Thread(target=lambda: wp.launch(add_one, dim=4, inputs=[y]))
        t.start()
        t.join()
    np.testing.assert_array_equal(y.numpy(), np.ones(4))  # ran in its own thread at once
    assert not x.numpy().any() and len(capture.graph) == 1


def test_graph_keeps_its_arrays_alive():
    def record() -> tuple[wp.Graph, weakref.ref, wp.array]:
        tmp = wp.array(np.arange(4, dtype=np.float32))
        out = wp.zeros(4, dtype=float)
        with wp.ScopedCapture() as capture:
            wp.launch(add_one, dim=4, inputs=[tmp])
            wp.launch(read_at, dim=4, inputs=[tmp, out, 0])
        return capture.graph, weakref.ref(tmp), out

    graph, tmp_ref, out = record()
    gc.collect()
    assert tmp_ref() is not None
    wp.capture_launch(graph)
    np.testing.assert_array_equal(out.numpy(), np.arange(4) + 1.0)
    del graph
    gc.collect()
    assert tmp_ref() is None


def test_debug_mode_bounds_errors_surface_at_replay(debug_mode):
    x = wp.zeros(4, dtype=float)
    out = wp.zeros(4, dtype=float)
    with wp.ScopedCapture() as capture:
        wp.launch(read_at, dim=4, inputs=[x, out, 1])  # x[4] is out of bounds for the last thread
    for _ in range(2):  # the error record is cleared after each report
        with pytest.raises(IndexError, match="kernel 'read_at'.*index \\(4\\) is out of range"):
            wp.capture_launch(capture.graph)
    with wp.ScopedCapture() as ok:
        wp.launch(read_at, dim=3, inputs=[x, out, 1])
    wp.capture_launch(ok.graph)


def test_force_module_load_loads_first(monkeypatch):
    import warp.modules

    loaded = []
    monkeypatch.setattr(warp.modules, "force_load", lambda device=None, modules=None: loaded.append(device))
    wp.capture_begin(force_module_load=True)
    wp.capture_end()
    assert loaded == [wp.get_device("cpu")]


@wp.kernel
def square_sum(x: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, x[i] * x[i])


@pytest.mark.skipif(not hasattr(wp, "Tape"), reason="needs warp-autodiff (wp.Tape)")
def test_tape_forward_backward_and_zero_replay():
    x = wp.array(np.array([1.0, -2.0, 3.0], dtype=np.float32), requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with wp.ScopedCapture() as capture:
        loss.zero_()
        with tape:
            wp.launch(square_sum, dim=3, inputs=[x, loss])
        tape.backward(loss=loss)
    assert not x.grad.numpy().any()
    for _ in range(2):
        tape.zero()  # runs now (outside the capture)
        wp.capture_launch(capture.graph)
        assert loss.numpy()[0] == 14.0
        np.testing.assert_array_equal(x.grad.numpy(), [2.0, -4.0, 6.0])


@pytest.mark.parametrize(
    "dtype,value",
    [
        (wp.int8, -3),
        (wp.float16, 1.5),
        (wp.float32, 2.25),
        (wp.int32, 0x01010101),  # identical bytes: a memset
        (wp.float64, -0.125),
        (wp.vec3, wp.vec3(1.0, 2.0, 3.0)),  # 12 bytes: no word view
        (wp.mat22d, wp.mat22d(1.0, 2.0, 3.0, 4.0)),
    ],
)
def test_recorded_fill_of_every_pattern_size_replays(dtype, value):
    a = wp.zeros(1000, dtype=dtype)
    expected = wp.zeros(1000, dtype=dtype)
    expected.fill_(value)
    with wp.ScopedCapture() as capture:
        a.fill_(value)
    assert not a.numpy().any()  # recorded, not run
    for _ in range(2):
        wp.capture_launch(capture.graph)
        np.testing.assert_array_equal(a.numpy(), expected.numpy())
        a.zero_()
    view = a[1:]  # an element offset (alignment of the word view) outside a capture
    view.fill_(value)
    np.testing.assert_array_equal(a.numpy()[1:], expected.numpy()[1:])
    assert not a.numpy()[0].any()
