"""Kernel builtins called from Python scope: ``wp.sin(1.0)``, ``wp.dot(a, b)``, ``wp.normalize(v)``.

One mechanism serves every builtin of the registry: the call's argument types select an overload
exactly as in a kernel (a Python ``float`` is a ``float32`` literal, an ``int`` an ``int32``
literal, a ``bool`` a ``bool``; warp scalars, NumPy scalars and vector/matrix/quaternion/transform
values keep their types), and a native shim compiled from that overload's kernel lowering
(:mod:`warp.compiler.python_shim`) computes the result, so values are the kernel's bit for bit.
Shims are cached on disk with the kernels and in memory per (builtin, argument types): a warm call
costs one dictionary lookup, one ``struct.pack`` and one ctypes call.

Results: a scalar comes back as a Python ``float``/``int``/``bool`` (holding the value of the
result type, e.g. float32-rounded), composites as instances of their warp type, several results
as a tuple. Builtins that need a kernel launch (``wp.tid``), touch arrays (atomics, array access)
or have side effects other than printing (``wp.expect_eq`` prints as in a kernel) raise a
``TypeError`` saying so.
"""

from __future__ import annotations

import ctypes
import struct
import threading
from typing import Any, Callable

import numpy as np

from warp.compiler.frontend.builtin_names import BuiltinName
from warp.compiler.registry import Resolution, builtin_registry
from warp.errors import BuiltinArgumentError
from warp.types import bfloat16_bits
from warp.types.composite_values import CompositeBase
from warp.types.scalars import ScalarBase, bfloat16, float32, int32, is_scalar_type, type_repr
from warp.types.scalars import bool as wp_bool
from warp.types.scalars import dtype_from_numpy
from warp.runtime.python_shims import load_shim
from warp.compiler.python_shim import returns_by_value, slots
from warp.types.scalars import _coerce

#: Builtins that read the launch (thread index, block size): meaningless outside a kernel.
NEEDS_LAUNCH = frozenset({"tid", "block_dim"})

_RESTYPES = {
    ("bool", 8): ctypes.c_bool,
    ("int", 8): ctypes.c_int8, ("int", 16): ctypes.c_int16,
    ("int", 32): ctypes.c_int32, ("int", 64): ctypes.c_int64,
    ("uint", 8): ctypes.c_uint8, ("uint", 16): ctypes.c_uint16, ("uint", 32): ctypes.c_uint32,
    ("uint", 64): ctypes.c_uint64,
    ("float", 32): ctypes.c_float, ("float", 64): ctypes.c_double,
}

_PYTHON_TYPES = {float: float32, int: int32, bool: wp_bool}


def python_arg_type(value: Any) -> tuple[Any, bool]:
    """(warp type, is a weak literal) of a Python-scope argument; raises TypeError if it has none."""
    cls = type(value)
    t = _PYTHON_TYPES.get(cls)
    if t is not None:
        return t, cls is not bool
    if issubclass(cls, (ScalarBase, CompositeBase)):
        return cls, False
    if isinstance(value, np.generic):
        return dtype_from_numpy(value.dtype), False
    raise TypeError(f"{type(value).__name__} is not a warp value")


class PythonBuiltin(BuiltinName):
    """A kernel builtin that is also callable from Python scope (what ``wp.<builtin>`` returns)."""

    __slots__ = ("_calls", "_lock")

    def __init__(self, name: str):
        super().__init__(name)
        self._calls: dict[Any, Callable[[tuple], Any]] = {}
        self._lock = threading.Lock()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            args = self._positional(args, kwargs)
        key = tuple(map(type, args))
        call = self._calls.get(key)
        if call is None:
            call = self._prepare(key, args)
        return call(args)

    def _positional(self, args: tuple, kwargs: dict[str, Any]) -> tuple:
        """Arguments in parameter order, using the parameter names of the builtin's overloads."""
        builtin = builtin_registry.get(self.name)
        seen = set()
        for overload in builtin.overloads if builtin else ():
            names = [n for n, _ in overload.params]
            if tuple(names) in seen:
                continue
            seen.add(tuple(names))
            given = dict(zip(names, args))
            if len(args) > len(names) or any(k not in names or k in given for k in kwargs):
                continue
            given.update(kwargs)
            if all(n in given for n in names):
                return tuple(given[n] for n in names)
        raise TypeError(
            f"wp.{self.name}() got unexpected keyword arguments {sorted(kwargs)} for the arguments given "
            f"(parameters: {'; '.join(', '.join(n) for n in sorted(seen)) or 'none'})"
        )

    def _prepare(self, key: Any, args: tuple) -> Callable[[tuple], Any]:
        with self._lock:
            call = self._calls.get(key)
            if call is None:
                call = _make_call(self.name, args)
                self._calls[key] = call
        return call


def _not_in_python(name: str, why: str) -> TypeError:
    return TypeError(
        f"wp.{name} is a kernel builtin: call it inside a @wp.kernel or @wp.func ({why}, so it cannot "
        "be called from Python scope)"
    )


def _resolve(name: str, args: tuple) -> Resolution:
    if name in NEEDS_LAUNCH:
        raise _not_in_python(name, "it reads the launch of a kernel")
    builtin = builtin_registry.get(name)
    if builtin is None:
        raise AttributeError(f"module 'warp' has no attribute '{name}'")
    if not any(o.export for o in builtin.overloads):
        raise _not_in_python(name, "it is a kernel-only builtin")
    types, weak = [], []
    for i, a in enumerate(args):
        try:
            t, w = python_arg_type(a)
        except TypeError:
            if getattr(a, "is_array_type", False) or hasattr(a, "_array_type") or isinstance(a, np.ndarray):
                raise _not_in_python(name, "it takes arrays") from None
            raise TypeError(
                f"wp.{name}(): argument {i + 1} is a {type(a).__name__}; builtins called from Python take "
                "Python numbers, warp scalars and warp vector/matrix/quaternion/transform values"
            ) from None
        types.append(t)
        weak.append(w)
    resolution = builtin_registry.resolve(name, types, weak) or _resolve_literals(builtin, types, weak)
    if resolution is None:
        if all(o.side_effects and not o.prints_only for o in builtin.overloads):
            raise _not_in_python(name, "it has side effects")
        got = ", ".join(type_repr(t) for t in types) or "no arguments"
        options = "\n      ".join(o.signature() for o in builtin.overloads[:8])
        more = "" if len(builtin.overloads) <= 8 else f"\n      ... {len(builtin.overloads) - 8} more"
        raise BuiltinArgumentError(
            f"Couldn't find a function '{name}' compatible with the arguments '{got}': "
            f"no overload of wp.{name} accepts arguments ({got}) (Python float is float32, int is int32; "
            f"warp does not convert between numeric types implicitly)\n    candidates:\n      {options}{more}"
        )
    overload = resolution.overload
    if overload.side_effects and not overload.prints_only:
        raise _not_in_python(name, "it has side effects")
    if not overload.export:
        raise _not_in_python(name, "it is a kernel-only builtin")
    if any(getattr(t, "is_array_type", False) for t in resolution.arg_types):
        raise _not_in_python(name, "it takes arrays")
    return resolution


def _resolve_literals(builtin: Any, types: list[Any], weak: list[bool]) -> Resolution | None:
    """Python numbers as literals of any width: an ``int`` may be passed for a ``uint32`` parameter
    (``wp.randf(wp.rand_init(42))``), a ``float`` for a ``float64`` one, as literals in kernels may."""
    if not any(weak):
        return None
    for overload in builtin.overloads:
        if overload.variadic or len(overload.params) != len(types):
            continue
        candidate = [
            p if w and is_scalar_type(p) and _same_family(t, p) else t
            for t, w, (_, p) in zip(types, weak, overload.params)
        ]
        bindings = overload.bind(candidate)
        if bindings is not None:
            return Resolution(overload, candidate, overload.result_type(candidate, bindings))
    return None


def _same_family(literal: Any, param: Any) -> bool:
    kinds = {"float": ("float",), "int": ("int", "uint")}.get(literal._kind_, ())
    return param._kind_ in kinds


def _make_call(name: str, args: tuple) -> Callable[[tuple], Any]:
    """Compile (or load) the shim of the overload these arguments select; return its caller."""
    resolution = _resolve(name, args)
    shim = load_shim(name, resolution)
    call = _generate_caller(name, resolution, shim.function, shim.result_types)
    call.shim = shim  # type: ignore[attr-defined]  # keeps the loaded code alive as long as the caller
    return call


def _generate_caller(
    name: str, resolution: Resolution, fn: Any, result_types: list[Any]
) -> Callable[[tuple], Any]:
    """A function ``call(args)`` packing ``args`` for ``fn`` and converting its results."""
    arg_types = resolution.arg_types
    n = len(arg_types)
    env: dict[str, Any] = {"fn": fn, "frombuffer": np.frombuffer}
    fmt, fields = "<", []
    for i, (t, slot) in enumerate(zip(arg_types, slots(arg_types))):
        if is_scalar_type(t):
            fmt += slot.format
            fields.append(f"bits(a{i})" if t is bfloat16 else f"a{i}")
        else:
            fmt += f"{t._size_in_bytes_}s" + "x" * (slot.size - t._size_in_bytes_)
            env[f"T{i}"] = t
            fields.append(f"a{i}._data.tobytes()" if t._wp_scalar_type_ is not bfloat16 else
                          f"to_bits(a{i}._data).tobytes()")
    env["bits"] = _bfloat16_bits_of
    env["to_bits"] = bfloat16_bits.to_bits
    env["from_bits"] = bfloat16_bits.from_bits
    packer = struct.Struct(fmt)
    env["pack"] = packer.pack
    env["checked_pack"] = _checked_packer(name, arg_types, packer)
    unpack = f"    {''.join(f'a{i}, ' for i in range(n))}= args" if n else "    pass"
    lines = [
        "def call(args):",
        unpack,
        "    try:",
        f"        buf = pack({', '.join(fields)})",
        "    except Exception:",
        "        buf = checked_pack(args)",
    ]
    call = "buf"
    if returns_by_value(result_types):
        fn.restype = _RESTYPES[(result_types[0]._kind_, result_types[0]._bits_)]
        lines.append(f"    return fn({call})")
    else:
        fn.restype = None
        out_slots = slots(result_types)
        size = max(8, out_slots[-1].offset + out_slots[-1].size) if out_slots else 8
        env["Out"] = ctypes.c_char * size
        lines += ["    out = Out()", f"    fn({call}, out)"]
        values = [_result_expr(env, k, t, s.offset) for k, (t, s) in enumerate(zip(result_types, out_slots))]
        if resolution.overload.mutates_first_arg and result_types:
            # the builtin returns its first argument's new value last: update a mutable composite
            # in place (as Warp's by-reference call does) and return the other results
            *values, updated = values
            if not is_scalar_type(arg_types[0]):
                lines.append(f"    if type(a0) is T0: a0._data[...] = ({updated})._data")
        if not values:
            lines.append("    return None")
        elif len(values) == 1:
            lines.append(f"    return {values[0]}")
        else:
            lines.append(f"    return ({', '.join(values)},)")
    exec("\n".join(lines), env)  # noqa: S102 - generated from the overload's signature only
    return env["call"]


def _result_expr(env: dict[str, Any], k: int, t: Any, offset: int) -> str:
    """Expression converting result ``k`` (of type ``t`` at ``offset`` in ``out``) to a Python value."""
    if t is bfloat16:
        env[f"U{k}"] = struct.Struct("<H").unpack_from
        return f"float(from_bits(U{k}(out, {offset})[0]))"
    if is_scalar_type(t):
        code = {"float": {16: "e", 32: "f", 64: "d"}, "bool": {8: "?"}}.get(t._kind_, {}).get(t._bits_)
        if code is None:
            code = {8: "b", 16: "h", 32: "i", 64: "q"}[t._bits_]
            code = code.upper() if t._kind_ == "uint" else code
        env[f"U{k}"] = struct.Struct("<" + code).unpack_from
        return f"U{k}(out, {offset})[0]"
    env[f"R{k}"] = t
    env[f"D{k}"] = t._wp_scalar_type_._np_dtype_
    count = int(np.prod(t._shape_))
    env[f"S{k}"] = t._shape_
    env[f"make{k}"] = _composite_maker(t)
    if t._wp_scalar_type_ is bfloat16:
        return f"make{k}(from_bits(frombuffer(out, D{k}, {count}, {offset})))"
    return f"make{k}(frombuffer(out, D{k}, {count}, {offset}))"


def _composite_maker(t: type[CompositeBase]) -> Callable[[np.ndarray], Any]:
    shape = t._shape_
    new = t.__new__

    def make(data: np.ndarray) -> Any:
        value = new(t)
        value._data = data.reshape(shape) if len(shape) > 1 else data
        return value

    return make


def _bfloat16_bits_of(value: Any) -> int:
    """The 16-bit pattern of a number rounded to bfloat16."""
    return int(bfloat16_bits.to_bits(np.float64(float(getattr(value, "value", value)))))


def _checked_packer(name: str, arg_types: list[Any], packer: struct.Struct) -> Callable[[tuple], bytes]:
    """Slow path of packing: floats beyond a type's range become inf (as a C cast gives, and
    Warp stores), integers out of range raise an ``OverflowError`` naming the argument."""
    def pack(args: tuple) -> bytes:
        fields: list[Any] = []
        for i, (t, a) in enumerate(zip(arg_types, args)):
            if not is_scalar_type(t):
                data = (a if type(a) is t else t(a))._data
                if t._wp_scalar_type_ is bfloat16:
                    data = bfloat16_bits.to_bits(data)
                fields.append(data.tobytes())
            elif t is bfloat16:
                fields.append(_bfloat16_bits_of(a))
            elif t._kind_ == "float":
                with np.errstate(over="ignore"):
                    fields.append(float(t._np_dtype_.type(float(a))))
            elif t._kind_ == "bool":
                fields.append(bool(a))
            else:
                v = a.__index__()
                if _coerce(t, v) != v:
                    raise OverflowError(
                        f"wp.{name}(): argument {i + 1} ({v}) is out of range for {type_repr(t)}"
                    )
                fields.append(v)
        return packer.pack(*fields)

    return pack
