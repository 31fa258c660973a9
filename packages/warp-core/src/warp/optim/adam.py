"""``warp.optim.Adam``: Adam (Kingma & Ba) with bias-corrected moments, as in NVIDIA Warp."""

from __future__ import annotations

from typing import Any, Sequence

import warp
from warp.arrays import array
from warp.optim.flat import FLOAT_TYPES, bind_params, check_grads, flat_view, state_scalar
from warp.runtime.launch import launch


def _adam_kernel(param_t: Any, state_t: Any) -> Any:
    @warp.kernel
    def adam_step(g: warp.array(dtype=param_t), m: warp.array(dtype=state_t), v: warp.array(dtype=state_t),
                  params: warp.array(dtype=param_t), lr: state_t, beta1: state_t, beta2: state_t,
                  bias1: state_t, bias2: state_t, eps: state_t) -> None:
        i = warp.tid()
        gi = state_t(g[i])
        mi = beta1 * m[i] + (state_t(1.0) - beta1) * gi
        vi = beta2 * v[i] + (state_t(1.0) - beta2) * gi * gi
        m[i] = mi
        v[i] = vi
        mhat = mi / bias1
        vhat = vi / bias2
        params[i] = param_t(state_t(params[i]) - lr * mhat / (warp.sqrt(vhat) + eps))

    return adam_step


_KERNELS = {t: _adam_kernel(t, state_scalar(t)) for t in FLOAT_TYPES}


class Adam:
    """Adam: ``m = b1 m + (1 - b1) g``, ``v = b2 v + (1 - b2) g^2``,
    ``p -= lr * m_hat / (sqrt(v_hat) + eps)`` with ``m_hat = m / (1 - b1^t)``, ``v_hat = v / (1 - b2^t)``.

    Moments are kept in float32 for float16 parameters. ``lr``, ``beta1``, ``beta2`` and ``eps``
    may be changed between steps.
    """

    def __init__(self, params: Sequence[array] | None = None, lr: float = 0.001,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-08) -> None:
        self.lr = lr
        self.beta1, self.beta2 = betas
        self.eps = eps
        self.t = 0
        self.params: list[array] | None = None
        self.m: list[array] = []
        self.v: list[array] = []
        self._flat: list[tuple[Any, ...]] = []  # (scalar, flat p, flat m, flat v)
        if params is not None:
            self.set_params(params)

    def set_params(self, params: Sequence[array]) -> None:
        """Optimize ``params``; moment buffers of unchanged parameters (same array, same shape) are kept."""
        self.params, (self.m, self.v), self._flat = bind_params(
            "Adam", params, self.params, (self.m, self.v), self._flat
        )

    def reset_internal_state(self) -> None:
        """Zero the moments and the step count."""
        for buffer in (*self.m, *self.v):
            buffer.zero_()
        self.t = 0

    def step(self, grad: Sequence[array]) -> None:
        """Apply one Adam update to every parameter, given one gradient array per parameter."""
        if self.params is None:
            raise RuntimeError("Adam parameters must be set before calling step(), got None")
        check_grads("Adam", self.params, grad)
        self.t += 1
        bias1 = 1.0 - self.beta1 ** self.t
        bias2 = 1.0 - self.beta2 ** self.t
        for p, g, (scalar, fp, fm, fv) in zip(self.params, grad, self._flat):
            s = state_scalar(scalar)
            fg = flat_view("Adam", "gradients", g, scalar)
            launch(_KERNELS[scalar], dim=fp.shape[0], device=p.device,
                   inputs=[fg, fm, fv, fp, s(self.lr), s(self.beta1), s(self.beta2), s(bias1), s(bias2),
                           s(self.eps)])
