"""The launch hot path's argument packers, generated once per compiled kernel part.

``pack`` and ``pack_params`` (:func:`generate_packers`) take the arguments as a launch passes them:
array arguments are checked by identity (``wp.array`` or a launch-only descriptor, of the
parameter's array type, on the launch's device), scalars and composites go as they are, and
everything lands in one ``struct.pack`` (layout: :mod:`warp.compiler.abi`). Any other argument
makes them raise (:class:`_SlowPath`, or the error ``struct`` raises): the launcher then takes the
slow path (:mod:`warp.runtime.launch_args`), which converts what it can and names the parameter
otherwise.
"""

from __future__ import annotations

import struct
from typing import Any, Sequence

from warp.arrays import array as Array
from warp.arrays.array import _array_type
from warp.arrays.descriptor import ArrayDescriptor
from warp.compiler.abi import HEADER_SIZE, VECTOR_ALIGNMENT
from warp.errors import LaunchTypeError
from warp.types.array_type import ArrayType
from warp.types.scalars import is_scalar_type, type_repr


class _SlowPath(Exception):
    """Raised by a generated packer for an argument it does not take as it is."""


def generate_packers(
    kernel_name: str,
    types: Sequence[Any],
    device: Any,
    packer: struct.Struct,
    params_packer: struct.Struct,
    vector_width: int,
) -> tuple[Any, Any]:
    """Build ``pack(args, dims, err, res=0) -> (bytes, contiguous)`` and
    ``pack_params(buffer, args, dims) -> contiguous`` (the parameters after the buffer's header),
    specialized to the signature ``types`` of kernel ``kernel_name`` launched on ``device``.

    ``packer`` packs the whole buffer (header and parameters), ``params_packer`` the parameters
    alone; ``vector_width`` > 1: the part has a vector entry, whose conditions "contiguous" adds.
    Arguments the packers do not take as they are raise :class:`_SlowPath` (or TypeError & co.).
    """
    n = len(types)
    unpack = f"    {''.join(f'a{i}, ' for i in range(n))}= args" if n else "    if args: raise Slow"
    lines = [unpack]
    env: dict[str, Any] = {
        "Array": Array,
        "Desc": ArrayDescriptor,
        "Slow": _SlowPath,
        "struct_pack": packer.pack,
        "pack_into": params_packer.pack_into,
        "dev": device,
    }
    fields, arrays = [], []
    for i, t in enumerate(types):
        if isinstance(t, ArrayType):
            env[f"T{i}"] = _array_type(t.dtype, t.ndim)
            # wp.array or a launch-only descriptor (from_torch(..., return_ctype=True)) of the right type
            lines.append(
                f"    if (type(a{i}) is not Array and type(a{i}) is not Desc)"
                f" or a{i}._array_type is not T{i} or a{i}._device is not dev: raise Slow"
            )
            fields.append(f"a{i}._desc")
            arrays.append(f"a{i}._is_contiguous")
        elif is_scalar_type(t):
            fields.append(f"a{i}")
        else:
            env[f"C{i}"] = getattr(t, "_wp_pack_", None)
            if env[f"C{i}"] is None:
                raise LaunchTypeError(
                    f"kernel '{kernel_name}': parameter type {type_repr(t)} cannot be launched"
                )
            fields.append(f"*C{i}(a{i})")
            if getattr(t, "_wp_all_contiguous_", None) is not None:
                env[f"K{i}"] = t._wp_all_contiguous_
                arrays.append(f"K{i}(a{i})")
    contiguous = " and ".join(arrays) or "True"
    if vector_width > 1:  # the vector entry's conditions (see warp.runtime.launcher's docstring)
        # (a None pointer, of an empty array, raises TypeError here: the slow path decides)
        pointers = [f"a{i}._ptr" for i, t in enumerate(types) if isinstance(t, ArrayType)]
        aligned = f" and not ({' | '.join(pointers)}) & {VECTOR_ALIGNMENT - 1}" if pointers else ""
        contiguous = f"{contiguous}{aligned} and dims[1] == dims[2] == dims[3] == 1"
    packed = "".join(f + ", " for f in fields)
    source = [
        "def pack(args, dims, err, res=0):",
        *lines,
        f"    return struct_pack(*dims, err, res, {packed}), {contiguous}",
        "def pack_params(buffer, args, dims):",
        *lines,
        f"    pack_into(buffer, {HEADER_SIZE}, {packed})",
        f"    return {contiguous}",
    ]
    exec("\n".join(source), env)  # noqa: S102 - generated from the kernel signature only
    return env["pack"], env["pack_params"]
