"""``runlength_encode``: the runs of equal values of an int32 array."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from warp.arrays.array import array
from warp.types.helpers import types_equal
from warp.types.scalars import int32
from warp.utils import _access
from warp.utils._access import type_name


def runlength_encode(
    values: array,
    run_values: array,
    run_lengths: array,
    run_count: array | None = None,
    value_count: int | None = None,
) -> Any:
    """Run-length encode ``values`` (int32): ``[1, 1, 1, 2, 2, 3]`` gives run values ``[1, 2, 3]``
    and run lengths ``[3, 2, 1]``. Returns the number of runs, or stores it in ``run_count[0]``
    and returns ``run_count``."""
    if str(values.device) != str(run_values.device) or str(values.device) != str(run_lengths.device):
        raise RuntimeError(
            "runlength_encode: run_values, run_lengths and values storage devices do not match"
        )
    if run_count is not None and str(run_count.device) != str(values.device):
        raise RuntimeError("runlength_encode: run_count storage device does not match other arrays")
    if not types_equal(values.dtype, run_values.dtype):
        raise RuntimeError(
            "runlength_encode: values and run_values data types do not match "
            f"({type_name(values.dtype)} vs {type_name(run_values.dtype)})"
        )
    if values.dtype is not int32:
        raise RuntimeError(f"runlength_encode: Unsupported data type: {type_name(values.dtype)}")
    if run_lengths.dtype is not int32:
        raise RuntimeError("runlength_encode: run_lengths array must be of type int32")
    if run_count is not None and run_count.dtype is not int32:
        raise RuntimeError("runlength_encode: run_count array must be of type int32")
    n = values.size if value_count is None else value_count
    if n < 0:
        raise RuntimeError(f"runlength_encode: value_count must be non-negative, got {n}")
    if n > values.size:
        raise RuntimeError(f"runlength_encode: value_count ({n}) exceeds the size of values ({values.size})")
    if run_values.size < n or run_lengths.size < n:
        raise RuntimeError(
            f"runlength_encode: Output array storage sizes must be at least equal to value_count ({n})"
        )
    impl = _access.device_impl(values)
    if impl is not None:
        counter = run_count if run_count is not None else array(shape=(1,), dtype=int32, device=values.device)
        if impl.runlength_encode(values, run_values, run_lengths, counter, n):
            return run_count if run_count is not None else builtins.int(counter.numpy().reshape(-1)[0])
    data = _access.read(values).reshape(-1)[:n]
    if n:
        starts = np.flatnonzero(np.concatenate([[True], data[1:] != data[:-1]]))
        lengths = np.diff(np.append(starts, n))
        runs = builtins.int(starts.size)
        rv, rl = np.array(_access.read(run_values)), np.array(_access.read(run_lengths))
        rv[:runs], rl[:runs] = data[starts], lengths
        _access.write(run_values, rv)
        _access.write(run_lengths, rl)
    else:
        runs = 0
    if run_count is None:
        return runs
    cnt = np.array(_access.read(run_count))
    cnt.reshape(-1)[0] = runs
    _access.write(run_count, cnt)
    return run_count
