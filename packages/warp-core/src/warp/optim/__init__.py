"""Gradient-descent optimizers over warp arrays (NVIDIA Warp's ``warp.optim``).

``SGD`` and ``Adam`` are constructed with a list of parameter arrays and updated in place by
``step(grads)`` with a list of gradient arrays of the same shapes and dtypes; each update is
a warp kernel launched on the parameters' device. Parameters may be arrays of floating-point
scalars or of vectors/matrices of them (updated component by component).
"""

from __future__ import annotations

from warp.optim.adam import Adam
from warp.optim.sgd import SGD

__all__ = ["SGD", "Adam"]
