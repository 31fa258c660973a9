"""The ``warp_record_launch`` hook: objects registered with the plugin manager see forward launches."""

from __future__ import annotations

import numpy as np
import warp as wp
from warp.plugins import get_plugin_manager, hookimpl
from warp.plugins.manager import records_launches


@wp.kernel
def double(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 2.0 * x[i]


class Recorder:
    def __init__(self) -> None:
        self.seen: list[tuple] = []

    @hookimpl
    def warp_record_launch(self, kernel, dim, inputs, outputs, device):
        self.seen.append((kernel, dim, list(inputs), list(outputs), device))


def test_a_registered_recorder_sees_forward_launches_only():
    x = wp.array(np.arange(4, dtype=np.float32), device="cpu")
    y = wp.zeros(4, dtype=float, device="cpu")
    recorder = Recorder()
    pm = get_plugin_manager()
    assert not records_launches()
    pm.register(recorder)
    try:
        assert records_launches()
        wp.launch(double, dim=4, inputs=[x], outputs=[y], device="cpu")
        wp.launch(double, dim=4, inputs=[x, y], device="cpu", record_tape=False)
    finally:
        pm.unregister(recorder)
    assert not records_launches()
    wp.launch(double, dim=4, inputs=[x, y], device="cpu")
    assert len(recorder.seen) == 1
    kernel, dim, inputs, outputs, device = recorder.seen[0]
    assert kernel is double and dim == 4 and inputs[0] is x and outputs[0] is y
    assert device == wp.get_device("cpu")
    np.testing.assert_allclose(y.numpy(), 2.0 * np.arange(4))


def test_a_tape_records_through_the_hook_only_while_active():
    x = wp.array(np.arange(3, dtype=np.float32), device="cpu", requires_grad=True)
    y = wp.zeros(3, dtype=float, device="cpu", requires_grad=True)
    tape = wp.Tape()
    with tape:
        assert records_launches()
        wp.launch(double, dim=3, inputs=[x], outputs=[y], device="cpu")
    assert not records_launches()
    wp.launch(double, dim=3, inputs=[x], outputs=[y], device="cpu")
    assert len(tape.launches) == 1
    tape.backward(grads={y: wp.array(np.ones(3, dtype=np.float32), device="cpu")})
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0, 2.0])
