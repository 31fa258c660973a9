"""Fuse ``sin(x)`` and ``cos(x)`` of the same value into one libdevice ``sincos`` call.

libdevice's ``__nv_sincosf`` / ``__nv_sincos`` compute both from one argument reduction, which is
most of the cost of each; LLVM does not merge ``__nv_sinf`` and ``__nv_cosf`` calls itself
(CUDA C compilers do). :func:`fuse_sincos` rewrites the module text before it is parsed: where a
basic block calls ``__nv_sin[f]`` and ``__nv_cos[f]`` on the same SSA value (or constant), the
first of the two calls becomes a call of a small ``alwaysinline`` wrapper returning both results,
and the second reads its half. Other calls are left as they are.
"""

from __future__ import annotations

import re

#: ``%r = call [flags] float @"__nv_sinf"(float %x)``: groups result, type, function, argument
_CALL = re.compile(
    r'^\s*(%"?[\w.$-]+"?) = (?:tail )?call (?:[a-z]+ )*(float|double) @"?__nv_(sin|cos)f?"?'
    r'\((?:float|double) ([^,()]+)\)\s*$'
)
#: a basic block label (``name:`` or ``"name":``, optionally followed by a comment)
_LABEL = re.compile(r'^"?[\w.$-]+"?:')

_WRAPPERS = {
    "float": "__wp_sincosf",
    "double": "__wp_sincos",
}
_LIBDEVICE = {"float": "__nv_sincosf", "double": "__nv_sincos"}


def _wrapper(ty: str, declare: bool) -> str:
    """The wrapper returning ``{sin, cos}`` of type ``ty``, and (``declare``) libdevice's function."""
    name, callee = _WRAPPERS[ty], _LIBDEVICE[ty]
    pair = f"{{{ty}, {ty}}}"
    return (
        f'define internal {pair} @"{name}"({ty} %"x") alwaysinline nounwind {{\n'
        f'entry:\n'
        f'  %"s" = alloca {ty}\n'
        f'  %"c" = alloca {ty}\n'
        f'  call void @"{callee}"({ty} %"x", ptr %"s", ptr %"c")\n'
        f'  %"sv" = load {ty}, ptr %"s"\n'
        f'  %"cv" = load {ty}, ptr %"c"\n'
        f'  %"r0" = insertvalue {pair} undef, {ty} %"sv", 0\n'
        f'  %"r1" = insertvalue {pair} %"r0", {ty} %"cv", 1\n'
        f'  ret {pair} %"r1"\n'
        f'}}\n'
    ) + (f'declare void @"{callee}"({ty}, ptr, ptr)\n' if declare else "")


def fuse_sincos(llvm_ir: str) -> str:
    """``llvm_ir`` with each same-block pair of ``__nv_sin[f](x)`` / ``__nv_cos[f](x)`` calls made
    one ``__nv_sincos[f](x)`` call (the text unchanged when there is none)."""
    if "__nv_sin" not in llvm_ir or "__nv_cos" not in llvm_ir:
        return llvm_ir
    lines = llvm_ir.split("\n")
    block = 0
    first: dict[tuple[int, str, str], tuple[int, str, str]] = {}  # (block, type, arg) -> (line, kind, result)
    pairs: list[tuple[int, int, str, str, str]] = []  # (first line, second line, type, arg, first kind)
    for k, line in enumerate(lines):
        if line.startswith("define ") or _LABEL.match(line):
            block += 1
            continue
        m = _CALL.match(line)
        if m is None:
            continue
        result, ty, kind, arg = m.group(1), m.group(2), m.group(3), m.group(4).strip()
        key = (block, ty, arg)
        seen = first.get(key)
        if seen is None:
            first[key] = (k, kind, result)
        elif seen[1] != kind and seen[0] >= 0:
            pairs.append((seen[0], k, ty, arg, seen[1]))
            first[key] = (-1, "", "")  # paired: later calls on the same value stay as they are
    if not pairs:
        return llvm_ir
    used: set[str] = set()
    for n, (a, b, ty, arg, kind) in enumerate(pairs):
        pair = f"{{{ty}, {ty}}}"
        fused = f'%"wp.sincos.{n}"'
        first_result = _CALL.match(lines[a]).group(1)  # type: ignore[union-attr]
        second_result = _CALL.match(lines[b]).group(1)  # type: ignore[union-attr]
        first_index, second_index = (0, 1) if kind == "sin" else (1, 0)
        lines[a] = (
            f'  {fused} = call {pair} @"{_WRAPPERS[ty]}"({ty} {arg})\n'
            f"  {first_result} = extractvalue {pair} {fused}, {first_index}"
        )
        lines[b] = f"  {second_result} = extractvalue {pair} {fused}, {second_index}"
        used.add(ty)
    declared = set(re.findall(r'^declare [^\n]*@"?(__nv_sincosf?)"?\(', llvm_ir, re.M))
    wrappers = "".join(_wrapper(ty, _LIBDEVICE[ty] not in declared) for ty in sorted(used))
    return "\n".join(lines) + "\n" + wrappers
