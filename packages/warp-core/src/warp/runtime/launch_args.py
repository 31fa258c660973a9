"""The launch slow path: arguments validated and converted one by one, with errors naming the
kernel and the parameter.

A launch takes it when the generated packer (:mod:`warp.runtime.launch_packers`) refuses an
argument, and debug launches and recorded launches (``wp.Launch``) always do. Conversions:
NumPy and array-interface objects (zero-copy, never to another dtype), foreign arrays through the
``warp_convert_array`` hook, ``None`` for an array (a null array), Python numbers checked against
the parameter's scalar type, and composites through their ``_wp_check_arg_``.
"""

from __future__ import annotations

import struct
from typing import Any, Sequence

import numpy as np

from warp.arrays import array as Array
from warp.arrays import as_array
from warp.arrays.array import _array_type
from warp.arrays.indexed import indexedarray
from warp.compiler.abi import HEADER_SIZE, VECTOR_ALIGNMENT
from warp.errors import LaunchTypeError, LaunchValueError
from warp.plugins.manager import get_plugin_manager
from warp.types import bfloat16_bits
from warp.types.array_type import ArrayType
from warp.types.scalars import bfloat16, dtype_to_numpy, is_scalar_type, type_repr


class ArgumentChecks:
    """Validation, conversion and packing of launch arguments (mixin of ``Launcher``)."""

    kernel: Any
    device: Any
    names: list[str]
    types: list[Any]
    #: the whole argument buffer's layout (header, then parameters), and the parameters' alone
    packer: struct.Struct
    params_packer: struct.Struct
    vector_width: int

    def pack_checked(
        self, args: Sequence[Any], dims: tuple[int, ...], err: int, res: int = 0
    ) -> tuple[bytes, bool]:
        """Validate and convert every argument, then pack (errors name the parameter)."""
        fields, contiguous = self.checked_fields(args, dims)
        return self.packer.pack(*dims, err, res, *fields), contiguous

    def pack_checked_params(self, buffer: Any, args: Sequence[Any], dims: tuple[int, ...]) -> bool:
        """:meth:`pack_checked`'s parameters into ``buffer`` after its header; returns whether
        the launch is "contiguous" (as :meth:`pack_checked` says)."""
        fields, contiguous = self.checked_fields(args, dims)
        self.params_packer.pack_into(buffer, HEADER_SIZE, *fields)
        return contiguous

    def checked_fields(self, args: Sequence[Any], dims: tuple[int, ...]) -> tuple[list[Any], bool]:
        """The buffer fields of ``args`` after validation and conversion, and whether the launch
        over ``dims`` is "contiguous" (all arrays are; with a vector entry, also what it needs)."""
        values = self.convert(args)
        fields: list[Any] = []
        contiguous = True
        for t, v in zip(self.types, values, strict=True):
            if isinstance(t, ArrayType):
                fields.append(v._desc)
                contiguous = contiguous and v._is_contiguous
            elif is_scalar_type(t):
                fields.append(v)
            else:
                fields.extend(t._wp_pack_(v))
                check = getattr(t, "_wp_all_contiguous_", None)
                contiguous = contiguous and (check is None or check(v))
        if self.vector_width > 1 and contiguous:
            contiguous = _vector_launch(self.types, values, dims)
        return fields, contiguous

    def convert(self, args: Sequence[Any]) -> list[Any]:
        kname = self.kernel.name
        if len(args) != len(self.types):
            missing = self.names[len(args) :]
            detail = f"; missing: {', '.join(missing)}" if missing else ""
            raise LaunchTypeError(
                f"Error launching kernel '{kname}', passed {len(args)} arguments but kernel requires "
                f"{len(self.types)} ({', '.join(self.names)}){detail}"
            )
        return [self.convert_one(name, t, a) for name, t, a in zip(self.names, self.types, args, strict=True)]

    def convert_one(self, name: str, t: Any, value: Any) -> Any:
        where = f"kernel '{self.kernel.name}', argument '{name}'"
        if isinstance(t, ArrayType):
            if value is None:
                return null_array(t, self.device)
            if not isinstance(value, Array):
                value = self.foreign_array(where, name, t, value)
            if value.dtype != t.dtype:
                raise LaunchTypeError(
                    f"{where}: expected an array of {type_repr(t.dtype)}, "
                    f"got an array of {type_repr(value.dtype)}"
                )
            if value.ndim != t.ndim:
                raise LaunchTypeError(f"{where}: expected a {t.ndim}-d array, got a {value.ndim}-d array")
            if value.device is not self.device:
                raise LaunchValueError(
                    f"{where}: array is on device '{value.device}' but the launch is on '{self.device}'"
                )
            return value
        if is_scalar_type(t):
            return _scalar_arg(where, t, value)
        if value is None and getattr(t, "_shape_", None):
            raise LaunchValueError(
                f"{where}: Failed to convert argument for param {name} to {type_repr(t)} (None)"
            )
        check = getattr(t, "_wp_check_arg_", None)
        return check(where, value) if check is not None else value

    def foreign_array(self, where: str, name: str, t: ArrayType, value: Any) -> Any:
        """Wrap a NumPy / array-interface object zero-copy; never convert its dtype silently."""
        if isinstance(value, indexedarray):  # its NumPy form is a gathered copy: writes would be lost
            raise LaunchTypeError(
                f"{where}: indexed arrays (wp.indexedarray, a[index_array]) cannot be kernel arguments here; "
                "pass the data array and its index arrays and read data[idx[i]] in the kernel, or pass "
                ".contiguous() (a gathered copy) for reading"
            )
        converted = get_plugin_manager().hook.warp_convert_array(obj=value, dtype=t.dtype, device=self.device)
        if converted is not None:
            return self.convert_one(name, t, converted)
        try:
            host = np.asarray(value)
        except Exception as exc:
            raise LaunchTypeError(f"{where}: expected {t}, got {type(value).__name__} ({exc})") from None
        expected = dtype_to_numpy(t.dtype)
        if host.dtype != expected:
            raise LaunchTypeError(
                f"{where}: expected an array of {type_repr(t.dtype)}, got a {type(value).__name__} of dtype "
                f"{host.dtype} (convert it explicitly; a converted copy would not see the kernel's writes)"
            )
        try:
            return as_array(value, dtype=t.dtype)
        except Exception as exc:
            raise LaunchTypeError(f"{where}: expected {t}, got {type(value).__name__} ({exc})") from None


def _vector_launch(types: Sequence[Any], values: Sequence[Any], dims: Sequence[int]) -> bool:
    """Whether a launch over contiguous arrays may run the vector entry: 1-D, array data aligned."""
    if dims[1] != 1 or dims[2] != 1 or dims[3] != 1:
        return False
    return all(
        not (getattr(v, "_ptr", 0) or 0) % VECTOR_ALIGNMENT
        for t, v in zip(types, values, strict=True)
        if isinstance(t, ArrayType)
    )


def null_array(t: ArrayType, device: Any) -> Any:
    """A stand-in for ``None`` passed as an array: null data pointer, zero shape."""
    null = Array.__new__(Array)
    null._init_annotation(t.dtype, t.ndim)
    null._array_type = _array_type(t.dtype, t.ndim)
    null._device = device
    null._desc = bytes(64)
    return null


def _scalar_arg(where: str, t: Any, value: Any) -> Any:
    kind = t._kind_
    raw = getattr(value, "value", value)
    if kind == "float":
        if isinstance(raw, (str, bytes)) or not hasattr(raw, "__float__"):
            raise LaunchTypeError(f"{where}: expected {type_repr(t)}, got {type(value).__name__}")
        if t is bfloat16:  # passed as its 16-bit pattern
            return int(bfloat16_bits.to_bits(np.float64(float(raw))))
        return t(raw).value if t._bits_ < 64 else float(raw)  # beyond the type's range: inf, as Warp
    if kind == "bool":
        return bool(raw)
    if isinstance(raw, float) or not hasattr(raw, "__index__"):
        raise LaunchTypeError(f"{where}: expected {type_repr(t)}, got {type(value).__name__} {value!r}")
    v = int(raw.__index__())
    lo, hi = (0, 2**t._bits_ - 1) if kind == "uint" else (-(2 ** (t._bits_ - 1)), 2 ** (t._bits_ - 1) - 1)
    if not lo <= v <= hi:
        raise LaunchValueError(f"{where}: value {v} is out of range for {type_repr(t)}")
    return v
