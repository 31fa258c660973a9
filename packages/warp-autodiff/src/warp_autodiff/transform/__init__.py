"""The reverse-mode transform of typed IR (replay + reverse sweep); see :mod:`.adjoint`."""

from warp_autodiff.transform.adjoint import (
    AdjointWarning,
    FunctionAdjoints,
    function_adjoints,
    kernel_adjoint,
)
from warp_autodiff.transform.gradient import function_gradient

__all__ = ["AdjointWarning", "FunctionAdjoints", "function_adjoints", "function_gradient", "kernel_adjoint"]
