"""warp-autodiff's plugin module (entry point ``autodiff`` in the ``warp`` group).

- ``warp_adjoint_function``: the reverse-mode transform of a kernel's IR;
- ``warp_function_gradient``: the adjoint of a user function for ``wp.grad(f)`` in kernels;
- ``warp_exports``: ``wp.Tape`` and ``wp.autograd`` (gradient checks and Jacobians).
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

from warp.extending import hookimpl

from warp_autodiff import autograd
from warp_autodiff.tape import Tape, recording_tape
from warp_autodiff.transform import AdjointWarning, function_adjoints, function_gradient, kernel_adjoint

# ``import warp.autograd`` works once the plugin is loaded (warp loads plugins at import)
sys.modules.setdefault("warp.autograd", autograd)


@hookimpl
def warp_adjoint_function(function: Any) -> Any:
    try:
        return kernel_adjoint(function)
    except AdjointWarning:
        raise  # warnings turned into errors by the user's filters
    except Exception as exc:  # never break the forward kernel because its adjoint failed
        warnings.warn(
            f"warp-autodiff: could not generate the adjoint of kernel '{function.name}' "
            f"({type(exc).__name__}: {exc}); adjoint launches of it will fail",
            AdjointWarning,
            stacklevel=2,
        )
        return None


@hookimpl
def warp_function_gradient(function: Any) -> Any:
    return function_gradient(function, function_adjoints)


@hookimpl
def warp_exports() -> dict[str, Any]:
    return {"Tape": Tape, "autograd": autograd, "AdjointWarning": AdjointWarning}


@hookimpl
def warp_array_copied(dest: Any, src: Any, dest_offset: int, src_offset: int, count: int) -> None:
    tape = recording_tape()
    if tape is not None:
        tape.record_copy(dest, src, dest_offset, src_offset, count)
