"""Every ``_wp_*_`` attribute the packages use is a member declared in :mod:`warp.types.protocol`."""

from __future__ import annotations

import re
from pathlib import Path

from warp.types import protocol

ROOT = Path(__file__).resolve().parents[2]
#: an attribute or name ``_wp_<word>_`` (LLVM symbol prefixes such as ``__wp_late_`` are not attributes)
_MEMBER = re.compile(r"(?<![\w])_wp_[a-z0-9_]*[a-z0-9]_(?![\w])")


def _used_members() -> dict[str, str]:
    used: dict[str, str] = {}
    for path in sorted((ROOT / "packages").glob("*/src/**/*.py")):
        for name in _MEMBER.findall(path.read_text(encoding="utf-8")):
            used.setdefault(name, str(path.relative_to(ROOT)))
    return used


def test_every_wp_member_is_declared_in_the_protocol():
    used = _used_members()
    assert "_wp_scalar_type_" in used and "_wp_llvm_type_" in used  # the scan finds what it should
    undeclared = {name: where for name, where in used.items() if name not in protocol.PROTOCOL_MEMBERS}
    assert not undeclared, f"_wp_*_ members missing from warp.types.protocol: {undeclared}"


def test_every_declared_member_is_documented():
    doc = protocol.__doc__ or ""
    assert [name for name in sorted(protocol.PROTOCOL_MEMBERS) if f"``{name}" not in doc] == []
