"""How composite types are passed to kernels and keyed in caches: the launch and cache hooks of
:class:`warp.types.composite_values.CompositeBase` (the protocol is :mod:`warp.types.protocol`'s).

- ``_wp_abi_format_``: the ``struct`` format of a value in a launch's argument buffer
- ``_wp_pack_``: a value's fields for that buffer (called by every launch's packer: keep it lean)
- ``_wp_check_arg_``: a launch argument converted to the type, or a clear error
- ``_wp_hash_``, ``_wp_constant_``, ``_wp_constant_hash_``: the type in module hashes, and values
  of the type captured as kernel constants

What these types do in kernels is the compiler's business (:mod:`warp.compiler.frontend.type_handlers`).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from warp.errors import LaunchTypeError
from warp.types import bfloat16_bits
from warp.types import scalars as _s
from warp.types.composite_data import CompositeData, _flatten
from warp.types.packing import scalar_code
from warp.types.scalars import type_repr


class CompositeLaunchHooks(CompositeData):
    """Launch and cache hooks of composite types (classmethods keyed on the concrete class)."""

    __slots__ = ()

    @classmethod
    def _wp_abi_format_(cls) -> str:
        return f"{math.prod(cls._shape_)}{scalar_code(cls._wp_scalar_type_)}"

    @classmethod
    def _wp_pack_(cls, value: Any) -> list[Any]:
        data = value._data if isinstance(value, CompositeData) else np.asarray(_flatten(value))
        if cls._wp_scalar_type_ is _s.bfloat16:  # passed as 16-bit patterns
            return bfloat16_bits.to_bits(data).reshape(-1).tolist()
        return data.reshape(-1).tolist()

    @classmethod
    def _wp_check_arg_(cls, where: str, value: Any) -> Any:
        if isinstance(value, (bool, np.bool_, np.number)) or (
            isinstance(value, _s.ScalarBase) and type(value)._kind_ == "bool"
        ):
            warnings.warn(
                f"passing a single value of type `{type(value).__name__}` for the `{type_repr(cls)}` "
                f"{where.replace('argument', 'kernel parameter')} fills every component; this is deprecated: "
                f"pass a {type_repr(cls)}",
                DeprecationWarning,
                stacklevel=5,
            )
            return cls(float(getattr(value, "value", value)))
        if isinstance(value, (int, float, _s.ScalarBase)):
            raise LaunchTypeError(
                f"{where} expects {type_repr(cls)} but got a single value ({value!r}); pass a "
                f"{type_repr(cls)} or a sequence of its components"
            )
        try:
            converted = value if type(value) is cls else cls(value)
        except (ValueError, TypeError) as exc:
            raise TypeError(
                f"{where}: expected {type_repr(cls)}, got {type(value).__name__} ({exc})"
            ) from None
        return converted

    @classmethod
    def _wp_hash_(cls) -> str:
        return f"{cls._wp_kind_}{cls._shape_}{cls._wp_scalar_type_.__name__}"

    @classmethod
    def _wp_constant_(cls, builder: Any, obj: Any) -> Any:
        return builder.const(tuple(obj._data.reshape(-1).tolist()), cls)

    @classmethod
    def _wp_constant_hash_(cls, obj: Any) -> str:
        return f"{cls._wp_hash_()}:{obj._data.reshape(-1).tolist()}"
