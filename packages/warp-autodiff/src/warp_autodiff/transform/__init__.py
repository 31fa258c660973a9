"""The reverse-mode transform of typed IR (replay + reverse sweep); see :mod:`.adjoint`."""

from warp_autodiff.transform.adjoint import (
    AdjointWarning,
    FunctionAdjoints,
    function_adjoints,
    kernel_adjoint,
)

__all__ = ["AdjointWarning", "FunctionAdjoints", "function_adjoints", "kernel_adjoint"]
