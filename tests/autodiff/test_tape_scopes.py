"""Tape scope markers and struct arguments in ``Tape.gradients``."""

import numpy as np
import pytest

import warp as wp


def test_scope_markers_of_nonempty_scopes():
    tape = wp.Tape()
    tape.record_scope_begin("outer")
    tape.record_scope_begin("inner", metadata={"k": 1})
    tape.launches.append(lambda: None)
    tape.record_scope_end()
    tape.record_scope_end()
    assert tape.scopes == [(0, "outer", {}), (0, "inner", {"k": 1}), (1, None, None), (1, None, None)]


def test_empty_scopes_are_removed_unless_asked_to_keep_them():
    tape = wp.Tape()
    tape.record_scope_begin("outer")
    tape.record_scope_begin("inner")
    tape.record_scope_end()
    tape.record_scope_end()
    assert tape.scopes == []
    tape.record_scope_begin("kept")
    tape.record_scope_end(remove_scope_if_empty=False)
    assert tape.scopes == [(0, "kept", {}), (0, None, None)]


def test_ending_a_scope_that_is_not_open_raises():
    tape = wp.Tape()
    with pytest.raises(RuntimeError, match="ended tape scope, but scope not present"):
        tape.record_scope_end()
    tape.record_scope_begin("s")
    tape.launches.append(lambda: None)
    tape.record_scope_end()
    with pytest.raises(RuntimeError, match="ended tape scope, but scope not present"):
        tape.record_scope_end()


@wp.struct
class _Pair:
    x: wp.array(dtype=float)
    y: wp.array(dtype=float)


@wp.kernel
def _mul(p: _Pair, z: wp.array(dtype=float)):
    i = wp.tid()
    z[i] = p.x[i] * p.y[i]


def test_struct_argument_gradients_are_keyed_by_the_struct():
    p = _Pair()
    p.x = wp.array(np.array([1.0, 2.0, 3.0], dtype=np.float32), requires_grad=True)
    p.y = wp.array(np.array([4.0, 5.0, 6.0], dtype=np.float32), requires_grad=True)
    z = wp.zeros(3, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_mul, dim=3, inputs=[p], outputs=[z])
    tape.backward(grads={z: wp.ones_like(z)})
    np.testing.assert_array_equal(tape.gradients[p].x.numpy(), [4.0, 5.0, 6.0])  # d(xy)/dx = y
    np.testing.assert_array_equal(tape.gradients[p].y.numpy(), [1.0, 2.0, 3.0])
    tape.reset()
    np.testing.assert_array_equal(tape.gradients[p].x.numpy(), np.zeros(3))
    assert p != _Pair() and p == p  # structs compare by identity
