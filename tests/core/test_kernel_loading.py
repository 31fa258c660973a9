"""Loading kernel code: a kernel whose object code cannot be linked raises an error naming it."""

from __future__ import annotations

import pytest
import warp as wp
from warp.compiler.lowering import types as lt
from warp.compiler.registry import builtin_registry

MISSING = "wp_test_symbol_nowhere_to_be_found"


def _lower_missing(ctx, args, types):
    f32 = lt.llvm_type(wp.float32)
    fn = ctx.declare(MISSING, f32, [f32])
    return ctx.builder.call(fn, list(args))


@pytest.fixture
def missing_symbol_builtin():
    """A builtin calling a C function that does not exist (removed again after the test)."""
    builtin_registry.add(
        "test_calls_missing_symbol", params={"x": wp.float32}, result=wp.float32, lower=_lower_missing,
        doc="Test only: calls a C function that does not exist.",
    )
    yield
    builtin_registry.builtins.pop("test_calls_missing_symbol", None)


def test_unloadable_kernel_names_kernel_and_location(missing_symbol_builtin):
    @wp.kernel
    def uses_missing(a: wp.array(dtype=wp.float32)):
        i = wp.tid()
        a[i] = wp.test_calls_missing_symbol(a[i])

    a = wp.zeros(4, dtype=wp.float32)
    with pytest.raises(wp.WarpCodegenError) as info:
        wp.launch(uses_missing, dim=4, inputs=[a])
    message = str(info.value)
    assert "kernel 'uses_missing'" in message
    assert f"{__file__}:" in message  # where the kernel is defined
    assert f"undefined symbols: {MISSING}" in message
    line = uses_missing.func.__code__.co_firstlineno + 3  # the line calling the builtin
    assert f"'{MISSING}' is called at {__file__}:{line}" in message
    # the failure is not cached: a second launch reports the same error again
    with pytest.raises(wp.WarpCodegenError, match="kernel 'uses_missing'"):
        wp.launch(uses_missing, dim=4, inputs=[a])
