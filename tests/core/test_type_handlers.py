"""The compiler's tables of kernel behaviour keyed by a type's kind (warp.types.kinds,
warp.compiler.frontend.type_handlers, warp.compiler.lowering.types), which replaced the
compiler hooks that the core type classes used to carry."""

from __future__ import annotations

from typing import Any

import llvmlite.ir as ir
import numpy as np
import pytest

import warp as wp
from warp.compiler.frontend.type_handlers import KIND_HANDLERS, call_hook, type_hook
from warp.compiler.lowering import types as lt
from warp.compiler.lowering.context import LowerContext
from warp.types import kinds
from warp.types.patterns import TypeVar, match_type
from warp.types.protocol import is_kernel_type


@wp.struct
class Pair:
    a: wp.float32
    b: wp.int32


@wp.kernel
def pair_kernel(out: wp.array(dtype=wp.float32), p: Pair):
    q = Pair()
    q.a = p.a * 2.0
    v = wp.vec3(1.0, 2.0, 3.0)
    v[1] = q.a
    m = wp.mat22(1.0, 2.0, 3.0, 4.0)
    total = float(0.0)
    for c in v:
        total += c
    out[0] = total + m[1, 0] + float(p.b)


def test_kinds_name_the_core_types():
    assert kinds.kind_of(wp.vec3) == kinds.VECTOR and kinds.kind_of(wp.mat33) == kinds.MATRIX
    assert kinds.kind_of(wp.quat) == kinds.QUATERNION and kinds.kind_of(wp.transform) == kinds.TRANSFORM
    assert kinds.kind_of(Pair) == kinds.STRUCT
    assert kinds.kind_of(wp.float32) == "" and kinds.kind_of(int) == ""
    assert all(kinds.is_core_kind(t) for t in (wp.vec3, wp.mat22d, wp.quatf, wp.transformd, Pair))
    assert not kinds.is_core_kind(wp.float32) and not kinds.is_core_kind(wp.types.vector(length=3, dtype=Any))
    assert set(KIND_HANDLERS) == set(kinds.CORE_KINDS)


def test_core_types_carry_no_compiler_hooks_yet_are_kernel_types():
    for t in (wp.vec3, wp.mat33, Pair):
        for member in ("_wp_llvm_type_", "_wp_call_", "_wp_getattr_", "_wp_getitem_", "_wp_print_"):
            assert not hasattr(t, member), (t, member)
        assert is_kernel_type(t)
    assert not is_kernel_type(int)


def test_type_hook_takes_the_table_and_lets_a_type_own_hook_win():
    assert type_hook(wp.vec3, "getitem") is not None and type_hook(wp.vec3, "iterate") is not None
    assert type_hook(Pair, "getattr") is not None and type_hook(Pair, "iterate") is None
    assert type_hook(wp.float32, "getitem") is None and type_hook(None, "getattr") is None

    @wp.struct
    class Iterable:
        n: wp.int32

    def own(builder, value, node):  # a plugin's hook on a struct (as warp-geometry's queries)
        return "own"

    Iterable._wp_iterate_ = own
    assert type_hook(Iterable, "iterate") is own
    assert call_hook(Pair) is not None and call_hook(wp.types.vector) is not None
    assert call_hook(np.float32) is None and call_hook([1]) is None  # unhashable: no form


def test_llvm_forms_of_the_core_kinds():
    assert str(lt.llvm_type(wp.vec3)) == "[3 x float]"
    assert str(lt.llvm_type(wp.mat22d)) == "[2 x [2 x double]]"
    assert str(lt.llvm_type(Pair)) == "{float, i32}"
    const = lt.constant(wp.mat22, (1.0, 2.0, 3.0, 4.0))
    assert isinstance(const, ir.Constant) and "3.0" in str(const).replace("0x4008000000000000", "3.0")
    instance = Pair()
    instance.a, instance.b = 1.5, 7
    assert str(lt.constant(Pair, instance)) == "{float, i32} {float 0x3ff8000000000000, i32 7}"
    assert str(lt.constant(Pair, None)) == "{float, i32} zeroinitializer"


def test_composite_patterns_match_through_the_type_layer():
    t = TypeVar("T", wp.types.Float)
    bindings: dict = {}
    assert match_type(wp.types.VectorOf(3, t), wp.vec3d, bindings) and bindings["T"] is wp.float64
    assert not match_type(wp.types.VectorOf(3, t), wp.vec3f, bindings)  # T is bound to float64
    assert not match_type(wp.types.MatrixOf(2, 2), wp.vec4, {})


def test_lower_context_op_outside_an_op_is_an_error():
    ctx = LowerContext.__new__(LowerContext)
    ctx.current_op = None
    with pytest.raises(RuntimeError, match="no IR op is being lowered"):
        ctx.op  # noqa: B018


@pytest.mark.needs_plugin("builtins")
def test_kernels_use_the_tables_for_structs_vectors_and_matrices():
    out = wp.zeros(1, dtype=wp.float32)
    p = Pair()
    p.a, p.b = 2.5, 4
    wp.launch(pair_kernel, dim=1, inputs=[out, p])
    v = np.array([1.0, 2.5 * 2.0, 3.0])
    assert out.numpy()[0] == pytest.approx(v.sum() + 3.0 + 4.0)
