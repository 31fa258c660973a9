"""A builtin called with arguments none of its overloads accepts: the error is a TypeError and a
RuntimeError (as NVIDIA Warp raises it), says so in Warp's words, and lists the candidates."""

from __future__ import annotations

import pytest

import warp as wp


@pytest.mark.parametrize("value", [wp.float32(0.0), wp.float64(0.0), wp.bool(False), wp.vec2i(0, 0)])
def test_python_scope(value):
    message = "Couldn't find a function 'bit_count' compatible with the arguments"
    for error in (TypeError, RuntimeError):
        with pytest.raises(error, match=message) as e:
            wp.bit_count(value)
        assert "(x: uint64) -> int32" in str(e.value)
    assert wp.bit_count(wp.uint16(0xFFFF)) == 16


def test_kernel_scope():
    @wp.kernel(module="unique")
    def count_float(value: wp.float32, counts: wp.array(dtype=wp.int32)):
        counts[0] = wp.bit_count(value)

    counts = wp.zeros(1, dtype=wp.int32)
    with pytest.raises(wp.WarpCodegenTypeError, match="Couldn't find function overload for 'bit_count'") as e:
        wp.launch(count_float, dim=1, inputs=[1.5, counts])
    assert isinstance(e.value, RuntimeError)
    assert "no overload of 'bit_count' accepts arguments (float32)" in str(e.value)
