"""Launch diagnostics switched on by ``wp.config.print_launches`` and ``wp.config.verify_fp``.

Kept off the hot path: ``wp.launch`` comes here only when one of the settings is on.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from warp import config
from warp.types import bfloat16_bits
from warp.types.array_type import ArrayType
from warp.types.scalars import bfloat16


def checked_launch(
    launcher: Any, args: Sequence[Any], dim: Any, stream: Any = None, blocks: Any = None
) -> None:
    """Run ``launcher`` on ``args``, printing it first and/or checking float arrays afterwards."""
    kernel = launcher.kernel
    if config.print_launches:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        described = ", ".join(f"{n}={_describe(a)}" for n, a in zip(launcher.names, args))
        print(f"launch kernel '{kernel.name}' on '{launcher.device}' dim={dims}: {described}", flush=True)
    launcher.launch(args, dim, stream, blocks)
    if config.verify_fp:
        launcher.target.synchronize(launcher.device)
        verify_finite(kernel.name, launcher.names, launcher.types, args)


def verify_finite(kernel_name: str, names: Sequence[str], types: Sequence[Any], args: Sequence[Any]) -> None:
    """Raise ``FloatingPointError`` naming the first float array argument holding NaN or inf."""
    for name, t, value in zip(names, types, args):
        if not isinstance(t, ArrayType) or value is None or not hasattr(value, "numpy"):
            continue
        scalar = getattr(t.dtype, "_wp_scalar_type_", t.dtype)
        if getattr(scalar, "_kind_", None) != "float":
            continue
        data = np.asarray(value.numpy())
        if scalar is bfloat16:  # bit patterns or ml_dtypes data -> float32 values
            data = bfloat16_bits.from_bits(data)
        bad = ~np.isfinite(data)
        if bad.any():
            first = tuple(int(i) for i in np.argwhere(bad)[0])
            raise FloatingPointError(
                f"wp.config.verify_fp: after kernel '{kernel_name}', array '{name}' holds values that are "
                f"not finite ({int(bad.sum())} of {data.size}; first at index {first}: {data[first]!r})"
            )


def _describe(value: Any) -> str:
    shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    if shape is not None and dtype is not None and hasattr(value, "numpy"):
        return f"array(shape={tuple(shape)}, dtype={getattr(dtype, '__name__', dtype)})"
    return repr(value)
