"""``jax_kernel``: a warp kernel as a JAX primitive, through an XLA FFI target.

Calling the wrapper inside (or outside) ``jax.jit`` emits ``jax.ffi.ffi_call`` with the array
arguments as operands and the scalars and launch dimensions as attributes; XLA then calls the
target, which launches the kernel over the XLA buffers (zero-copy), once per example under
``jax.vmap``: on the CPU platform on the host, on the CUDA platform on XLA's device and stream
(:mod:`~warp_interop.jax_experimental.call_device`). With ``enable_backward=True`` a
``jax.custom_vjp`` runs the kernel's adjoint through a second target, so ``jax.grad`` works.
"""

from __future__ import annotations

import itertools
from typing import Any, Sequence

import numpy as np

import warp
from warp.extending import Kernel

from warp_interop.jax_experimental import xla_ffi
from warp_interop.jax_experimental.call_device import call_device
from warp_interop.jax_experimental.batching import BatchedArg, batch_args, batch_indices
from warp_interop.jax_experimental.bounds import (
    check_launch_fits,
    check_tid_extents,
    thread_indexed_dims,
    tid_launch_dims,
)
from warp_interop.jax_experimental.buffer_views import LAUNCH_DIMS_ATTR, view, zero_outputs
from warp_interop.jax_experimental.params import Param, normalize_dims, result_struct, split_params
from warp_interop.jax_experimental.autodiff import differentiable_call, register_adjoint

_ids = itertools.count()
VMAP_METHODS = ("broadcast_all", "expand_dims", "sequential", "sequential_unrolled", "legacy_vectorized")


def _is_tracer(value: Any) -> bool:
    import jax

    return isinstance(value, jax.core.Tracer)


def scalar_attribute(p: Param, value: Any, what: str) -> Any:
    """A static scalar argument as a typed NumPy scalar (an FFI attribute); traced values are refused."""
    if _is_tracer(value):
        raise ValueError(
            f"{what}: scalar argument '{p.name}' is a traced JAX value; scalars passed to warp must be "
            "constants or static arguments (e.g. jax.jit(..., static_argnames=[...]))"
        )
    raw = getattr(value, "value", value)
    try:
        return np.asarray(raw).astype(p.np_dtype)[()]
    except (TypeError, ValueError):
        raise TypeError(f"{what}: scalar argument '{p.name}' expects {p.np_dtype}, got {value!r}") from None


class FfiKernel:
    """The callable ``jax_kernel`` returns; see :func:`warp.jax_experimental.ffi.jax_kernel`."""

    def __init__(self, kernel: Any, num_outputs: int = 1, vmap_method: str = "broadcast_all",
                 launch_dims: Any = None, output_dims: Any = None,
                 in_out_argnames: Sequence[str] | None = None, enable_backward: bool = False,
                 block_dim: int | None = None):
        if not isinstance(kernel, Kernel):
            raise TypeError(f"jax_kernel expects a @wp.kernel, got {type(kernel).__name__}")
        self.kernel = kernel
        self.what = f"jax_kernel '{kernel.key}'"
        self.inputs, self.outputs = split_params(kernel.arg_names, kernel.arg_types, num_outputs,
                                                 in_out_argnames, self.what)
        self.in_outs = [p for p in self.inputs if p.in_out]
        self.num_outputs = num_outputs
        self.vmap_method = _check_vmap_method(vmap_method)
        self.launch_dims = None if launch_dims is None else normalize_dims(launch_dims)
        self.output_dims = output_dims
        self.enable_backward = bool(enable_backward)
        #: threads per block of the launches (None: the launch default)
        self.block_dim = block_dim
        if self.enable_backward and output_dims is not None:
            raise NotImplementedError(f"{self.what}: output_dims is not supported with enable_backward=True "
                                      "(outputs take the launch dimensions)")
        if self.enable_backward and self.in_outs:
            raise ValueError(f"{self.what}: in_out_argnames are not supported with enable_backward=True "
                             "(in-place updates are not differentiable)")
        self.target = f"warp_kernel_{kernel.key}_{next(_ids)}"
        self._registered = False
        self._indexed: dict[int, set[tuple[int, int]]] | None = None  # see bounds.thread_indexed_dims
        self._tid_dims: set[int] | None = None  # see bounds.tid_launch_dims

    # -- tracing side --------------------------------------------------------------------
    def __call__(self, *args: Any, output_dims: Any = None, launch_dims: Any = None,
                 vmap_method: str | None = None) -> Any:
        if self.enable_backward:
            for name, value, problem in (("launch_dims", launch_dims, "cannot be overridden per-call"),
                                         ("output_dims", output_dims, "is not supported"),
                                         ("vmap_method", vmap_method, "cannot be overridden per-call")):
                if value is not None:
                    raise TypeError(f"{self.what}: {name} {problem} on a differentiable wrapper "
                                    "(enable_backward=True); give it to jax_kernel")
        arrays, attrs = self._arguments(args)
        dims = self._launch_dims(arrays, launch_dims)
        attrs[LAUNCH_DIMS_ATTR] = np.asarray(dims, dtype=np.int64)
        method = _check_vmap_method(vmap_method or self.vmap_method)
        result_specs = self._result_specs(arrays, dims, output_dims)
        self._check_bounds(arrays, dims, result_specs)
        self._register()
        if self.enable_backward:
            return differentiable_call(self, arrays, attrs, result_specs, method)
        return self.forward_call(arrays, attrs, result_specs, method)

    def forward_call(self, arrays: list[Any], attrs: dict[str, Any], result_specs: list[Any],
                     method: str) -> Any:
        import jax

        aliases = {}
        array_inputs = [p for p in self.inputs if p.is_array]
        for k, p in enumerate(self.in_outs):
            aliases[array_inputs.index(p)] = k
        call = jax.ffi.ffi_call(self.target, result_specs, vmap_method=method,
                                input_output_aliases=aliases or None)
        return call(*arrays, **attrs)

    def _check_bounds(self, arrays: list[Any], dims: tuple[int, ...], result_specs: list[Any]) -> None:
        """Refuse launch dimensions past the int32 range of ``wp.tid()`` or past the end of an
        array the kernel indexes by ``wp.tid()``."""
        if self._tid_dims is None:
            self._tid_dims = tid_launch_dims(self.kernel)
        check_tid_extents(self.what, dims, self._tid_dims)
        if self._indexed is None:
            self._indexed = thread_indexed_dims(self.kernel)
        if not self._indexed:
            return
        names = list(self.kernel.arg_names)
        shapes: dict[int, Sequence[int]] = {}
        array_inputs = [p for p in self.inputs if p.is_array]
        for p, value in zip(array_inputs, arrays):
            shapes[names.index(p.name)] = p.warp_shape(value.shape)
        for p, spec in zip(self.outputs, result_specs[len(self.in_outs):]):
            shapes[names.index(p.name)] = p.warp_shape(spec.shape)
        check_launch_fits(self.what, dims, self._indexed, names, shapes)

    def _arguments(self, args: Sequence[Any]) -> tuple[list[Any], dict[str, Any]]:
        import jax.numpy as jnp

        if len(args) != len(self.inputs):
            names = ", ".join(p.name for p in self.inputs) or "none"
            raise TypeError(
                f"{self.what} takes {len(self.inputs)} input argument(s) ({names}), got {len(args)}"
            )
        arrays, attrs = [], {}
        for p, value in zip(self.inputs, args):
            if p.is_array:
                value = jnp.asarray(value)
                p.check_array(value, self.what)
                arrays.append(value)
            else:
                attrs[p.name] = scalar_attribute(p, value, self.what)
        return arrays, attrs

    def _launch_dims(self, arrays: list[Any], launch_dims: Any) -> tuple[int, ...]:
        if launch_dims is not None:
            return normalize_dims(launch_dims)
        if self.launch_dims is not None:
            return self.launch_dims
        array_inputs = [p for p in self.inputs if p.is_array]
        if not array_inputs:
            raise ValueError(
                f"{self.what}: the kernel has no array inputs; pass launch_dims to set the launch "
                "dimensions (and the output shapes)"
            )
        return array_inputs[0].warp_shape(arrays[0].shape)

    def _result_specs(self, arrays: list[Any], dims: tuple[int, ...], output_dims: Any) -> list[Any]:
        specs = []
        array_inputs = [p for p in self.inputs if p.is_array]
        for p in self.in_outs:
            value = arrays[array_inputs.index(p)]
            specs.append(result_struct(value.shape, value.dtype, arrays))
        chosen = self.output_dims if output_dims is None else output_dims
        for p in self.outputs:
            if chosen is None:
                # a differentiable wrapper (which takes no output_dims) gives an output of another
                # rank than the launch the shape of the first array input of its rank (a kernel
                # looping over an extra axis itself)
                like = [q.warp_shape(v.shape) for q, v in zip(array_inputs, arrays)
                        if self.enable_backward and q.ndim == p.ndim != len(dims)]
                shape = p.output_shape(like[0] if like else dims, self.what)
            elif isinstance(chosen, dict):
                shape = p.output_shape(chosen[p.name] if p.name in chosen else dims, self.what)
            else:
                shape = p.output_shape(chosen, self.what)
            specs.append(result_struct(shape, p.np_dtype, arrays))
        return specs

    # -- XLA side ------------------------------------------------------------------------
    def _register(self) -> None:
        if not self._registered:
            xla_ffi.register_everywhere(self.target, self.run)
            if self.enable_backward:
                register_adjoint(self)
            self._registered = True

    def kernel_args(self, call: xla_ffi.CallArguments, n_array_inputs: int) -> tuple[
            tuple[int, ...], list[BatchedArg], list[BatchedArg]]:
        """Batched views of the array inputs (in-out ones replaced by their outputs) and outputs."""
        array_inputs = [p for p in self.inputs if p.is_array]
        buffers = list(call.inputs[:n_array_inputs])
        for k, p in enumerate(self.in_outs):
            buffers[array_inputs.index(p)] = call.outputs[k]
        pure_outputs = call.outputs[len(self.in_outs):]
        batch, args = batch_args(array_inputs + self.outputs, buffers + list(pure_outputs), self.what)
        return batch, args[: len(array_inputs)], args[len(array_inputs):]

    def run(self, call: xla_ffi.CallArguments) -> None:
        """Launch the kernel over the buffers of one FFI call (each example of a batch)."""
        dims = tuple(int(d) for d in call.attrs[LAUNCH_DIMS_ATTR])
        batch, inputs, outputs = self.kernel_args(call, len(call.inputs))
        with call_device(call.ctx) as device:
            zero_outputs(outputs, device)
            for index in batch_indices(batch):
                values, it = [], iter(inputs)
                for p in self.inputs:
                    values.append(view(next(it), index, device) if p.is_array else call.attrs[p.name])
                values += [view(a, index, device) for a in outputs]
                warp.launch(self.kernel, dim=dims, inputs=values, device=device, **self.launch_options())

    def launch_options(self) -> dict[str, Any]:
        """Keyword arguments of the wrapper's ``wp.launch`` calls."""
        return {} if self.block_dim is None else {"block_dim": self.block_dim}


def _check_vmap_method(method: str) -> str:
    if method not in VMAP_METHODS:
        raise ValueError(f"vmap_method must be one of {', '.join(VMAP_METHODS)}, got {method!r}")
    return method
