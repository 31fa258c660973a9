"""``warp.optim.SGD``: stochastic gradient descent with momentum, dampening, weight decay and
Nesterov momentum, as in NVIDIA Warp (and PyTorch)."""

from __future__ import annotations

from typing import Any, Sequence

import warp
from warp.arrays import array
from warp.optim.flat import FLOAT_TYPES, bind_params, check_grads, flat_view, state_scalar
from warp.runtime.launch import launch


def _sgd_kernel(param_t: Any, state_t: Any) -> Any:
    @warp.kernel
    def sgd_step(g: warp.array(dtype=param_t), b: warp.array(dtype=state_t),
                 params: warp.array(dtype=param_t),
                 lr: state_t, weight_decay: state_t, momentum: state_t, dampening: state_t, nesterov: int,
                 first: int) -> None:
        i = warp.tid()
        p = state_t(params[i])
        gi = state_t(g[i]) + weight_decay * p
        if momentum != state_t(0.0):
            bi = gi
            if first == 0:
                bi = momentum * b[i] + (state_t(1.0) - dampening) * gi
            b[i] = bi
            if nesterov != 0:
                gi = gi + momentum * bi
            else:
                gi = bi
        params[i] = param_t(p - lr * gi)

    return sgd_step


_KERNELS = {t: _sgd_kernel(t, state_scalar(t)) for t in FLOAT_TYPES}


class SGD:
    """SGD: ``g += weight_decay * p``; with momentum ``b = momentum b + (1 - dampening) g``
    (``b = g`` on the first step) and ``g = b`` (Nesterov: ``g += momentum b``); ``p -= lr g``."""

    def __init__(self, params: Sequence[array] | None = None, lr: float = 0.001, momentum: float = 0.0,
                 dampening: float = 0.0, weight_decay: float = 0.0, nesterov: bool = False) -> None:
        self.lr = lr
        self.momentum = momentum
        self.dampening = dampening
        self.weight_decay = weight_decay
        self.nesterov = nesterov
        self.t = 0
        self.params: list[array] | None = None
        self.b: list[array] = []
        self._flat: list[tuple[Any, ...]] = []  # (scalar, flat p, flat b)
        if params is not None:
            self.set_params(params)

    def set_params(self, params: Sequence[array]) -> None:
        """Optimize ``params``; momentum buffers of unchanged parameters are kept."""
        self.params, (self.b,), self._flat = bind_params("SGD", params, self.params, (self.b,), self._flat)

    def reset_internal_state(self) -> None:
        """Zero the momentum buffers and the step count."""
        for buffer in self.b:
            buffer.zero_()
        self.t = 0

    def step(self, grad: Sequence[array]) -> None:
        """Apply one SGD update to every parameter, given one gradient array per parameter."""
        if self.params is None:
            raise RuntimeError("SGD parameters must be set before calling step(), got None")
        check_grads("SGD", self.params, grad)
        for p, g, (scalar, fp, fb) in zip(self.params, grad, self._flat):
            s = state_scalar(scalar)
            fg = flat_view("SGD", "gradients", g, scalar)
            launch(_KERNELS[scalar], dim=fp.shape[0], device=p.device,
                   inputs=[fg, fb, fp, s(self.lr), s(self.weight_decay), s(self.momentum), s(self.dampening),
                           int(self.nesterov), int(self.t == 0)])
        self.t += 1
