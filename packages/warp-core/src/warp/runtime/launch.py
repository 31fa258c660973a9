"""``wp.launch``: run a kernel (or its adjoint) now, record it for later (``record_cmd=True``), or
hand it to the tape first (the ``warp_record_launch`` hook).

Argument packing and the per-kernel launchers are :mod:`warp.runtime.launcher`'s.
"""

from __future__ import annotations

from typing import Any, Sequence

from warp import config
from warp.arrays import array as Array
from warp.arrays.descriptor import ArrayDescriptor, adjoint_of, is_own_gradient, retained_adjoint
from warp.errors import LaunchTypeError, WarpCodegenError
from warp.kernels import Kernel
from warp.plugins import manager as _plugins
from warp.runtime import devices
from warp.runtime.launch_checks import checked_launch
from warp.runtime.launcher import (  # noqa: F401  (re-exported: the names' old home)
    DEFAULT_BLOCK_DIM,
    MAX_LAUNCH_DIM,
    MAX_LAUNCH_SIZE,
    Launcher,
    _get_launcher,
    get_launcher,
    launch_dims,
    null_array,
)
from warp.runtime.recorded_launch import Launch
from warp.types.helpers import is_struct
from warp.types.array_type import ArrayType


def launch(
    kernel: Any,
    dim: Any,
    inputs: Sequence[Any] = (),
    outputs: Sequence[Any] = (),
    adj_inputs: Sequence[Any] = (),
    adj_outputs: Sequence[Any] = (),
    device: Any = None,
    stream: Any = None,
    adjoint: bool = False,
    record_tape: bool = True,
    record_cmd: bool = False,
    max_blocks: int = 0,
    block_dim: int = 256,
) -> Any:
    """Run ``kernel`` over a grid of ``dim`` threads (int or tuple of up to 4 ints).

    With ``adjoint=True`` the kernel's adjoint runs instead, with ``adj_inputs``/``adj_outputs``
    (gradient arrays or ``None``) matching ``inputs``/``outputs``. With ``record_cmd=True`` nothing
    runs: the launch is returned as a :class:`warp.Launch` to run (and modify) later.
    ``block_dim`` (threads per block, 256 by default) and ``max_blocks`` (a cap on the number of
    blocks when positive; a grid-stride loop in the kernel covers the launch) shape CUDA
    launches; CPU launches accept and ignore them.
    """
    if adjoint and not record_cmd:
        launch_adjoint(kernel, dim, inputs, outputs, adj_inputs, adj_outputs, device=device, stream=stream,
                       block_dim=block_dim, max_blocks=max_blocks, keep_given=True)
        return None
    if record_cmd:
        params = [*inputs, *outputs]
        if adjoint:  # None (or no adjoints at all): an array argument's own .grad, as in NVIDIA Warp
            params += [*default_adjoints(inputs, adj_inputs), *default_adjoints(outputs, adj_outputs)]
        return Launch(kernel, device, params=params, bounds=dim, max_blocks=max_blocks, block_dim=block_dim,
                      adjoint=adjoint)
    if _plugins.records_launches() and record_tape:
        cancels = _plugins.get_plugin_manager().hook.warp_record_launch(
            kernel=kernel, dim=dim, inputs=inputs, outputs=outputs, device=devices.get_device(device),
            block_dim=block_dim, max_blocks=max_blocks,
        )
        try:
            return launch(kernel, dim, inputs, outputs, device=device, stream=stream, record_tape=False,
                          max_blocks=max_blocks, block_dim=block_dim)
        except _REJECTED:  # refused before running (arguments, dims, compilation): leave no trace
            for cancel in cancels:
                if cancel is not None:
                    cancel()
            raise
    try:
        key = device if device.__class__ is str or device is None else device.alias
        launcher = kernel._launchers.get(key)
    except AttributeError:  # not a kernel, or a device object without an alias
        launcher = None
    args = [*inputs, *outputs] if outputs else inputs
    if launcher is None:
        launcher = get_launcher(kernel, device, args=args)
    # A launcher found under an alias or device is for that device; under None, for the default
    # device when it was made, which may have changed since.
    if launcher.mode is not config.mode or (
        device is None and launcher.device is not devices.get_device(None)
    ):
        launcher = get_launcher(kernel, device, args=args)
    # (_blocks inlined: this is the hot path)
    blocks = None if block_dim == DEFAULT_BLOCK_DIM and max_blocks == 0 else (block_dim, max_blocks)
    if config.print_launches or config.verify_fp:
        checked_launch(launcher, args, dim, stream, blocks)
        return
    launcher.launch(args, dim, stream, blocks)


def launch_adjoint(
    kernel: Any,
    dim: Any,
    inputs: Sequence[Any],
    outputs: Sequence[Any],
    adj_inputs: Sequence[Any] = (),
    adj_outputs: Sequence[Any] = (),
    device: Any = None,
    stream: Any = None,
    block_dim: int = DEFAULT_BLOCK_DIM,
    max_blocks: int = 0,
    keep_given: bool = False,
) -> None:
    """Run the adjoint of ``kernel`` (what ``wp.launch(..., adjoint=True)`` does).

    ``adj_inputs``/``adj_outputs`` match ``inputs``/``outputs``; ``None`` (or none at all) stands
    for an array argument's own ``.grad``. The adjoint of a store consumes (zeroes) the adjoint
    element it reads, except in the gradient of a ``retain_grad`` array and, with ``keep_given``
    (``wp.launch``, ``wp.Launch``), in an adjoint that is not the argument's own ``.grad``: the
    caller's buffer (a framework's incoming gradient, which may be shared with other
    consumers). The tape passes ``keep_given=False``: its adjoints are the gradients it
    propagates (to arguments that may be its saved copies).
    """
    adj_inputs = default_adjoints(inputs, adj_inputs)
    adj_outputs = default_adjoints(outputs, adj_outputs)
    custom = kernel.custom_adjoint if isinstance(kernel, Kernel) else None
    if custom is not None:  # a kernel whose adjoint is computed by other launches (wp.matmul)
        custom(dim, list(inputs), list(outputs), list(adj_inputs), list(adj_outputs), device, stream)
        return
    fwd = [*inputs, *outputs]
    adj_launcher = get_launcher(kernel, device, adjoint=True, args=fwd)
    adj = [*adj_inputs, *adj_outputs]
    if len(adj) != len(fwd):
        raise LaunchTypeError(
            f"kernel '{kernel.name}': adjoint launch needs one adjoint argument per argument "
            f"({len(fwd)}), got {len(adj)}"
        )
    # None left (an array without .grad, a value parameter): no adjoint, a null gradient
    # array or zero for a value (whose adjoint the kernel ignores).
    adj = [_zero_adjoint(t) if a is None else a for a, t in zip(adj, adj_launcher.kernel.arg_types)]
    for k, (a, g) in enumerate(zip(fwd, adj)):
        if not isinstance(g, Array) or g._ptr is None:
            continue
        own = is_own_gradient(a, g)
        if (keep_given and not own) or (own and isinstance(a, Array) and a._retain_grad):
            adj[k] = retained_adjoint(g)  # stores' adjoints leave it in place
        elif k >= len(adj_inputs):
            adj[k] = _unaliased(g)
    adj_launcher.launch([*fwd, *adj], dim, stream, _blocks(block_dim, max_blocks))


def default_adjoints(args: Sequence[Any], adjoints: Sequence[Any]) -> list[Any]:
    """Adjoint arguments of an adjoint launch: ``adjoints`` with ``None`` for an array argument
    replaced by that array's ``.grad``; no adjoints at all means ``None`` for each argument."""
    adjoints = list(adjoints) if adjoints else [None] * len(args)
    return [_own_adjoint(a) if d is None else d for a, d in zip(args, adjoints)] + adjoints[len(args):]


def _own_adjoint(a: Any) -> Any:
    """The adjoint ``None`` stands for: an array's ``.grad``; for a struct, a struct of the same
    type whose array fields (nested structs' too) are the ``.grad`` of ``a``'s; else ``None``."""
    if isinstance(a, Array):
        return adjoint_of(a)
    if is_struct(a):
        adj = type(a)()
        for name, _ in type(a)._fields_:
            grad = _own_adjoint(getattr(a, name))
            if grad is not None:
                setattr(adj, name, grad)
        return adj
    return None


def _blocks(block_dim: Any, max_blocks: Any) -> Any:
    """``Launcher.launch``'s ``blocks`` for these ``wp.launch`` arguments (None: the defaults)."""
    return None if block_dim == DEFAULT_BLOCK_DIM and max_blocks == 0 else (block_dim, max_blocks)


def _unaliased(a: Any) -> Any:
    """An output adjoint whose elements share memory (a zero stride, e.g. a broadcast gradient
    from a framework) as a private contiguous copy: the adjoint of a store consumes (zeroes)
    the element it reads, which must not zero the value other elements read."""
    if isinstance(a, Array) and not isinstance(a, ArrayDescriptor) and any(
        st == 0 and n > 1 for st, n in zip(a.strides, a.shape)
    ):
        return a.contiguous()
    return a


def _zero_adjoint(t: Any) -> Any:
    """The adjoint argument standing for ``None`` for a parameter of type ``t``."""
    if isinstance(t, ArrayType) or not callable(t):
        return None  # arrays (and other objects) accept None
    try:
        return t()
    except TypeError:
        return None


#: Exceptions of a launch refused before its kernel runs (argument and dimension checks, compile
#: errors); an ``IndexError`` of debug mode comes after the kernel ran.
_REJECTED = (TypeError, ValueError, OverflowError, WarpCodegenError)
