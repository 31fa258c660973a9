"""JAX gradients of ``jax_kernel(..., enable_backward=True)``: a ``custom_vjp`` around the kernel.

The backward rule calls a second FFI target that runs the kernel's adjoint (``wp.launch(...,
adjoint=True)``): operands are the forward array inputs and the output cotangents, results
the gradients of the array inputs (zero-initialized; the adjoint accumulates into them).
Scalars are static: they are attributes, and get no gradient. Integer arrays get ``float0``
zeros, as JAX expects. The adjoint writes only to scratch copies of the outputs and
cotangents, never to buffers XLA owns as inputs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

import warp
from warp_interop.jax_experimental import xla_ffi
from warp_interop.jax_experimental.batching import BatchedArg, batch_args, batch_indices
from warp_interop.jax_experimental.call_device import alias, call_device
from warp_interop.jax_experimental.buffer_views import LAUNCH_DIMS_ATTR, view, zero_outputs

if TYPE_CHECKING:
    from warp_interop.jax_experimental.kernel import FfiKernel


def _is_float(dtype: Any) -> bool:
    return np.dtype(dtype).kind == "f"


def differentiable_call(fk: FfiKernel, arrays: list[Any], attrs: dict[str, Any], result_specs: list[Any],
                        method: str) -> Any:
    """The forward call wrapped in a ``jax.custom_vjp`` whose backward runs the adjoint target."""
    import jax

    @jax.custom_vjp
    def primal(*xs: Any) -> Any:
        return fk.forward_call(list(xs), attrs, result_specs, method)

    def fwd(*xs: Any) -> Any:
        return primal(*xs), xs

    def bwd(residual: Any, cotangents: Any) -> Any:
        xs = list(residual)
        cts = [jax.numpy.asarray(c, dtype=s.dtype) for c, s in zip(cotangents, result_specs)]
        grads_for = [i for i, x in enumerate(xs) if _is_float(x.dtype)]
        specs = [jax.ShapeDtypeStruct(xs[i].shape, xs[i].dtype) for i in grads_for]
        call = jax.ffi.ffi_call(fk.target + "_adjoint", specs, vmap_method=method)
        grads = call(*xs, *cts, **attrs) if specs else []
        result, it = [], iter(grads)
        for x in xs:
            result.append(next(it) if _is_float(x.dtype) else np.zeros(x.shape, dtype=jax.dtypes.float0))
        return tuple(result)

    primal.defvjp(fwd, bwd)
    return primal(*arrays)


def _scratch(arg: BatchedArg, index: tuple[int, ...], copy: bool, device: Any) -> Any:
    """A warp array on ``device`` holding one example (a copy of it when ``copy``, else zeros)."""
    shape = arg.warp_shape
    scratch = warp.zeros(shape, dtype=arg.param.dtype, device=device)
    if copy:
        warp.copy(scratch, alias(arg.pointer(index), shape, arg.param.dtype, device))
    return scratch


def register_adjoint(fk: FfiKernel) -> None:
    """Register the adjoint target of ``fk`` (``<target>_adjoint``)."""

    def run(call: xla_ffi.CallArguments) -> None:
        dims = tuple(int(d) for d in call.attrs[LAUNCH_DIMS_ATTR])
        array_inputs = [p for p in fk.inputs if p.is_array]
        n_in, n_out = len(array_inputs), len(fk.outputs)
        grad_params = [p for p in array_inputs if _is_float(p.np_dtype)]
        params = array_inputs + fk.outputs + grad_params
        buffers = call.inputs[:n_in] + call.inputs[n_in: n_in + n_out] + call.outputs
        batch, args = batch_args(params, buffers, fk.what + " (adjoint)")
        primals, cotangents, grads = args[:n_in], args[n_in: n_in + n_out], args[n_in + n_out:]
        with call_device(call.ctx) as device:
            zero_outputs(grads, device)
            for index in batch_indices(batch):
                values, adjoints, it, git = [], [], iter(primals), iter(grads)
                for p in fk.inputs:
                    if p.is_array:
                        values.append(view(next(it), index, device))
                        adjoints.append(view(next(git), index, device) if _is_float(p.np_dtype) else None)
                    else:
                        values.append(call.attrs[p.name])
                        adjoints.append(type(call.attrs[p.name])(0))
                # the outputs are replayed by the adjoint; their adjoints are the cotangents
                outputs = [_scratch(a, index, False, device) for a in cotangents]
                adj_outputs = [_scratch(a, index, True, device) for a in cotangents]
                warp.launch(fk.kernel, dim=dims, inputs=values + outputs, adj_inputs=adjoints + adj_outputs,
                            device=device, adjoint=True, **fk.launch_options())

    xla_ffi.register_everywhere(fk.target + "_adjoint", run)

