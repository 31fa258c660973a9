"""@wp.struct with a field whose type is not a warp type: definable, unusable where a layout is needed."""

from __future__ import annotations

import pytest

import warp as wp


class _NotAWarpType:
    """An annotation object that is not a type (e.g. a stand-in for a missing optional feature)."""


@wp.struct
class HasBadField:
    s: _NotAWarpType()  # type: ignore[valid-type]
    x: float


@wp.struct
class HoldsBadStruct:
    inner: HasBadField
    y: int


@wp.kernel
def takes_bad(c: HoldsBadStruct):
    wp.tid()


def test_definition_and_python_instances_work():
    c = HoldsBadStruct()
    assert c.inner.s is None
    assert c.inner.x == 0.0
    c.y = 3
    assert c.y == 3


def test_assigning_the_bad_field_names_it():
    with pytest.raises(TypeError, match="field 's' of struct HasBadField has unsupported type"):
        HasBadField().s = 1


def test_layout_raises_naming_the_field():
    with pytest.raises(TypeError, match="field 's' of struct HasBadField has unsupported type"):
        _ = HasBadField._size_in_bytes_
    with pytest.raises(TypeError, match="field 'inner' of struct HoldsBadStruct: field 's' of struct"):
        _ = HoldsBadStruct._offsets_


def test_launch_raises_naming_the_field():
    with pytest.raises(TypeError, match="field 's' of struct HasBadField has unsupported type"):
        wp.launch(takes_bad, dim=1, inputs=[HoldsBadStruct()], device="cpu")


def test_valid_struct_unaffected():
    @wp.struct
    class Good:
        a: wp.int8
        b: float

    assert Good._offsets_ == [0, 4]
    assert Good._size_in_bytes_ == 8
    with pytest.raises(AttributeError):
        _ = Good._no_such_attribute_
