"""``jax_callable`` and ``register_ffi_callback``: Python functions called by XLA.

``jax_callable`` wraps a Python function annotated like a warp kernel: it is called with
``wp.array`` views of the XLA buffers (zero-copy) and the static scalars, and launches whatever
it likes. ``register_ffi_callback`` registers a function ``func(inputs, outputs, attrs, ctx)``
receiving the raw buffers, for ``jax.ffi.ffi_call`` to use directly.
"""

from __future__ import annotations

import inspect
import itertools
import threading
import warnings
from typing import Any, Callable, Sequence

import numpy as np

import warp
from warp.extending import contiguous_strides, element_info, wrap_memory, resolve_annotation

from warp_interop.jax_experimental import xla_ffi
from warp_interop.jax_experimental.batching import BatchedArg, batch_args, batch_indices
from warp_interop.jax_experimental.call_device import call_device
from warp_interop.jax_experimental.buffer_views import zero_outputs
from warp_interop.jax_experimental.kernel import _check_vmap_method, scalar_attribute
from warp_interop.jax_experimental.params import result_struct, split_params
from warp_interop.jax_interop import GraphMode

_ids = itertools.count()
#: CUDA graphs a ``jax_callable`` keeps for replay (XLA may hand new buffers to every call)
_MAX_GRAPHS = 16


def _annotated_params(func: Callable[..., Any], what: str) -> tuple[list[str], list[Any]]:
    names, types = [], []
    namespace = dict(getattr(func, "__globals__", {}))
    for name, parameter in inspect.signature(func).parameters.items():
        if parameter.annotation is inspect.Parameter.empty:
            raise TypeError(f"{what}: parameter '{name}' needs a type annotation (like a warp kernel's)")
        names.append(name)
        types.append(resolve_annotation(parameter.annotation, namespace))
    return names, types


def _array_view(arg: BatchedArg, index: tuple[int, ...], device: Any) -> Any:
    shape = arg.warp_shape
    itemsize = element_info(arg.param.dtype).itemsize
    return wrap_memory(arg.pointer(index), shape, contiguous_strides(shape, itemsize), arg.param.dtype,
                       device, None)


class FfiCallable:
    """The callable ``jax_callable`` returns; see :func:`warp.jax_experimental.ffi.jax_callable`."""

    def __init__(self, func: Callable[..., Any], num_outputs: int = 1, graph_compatible: bool | None = None,
                 graph_mode: GraphMode = GraphMode.JAX, vmap_method: str = "broadcast_all",
                 output_dims: Any = None, in_out_argnames: Sequence[str] | None = None,
                 stage_in_argnames: Sequence[str] | None = None,
                 stage_out_argnames: Sequence[str] | None = None):
        self.func = func
        self.what = f"jax_callable '{getattr(func, '__name__', func)}'"
        if graph_compatible is not None:
            warnings.warn("jax_callable: graph_compatible is deprecated, use graph_mode", DeprecationWarning,
                          stacklevel=3)
            graph_mode = GraphMode.JAX if graph_compatible else GraphMode.NONE
        if isinstance(graph_mode, (int, np.integer)) and not isinstance(graph_mode, (bool, GraphMode)):
            try:
                graph_mode = GraphMode(int(graph_mode))
            except ValueError:
                raise ValueError(f"{self.what}: graph_mode {graph_mode} is not a GraphMode value") from None
        if not isinstance(graph_mode, GraphMode):
            raise TypeError(f"{self.what}: graph_mode must be a GraphMode, got {graph_mode!r}")
        self.graph_mode = graph_mode
        #: arguments a staged CUDA graph copies in and out (``GraphMode.WARP_STAGED*``)
        self.stage_in_argnames = set(stage_in_argnames or ())
        self.stage_out_argnames = set(stage_out_argnames or ())
        names, types = _annotated_params(func, self.what)
        self.inputs, self.outputs = split_params(names, types, num_outputs, in_out_argnames, self.what)
        self.in_outs = [p for p in self.inputs if p.in_out]
        self.vmap_method = _check_vmap_method(vmap_method)
        self.output_dims = output_dims
        self.target = f"warp_callable_{getattr(func, '__name__', 'func')}_{next(_ids)}"
        self._registered = False
        #: Warp CUDA graphs of the WARP* modes by (device, buffers, static arguments)
        self._graphs: dict[tuple, Any] = {}
        self._graphs_lock = threading.Lock()

    def __call__(self, *args: Any, output_dims: Any = None, vmap_method: str | None = None) -> Any:
        import jax
        import jax.numpy as jnp

        if len(args) != len(self.inputs):
            names = ", ".join(p.name for p in self.inputs) or "none"
            raise TypeError(
                f"{self.what} takes {len(self.inputs)} input argument(s) ({names}), got {len(args)}"
            )
        arrays, attrs, array_params = [], {}, []
        for p, value in zip(self.inputs, args):
            if p.is_array:
                value = jnp.asarray(value)
                p.check_array(value, self.what)
                arrays.append(value)
                array_params.append(p)
            else:
                attrs[p.name] = scalar_attribute(p, value, self.what)
        in_out_values = [arrays[array_params.index(p)] for p in self.in_outs]
        specs = [result_struct(v.shape, v.dtype, arrays) for v in in_out_values]
        chosen = self.output_dims if output_dims is None else output_dims
        for p in self.outputs:
            dims = chosen.get(p.name) if isinstance(chosen, dict) else chosen
            if dims is None:
                if not arrays:
                    raise ValueError(
                        f"{self.what}: pass output_dims for output '{p.name}' "
                        "(there are no array inputs to infer it from)"
                    )
                dims = array_params[0].warp_shape(arrays[0].shape)
            specs.append(result_struct(p.output_shape(dims, self.what), p.np_dtype, arrays))
        aliases = {array_params.index(p): k for k, p in enumerate(self.in_outs)}
        if not self._registered:
            xla_ffi.register_everywhere(self.target, self.run)
            self._registered = True
        method = _check_vmap_method(vmap_method or self.vmap_method)
        call = jax.ffi.ffi_call(self.target, specs, vmap_method=method, input_output_aliases=aliases or None)
        return call(*arrays, **attrs)

    def run(self, call: xla_ffi.CallArguments) -> None:
        """Call the function once per example with warp arrays over the XLA buffers.

        In the ``WARP*`` graph modes (CUDA only) the calls are captured in a Warp CUDA graph on
        XLA's stream and the graph is launched; a later call with the same buffers and static
        arguments launches that graph again without running the function (as in Warp). The
        staged modes reuse a graph for the same buffers too (no staging copies here)."""
        array_inputs = [p for p in self.inputs if p.is_array]
        buffers = list(call.inputs)
        for k, p in enumerate(self.in_outs):
            buffers[array_inputs.index(p)] = call.outputs[k]
        pure = list(call.outputs[len(self.in_outs):])
        batch, args = batch_args(array_inputs + self.outputs, buffers + pure, self.what)
        inputs, outputs = args[: len(array_inputs)], args[len(array_inputs):]
        with call_device(call.ctx) as device:  # on a GPU: XLA's stream is current in the call
            if self.graph_mode in (GraphMode.NONE, GraphMode.JAX):
                self._call(device, batch, inputs, outputs, call.attrs)
                return
            if not device.is_cuda:
                raise RuntimeError(
                    f"{self.what}: graph_mode {self.graph_mode.name} captures a Warp CUDA graph and is not "
                    "supported on the CPU; use GraphMode.NONE or GraphMode.JAX"
                )
            self._call_captured(device, batch, inputs, outputs, call)

    def _call(self, device: Any, batch: tuple[int, ...], inputs: list[BatchedArg], outputs: list[BatchedArg],
              attrs: dict[str, Any]) -> None:
        zero_outputs(outputs, device)
        for index in batch_indices(batch):
            values, it = [], iter(inputs)
            for p in self.inputs:
                values.append(_array_view(next(it), index, device) if p.is_array else attrs[p.name])
            values += [_array_view(a, index, device) for a in outputs]
            self.func(*values)

    def _call_captured(self, device: Any, batch: tuple[int, ...], inputs: list[BatchedArg],
                       outputs: list[BatchedArg], call: xla_ffi.CallArguments) -> None:
        key = (
            device.ordinal, batch, tuple(a.buffer.ptr for a in inputs + outputs),
            tuple(sorted((name, repr(value)) for name, value in call.attrs.items())),
        )
        with self._graphs_lock:  # one capture per device at a time (XLA may call from several threads)
            graph = self._graphs.pop(key, None)
            if graph is None:
                stream = warp.get_stream(device)
                warp.capture_begin(device, stream=stream)
                try:
                    self._call(device, batch, inputs, outputs, call.attrs)
                finally:
                    graph = warp.capture_end(device, stream=stream)
            self._graphs[key] = graph  # most recently used last
            while len(self._graphs) > _MAX_GRAPHS:
                del self._graphs[next(iter(self._graphs))]
        warp.capture_launch(graph)


def register_ffi_callback(name: str, func: Callable[..., Any], graph_compatible: bool = True) -> None:
    """Register ``func(inputs, outputs, attrs, ctx)`` as the XLA FFI target ``name``.

    ``inputs``/``outputs`` are buffers with ``shape``, ``dtype`` and ``__array_interface__``
    (CPU) or ``__cuda_array_interface__`` (GPU), usable directly as ``wp.launch`` arguments;
    ``attrs`` maps attribute names to values; ``ctx.stream`` is the CUDA stream (None on CPU).
    Call it with ``jax.ffi.ffi_call(name, result_shapes)(*arrays, **attributes)``.
    """

    def run(call: xla_ffi.CallArguments) -> None:
        func(call.inputs, call.outputs, call.attrs, call.ctx)

    del graph_compatible  # the targets do not declare XLA command-buffer support: never captured
    xla_ffi.register_everywhere(name, run)
