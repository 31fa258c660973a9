"""Content hashes of kernels for the on-disk cache (sha256, never Python's ``hash()``).

A kernel's key covers: its source and the sources of every ``@wp.func`` it reaches, the values
of the constants it reads, its parameter types, the compile options, the target and CPU
features, and a fingerprint of the compiler's own code and installed plugins.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import os
import sys
import textwrap
import types
from typing import Any

import numpy as np

from warp.compiler.callables import UserFunction, UserKernel
from warp.compiler import reads_index
from warp.compiler.source import closure_of, function_file, lookup_name, read_source
from warp.compiler.frontend.type_handlers import call_hook
from warp.compiler.static_values import reads_locals, static_value
from warp.types.scalars import ScalarBase, type_repr
from warp.plugins.manager import get_plugin_manager
from warp.types.array_type import ArrayType
from warp.types.struct import StructBase
from warp.compiler.frontend.compile_time import static
from warp.compiler.frontend.builtin_names import BuiltinName

_compiler_fingerprint: str | None = None


def compiler_fingerprint() -> str:
    """Hash of the compiler's and plugins' code files (path, size, mtime): changes invalidate the cache."""
    global _compiler_fingerprint
    if _compiler_fingerprint is None:
        roots = {os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}
        for _, plugin in get_plugin_manager().list_name_plugin():
            file = getattr(plugin, "__file__", None)
            if file:
                roots.add(os.path.dirname(os.path.abspath(file)))
        h = hashlib.sha256(sys.version.encode())
        for root in sorted(roots):
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
                for name in sorted(filenames):
                    if name.endswith(".py"):
                        st = os.stat(os.path.join(dirpath, name))
                        h.update(f"{dirpath}/{name}:{st.st_size}:{st.st_mtime_ns};".encode())
        _compiler_fingerprint = h.hexdigest()
    return _compiler_fingerprint


#: Nesting depth up to which captured containers are described (deeper parts are cut off).
_MAX_DEPTH = 16


def type_key(t: Any, depth: int = 0, *, by_content: bool = False) -> str:
    """A description of type ``t`` that changes whenever its layout or meaning does.

    Structs are described field by field (name, type, offset, recursively) with their size,
    so changing a field's type in another module changes the key of every kernel using it.
    With ``by_content`` a struct is named without its module (the same declaration in two
    modules gives the same key).
    """
    if depth > _MAX_DEPTH:
        return "..."
    array_type = getattr(t, "array_type", None) if not isinstance(t, type) else None
    if isinstance(array_type, ArrayType):  # an array annotation such as wp.array(dtype=S)
        t = array_type
    if isinstance(t, ArrayType):
        return f"array({type_key(t.dtype, depth + 1, by_content=by_content)}, ndim={t.ndim})"
    if isinstance(t, type) and issubclass(t, StructBase) and t._wp_struct_error_ is not None:
        return f"unusable struct {t.__qualname__} ({t._wp_struct_error_})"  # compiling it reports the error
    if isinstance(t, type) and issubclass(t, StructBase):
        fields = ", ".join(
            f"{name}@{offset}: {type_key(ft, depth + 1, by_content=by_content)}"
            for (name, ft), offset in zip(t._fields_, t._offsets_, strict=True)
        )
        name = t.__qualname__ if by_content else f"{t.__module__}.{t.__qualname__}"
        return f"struct {name}{{{fields}}} size={t._size_in_bytes_}"
    custom = getattr(t, "_wp_hash_", None)
    if callable(custom):
        return str(custom())
    if isinstance(t, type):
        return f"{type_repr(t)} ({t.__module__}.{t.__qualname__})"
    return type_repr(t)


def value_key(obj: Any, depth: int = 0, *, by_content: bool = False) -> str | None:
    """A description of a Python value a kernel may read (None for values that cannot affect code)."""
    if depth > _MAX_DEPTH:
        return "..."
    if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes, np.generic, ScalarBase)):
        return f"{type(obj).__name__}:{obj!r}"
    inner = functools.partial(value_key, depth=depth + 1, by_content=by_content)
    if isinstance(obj, (tuple, list)):
        items = ", ".join(inner(v) or "?" for v in obj)
        return f"{type(obj).__name__}[{items}]"
    if isinstance(obj, dict):
        items = ", ".join(
            f"{inner(k)}: {inner(v)}" for k, v in sorted(obj.items(), key=repr)
        )
        return f"dict{{{items}}}"
    if isinstance(obj, np.ndarray):
        digest = hashlib.sha256(np.ascontiguousarray(obj).tobytes()).hexdigest()
        return f"ndarray({obj.dtype.str}, {obj.shape}, {digest})"
    if isinstance(obj, type) or hasattr(obj, "array_type"):
        return f"type:{type_key(obj, depth + 1, by_content=by_content)}"
    custom = getattr(type(obj), "_wp_constant_hash_", None)
    if custom is not None:
        return f"value:{custom(obj)}"
    if isinstance(obj, StructBase):
        fields = ", ".join(f"{n}={inner(getattr(obj, n))}" for n, _ in type(obj)._fields_)
        return f"{type_key(type(obj), depth + 1, by_content=by_content)}({fields})"
    return None


class _Hasher:
    def __init__(self, by_content: bool = False) -> None:
        self.h = hashlib.sha256()
        self.seen: set[int] = set()
        #: name functions and struct types without their module (see :func:`kernel_content_hash`)
        self.by_content = by_content

    def add(self, *parts: Any) -> None:
        for p in parts:
            self.h.update(str(p).encode())
            self.h.update(b"\0")

    def function(self, pyfunc: Any, transformed: Any = None) -> None:
        """Hash the source of ``pyfunc`` and what it reads; ``transformed`` (a kernel's source as
        rewritten by its code transformers) is hashed in its place where given."""
        if id(pyfunc) in self.seen:
            return
        self.seen.add(id(pyfunc))
        if transformed is not None:
            self.add("tree", _tree_text(transformed.tree))
            self._hash_reads(pyfunc, transformed, _reads(pyfunc, transformed), keep=False)
            return
        if self._remembered(pyfunc):
            return
        info = read_source(pyfunc)
        self.add("src", info.source)
        reads = _reads(pyfunc, info)
        self._hash_reads(pyfunc, info, reads, keep=True)

    def _hash_reads(self, pyfunc: Any, info: Any, reads: _Reads, keep: bool) -> None:
        """Hash what a function's source reads; ``keep``: remember it (see :mod:`.reads_index`)
        and keep its static values (see :mod:`.static_values`)."""
        for name in reads.names:
            if name not in reads.local_names:
                found, obj = info.lookup(name)
                if found:
                    self.reference(name, obj)
        for name, node in reads.attributes:
            obj = _resolve_chain(node, info)
            if obj is not _MISSING:
                self.reference(name, obj)
        if keep:
            _remember(pyfunc, info, reads)
        exprs = [call.args[0] for call in reads.statics]
        self._statics(pyfunc if keep else None, exprs, {**info.globals, **info.closure})

    def _statics(self, pyfunc: Any, exprs: list[ast.expr], namespace: dict[str, Any]) -> None:
        """Hash the value of each ``wp.static(expr)`` (evaluated once per function, see static_values;
        every time without ``pyfunc``); a constant ``expr`` is its value (a value a code transformer's
        kernel keeps in its tree, see :mod:`.frontend.code_transformers`)."""
        for expr in exprs:
            if isinstance(expr, ast.Constant):
                self.reference(f"static:{_LITERAL.get(type(expr.value), 'value')}", expr.value)
                continue
            code = compile(ast.Expression(body=expr), "<static>", "eval")
            try:
                value = static_value(pyfunc, expr, functools.partial(eval, code, namespace))
            except Exception:  # noqa: S112 - not evaluable yet: compiling it reports the error
                continue
            self.reference(f"static:{ast.unparse(expr)}", value)

    def _remembered(self, pyfunc: Any) -> bool:
        """Hash ``pyfunc`` as :meth:`function` does, from what :mod:`.reads_index` remembers of
        its source (no parse); False, having hashed nothing, where it remembers nothing usable."""
        where = _file_index(pyfunc)
        if where is None:
            return False
        file_text, digest, first = where
        reads = reads_index.lookup(digest, pyfunc.__name__, first)
        if reads is None:
            return False
        globals_ns, closure = pyfunc.__globals__, closure_of(pyfunc)
        if any((_resolve_dotted(c, globals_ns, closure) is static) != was for c, was in reads.calls):
            return False  # a callee is wp.static now and was not (or the other way): walk the tree
        self.add("src", textwrap.dedent(file_text.cut(first, reads.end)))
        for name in reads.names:
            if name not in reads.local_names:
                found, obj = lookup_name(globals_ns, closure, name)
                if found:
                    self.reference(name, obj)
        for name in reads.attributes:
            obj = _resolve_dotted(name, globals_ns, closure)
            if obj is not _MISSING:
                self.reference(name, obj)
        if reads.statics:
            self._statics(pyfunc, [_static_expr(*s) for s in reads.statics], {**globals_ns, **closure})
        return True

    def reference(self, name: str, obj: Any, depth: int = 0) -> None:
        """Hash what the kernel sees under ``name``: functions by their code, types by their layout,
        containers item by item, values (scalars, arrays, structs, vectors) by their contents."""
        if isinstance(obj, types.ModuleType):
            return  # `wp`, `math`, ...: what is used through them is hashed as an attribute chain
        if isinstance(obj, UserFunction):
            self.add("func", obj.name if self.by_content else obj.key)
            if obj.inline is not None:  # the hint changes the generated code
                self.add("inline", obj.inline)
            for overload in obj.overloads:
                self.function(overload.pyfunc)
            for custom in (*obj.custom_grads, *obj.custom_replays):  # @wp.func_grad / @wp.func_replay
                self.add("custom", custom.pyfunc.__qualname__)
                self.function(custom.pyfunc)
        elif isinstance(obj, UserKernel):
            self.add("kernel", obj.key)
        elif isinstance(obj, type) or hasattr(obj, "array_type"):
            self.add("type", name, type_key(obj, by_content=self.by_content))
        elif isinstance(obj, BuiltinName) or call_hook(obj) is not None:
            # a function (wp.types.vector) by its qualified name: its repr holds an address
            qualname = obj.__qualname__ if isinstance(obj, types.FunctionType) else None
            self.add("builtin", name, f"{obj.__module__}.{qualname}" if qualname else repr(obj))
        elif isinstance(obj, (list, tuple)) and depth < _MAX_DEPTH:  # a list of funcs indexed by wp.static
            self.add("seq", name, type(obj).__name__, len(obj))
            for i, item in enumerate(obj):
                self.reference(f"{name}[{i}]", item, depth + 1)
        elif isinstance(obj, dict) and depth < _MAX_DEPTH:
            self.add("dict", name, len(obj))
            for k in sorted(obj, key=repr):
                self.reference(f"{name}[{k!r}]", obj[k], depth + 1)
        else:
            key = value_key(obj, by_content=self.by_content)
            if key is not None:
                self.add("value", name, key)


_MISSING = object()

#: the types of Python literals (other constants of a syntax tree are values kept in it)
_LITERAL = {t: t.__name__ for t in (type(None), bool, int, float, complex, str, bytes, type(Ellipsis))}


def _tree_text(node: Any) -> str:
    """A dump of a syntax tree (as ``ast.dump``, without positions) with each non-literal constant
    (a value a code transformer's kernel keeps in its tree, hashed with what the tree reads)
    written as its type; the tree is only read (a compile may be walking it meanwhile)."""
    if isinstance(node, ast.Constant) and type(node.value) not in _LITERAL:
        return f"Constant(<{type(node.value).__module__}.{type(node.value).__qualname__}>)"
    if isinstance(node, ast.AST):
        fields = ", ".join(f"{name}={_tree_text(getattr(node, name, None))}" for name in node._fields)
        return f"{type(node).__name__}({fields})"
    if isinstance(node, list):
        return f"[{', '.join(_tree_text(item) for item in node)}]"
    return repr(node)


class _Reads:
    """What a function's source reads, from one walk of its tree (see :func:`_reads`)."""

    __slots__ = ("attributes", "calls", "local_names", "names", "statics")

    def __init__(self) -> None:
        #: the names it loads, first occurrence of each (locals among them are not free)
        self.names: list[str] = []
        #: ``(dotted name, node)`` of its attribute chains ``a.b.c`` (and ``a.b``), first of each
        self.attributes: list[tuple[str, ast.Attribute]] = []
        #: parameters and assigned names: the function's own (a global of the same name is not read)
        self.local_names: set[str] = set()
        #: outermost ``wp.static(expr)`` calls whose ``expr`` reads no local variable: their value
        #: is hashed, and the names inside them are not read again (a property getter runs once)
        self.statics: list[ast.Call] = []
        #: dotted callees of the one-argument calls outside statics, and whether each is wp.static
        self.calls: list[tuple[str, bool]] = []


_OUTSIDE, _BELOW_STATIC, _INSIDE_STATIC = 0, 1, 2


def _dotted(node: ast.Attribute) -> str | None:
    """``"a.b.c"`` for an attribute chain of a name, else None (the chain resolves to nothing)."""
    parts = [node.attr]
    cur = node.value
    while isinstance(cur, ast.Attribute):
        parts.append(cur.attr)
        cur = cur.value
    if not isinstance(cur, ast.Name):
        return None
    parts.append(cur.id)
    return ".".join(reversed(parts))


def _reads(pyfunc: Any, info: Any) -> _Reads:
    """Walk ``info.tree`` once: the names, attribute chains and ``wp.static`` calls it reads.

    ``wp.static`` calls nested in another are part of the outer one; the arguments of hashed
    statics are only searched for local names (assignments inside them are still locals).
    """
    out = _Reads()
    seen_names: set[str] = set()
    seen_attributes: set[str] = set()
    static = _static()
    todo: list[tuple[ast.AST, int]] = [(info.tree, _OUTSIDE)]
    while todo:
        node, where = todo.pop()
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Store):
                out.local_names.add(node.id)
            elif where != _INSIDE_STATIC and isinstance(node.ctx, ast.Load) and node.id not in seen_names:
                seen_names.add(node.id)
                out.names.append(node.id)
            continue
        if isinstance(node, ast.arg):
            out.local_names.add(node.arg)
        elif isinstance(node, ast.Attribute) and where != _INSIDE_STATIC:
            name = _dotted(node)
            if name is not None and name not in seen_attributes:
                seen_attributes.add(name)
                out.attributes.append((name, node))
        elif isinstance(node, ast.Call) and where == _OUTSIDE and len(node.args) == 1 and not node.keywords:
            callee = _callee_name(node)
            is_static = _resolve_call(node, info) is static
            if callee is not None:
                out.calls.append((callee, is_static))
            if not is_static:
                pass
            elif reads_locals(pyfunc, node.args[0]):
                where = _BELOW_STATIC  # hashed through the names it reads; no static inside counts
            else:
                out.statics.append(node)
                todo.append((node.func, where))
                todo.append((node.args[0], _INSIDE_STATIC))
                continue
        for field in node._fields:
            child = getattr(node, field, None)
            if isinstance(child, ast.AST):
                todo.append((child, where))
            elif isinstance(child, list):
                todo.extend((c, where) for c in child if isinstance(c, ast.AST))
    return out


def _callee_name(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return _dotted(node.func)
    return None


def _file_index(pyfunc: Any) -> tuple[Any, str, int] | None:
    """(text of the file, its index digest, first line) of a function cut from a source file."""
    code = getattr(pyfunc, "__code__", None)
    where = function_file(pyfunc) if code is not None else None
    if where is None:
        return None
    file_text = where[1]
    assert code is not None  # where is None without it
    return file_text, reads_index.file_digest(file_text.digest(), compiler_fingerprint()), code.co_firstlineno


def _remember(pyfunc: Any, info: Any, reads: _Reads) -> None:
    """Keep what ``pyfunc`` reads (see :mod:`.reads_index`) where its source is its file's text."""
    where = _file_index(pyfunc)
    if where is None:
        return
    file_text, digest, first = where
    end = file_text.end_line(pyfunc.__name__, first)
    if end is None or first != info.first_line or textwrap.dedent(file_text.cut(first, end)) != info.source:
        return  # read through inspect (no extent in the file): nothing to cut it from next time
    reads_index.remember(
        digest,
        pyfunc.__name__,
        first,
        reads_index.FunctionReads(
            end=end,
            names=tuple(reads.names),
            local_names=frozenset(reads.local_names),
            attributes=tuple(name for name, _ in reads.attributes),
            calls=tuple(reads.calls),
            statics=tuple(_static_entry(call.args[0]) for call in reads.statics),
        ),
    )


def _static_entry(expr: ast.expr) -> tuple[str, int, int, int, int]:
    """A ``wp.static`` argument as remembered: its text and its position in the function's source."""
    return (ast.unparse(expr), expr.lineno, expr.col_offset, expr.end_lineno or 0, expr.end_col_offset or 0)


def _static_expr(text: str, lineno: int, col: int, end_lineno: int, end_col: int) -> ast.expr:
    """The remembered ``wp.static`` argument back as a node at its place in the source (where
    :func:`~warp.compiler.static_values.static_value` keeps its value)."""
    expr = ast.parse(text, mode="eval").body
    expr.lineno, expr.col_offset, expr.end_lineno, expr.end_col_offset = lineno, col, end_lineno, end_col
    return expr


def _resolve_dotted(dotted: str, globals_ns: dict[str, Any], closure: dict[str, Any]) -> Any:
    """The object a dotted chain ``a.b.c`` of a free name refers to (see :func:`_resolve_chain`)."""
    head, *attrs = dotted.split(".")
    found, obj = lookup_name(globals_ns, closure, head)
    if not found:
        return _MISSING
    for attr in attrs:
        try:
            obj = getattr(obj, attr)
        except Exception:  # noqa: BLE001 - the frontend reports it; the hash just stops here
            return _MISSING
    return obj


def _static() -> Any:
    return static


def _resolve_call(node: ast.Call, info: Any) -> Any:
    """The object a call's callee names (``wp.static``), or _MISSING."""
    if isinstance(node.func, ast.Name):
        found, obj = info.lookup(node.func.id)
        return obj if found else _MISSING
    if isinstance(node.func, ast.Attribute):
        return _resolve_chain(node.func, info)
    return _MISSING


def _resolve_chain(node: ast.Attribute, info: Any) -> Any:
    """The object an attribute chain ``a.b.c`` of global names refers to (as the frontend sees it)."""
    parts = []
    cur: ast.AST = node
    while isinstance(cur, ast.Attribute):
        parts.append(cur.attr)
        cur = cur.value
    if not isinstance(cur, ast.Name):
        return _MISSING
    found, obj = info.lookup(cur.id)
    if not found:
        return _MISSING
    for attr in reversed(parts):
        try:
            obj = getattr(obj, attr)
        except Exception:  # noqa: BLE001 - the frontend reports it; the hash just stops here
            return _MISSING
    return obj


def kernel_hash(kernel: Any, options: Any, target_fingerprint: str) -> str:
    """The cache key of ``kernel`` compiled with ``options`` (a ``CompileOptions``) for the device
    described by ``target_fingerprint`` (the target's :meth:`~warp.targets.base.Target.fingerprint`)."""
    hasher = _Hasher()
    hasher.add("warp-kernel-v2", kernel.key, target_fingerprint, options.cache_items())
    hasher.add("types", [type_key(t) for t in kernel.arg_types])
    returns = kernel.overload.return_annotation  # resolved: `-> Ret` depends on what Ret is
    if returns not in (None, type(None)):
        hasher.add("returns", type_key(returns))  # refused when compiled: never a cache hit
    hasher.function(kernel.func, kernel.overload.transformed)
    hasher.add("compiler", compiler_fingerprint())
    return hasher.h.hexdigest()


def kernel_content_hash(kernel: Any, options: dict[str, Any]) -> str:
    """A hash of what ``kernel`` compiles from, for no particular device: its key, parameter
    types, code (with the functions, types and constants it reaches) and the module ``options``.
    Functions and struct types enter by name and content, not by module or identity: the same
    code in two modules, or an unchanged struct redefined, gives the same hash."""
    hasher = _Hasher(by_content=True)
    hasher.add("warp-kernel-content-v1", kernel.key, sorted((str(k), repr(v)) for k, v in options.items()))
    hasher.add("types", [type_key(t, by_content=True) for t in kernel.arg_types])
    hasher.function(kernel.func, kernel.overload.transformed)
    return hasher.h.hexdigest()
