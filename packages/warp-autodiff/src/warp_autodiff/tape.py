"""``wp.Tape``: records kernel launches and replays their adjoints in reverse order.

Gradients of leaf arrays accumulate over backward passes (``tape.zero()`` resets them); the
gradient of an array element a kernel *stores* is consumed by that store's adjoint (zeroed once
propagated), so an intermediate written again later, or a second ``backward`` without
``zero()``, counts each contribution once, as NVIDIA Warp does.

The adjoint of each launch needs the array contents that launch read, wherever the reverse
uses them (:mod:`warp_autodiff.array_access`). When a recorded launch is about to overwrite an
array whose contents an earlier recorded launch (or itself, reading before writing) still needs,
the tape keeps a copy of those contents and hands it to those adjoints: gradients through
in-place updates and reused buffers stay exact, at the memory cost of the copies (kept until
:meth:`Tape.reset`). A launch that needs both the old and the new contents of one array (a loop
reading what an earlier iteration overwrote) cannot be differentiated: :meth:`Tape.backward`
raises an error naming the kernel, the array and the source lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from warp.extending import (
    array as _array, ArrayDescriptor, get_plugin_manager, hookimpl, clone, launch_adjoint,
)

from warp_autodiff.array_access import Root, kernel_access
from warp_autodiff.copy_adjoint import copy_adjoint_on_device, refuse_host_adjoint_while_capturing
from warp_autodiff.tape_graph import tape_to_dot
from warp_autodiff.tape_launch import TapeLaunch

_active: list[Tape] = []


@dataclass
class _Record:
    """Private bookkeeping of one recorded launch: the primal arguments its adjoint gets."""

    primal: list[Any]
    refused: str = ""


#: attributes of objects that launches view as arrays in place (tensors, NumPy arrays)
_FOREIGN_ARRAY_PROTOCOLS = ("__dlpack__", "__cuda_array_interface__", "__array_interface__")


class _LaunchRecorder:
    """The plugin a tape registers while recording: hands it each forward launch."""

    def __init__(self, tape: Tape) -> None:
        self.tape = tape

    @hookimpl
    def warp_record_launch(
        self, kernel: Any, dim: Any, inputs: list[Any], outputs: list[Any], device: Any, block_dim: int,
        max_blocks: int,
    ) -> Callable[[], None]:
        return self.tape._record(kernel, dim, inputs, outputs, device, block_dim, max_blocks)


class Tape:
    """Record kernel launches within a ``with`` block and compute gradients with :meth:`backward`.

    Gradients accumulate into the ``.grad`` arrays of the arrays the recorded kernels use
    (those created with ``requires_grad=True``); arrays without a gradient are skipped.
    :attr:`gradients` maps each array whose gradient the tape used to that gradient array, and
    each struct argument to a struct of the same type holding its array fields' gradients.
    """

    def __init__(self) -> None:
        #: array -> its gradient array, for every array whose gradient a backward pass used
        self.gradients: dict[Any, Any] = {}
        #: recorded launches (:class:`TapeLaunch`, Warp's layout) and custom callables
        self.launches: list[Any] = []
        #: set while the tape copies an array for its own use (not recorded as a program copy)
        self._saving = False
        self.scopes: list[tuple[int, str | None, Any]] = []
        self.loss: Any = None
        self._records: list[_Record | None] = []
        #: array data pointer -> (record, argument root) whose adjoint needs its current contents
        self._pending: dict[int, list[tuple[_Record, Root]]] = {}
        #: bytes held by copies of overwritten arrays
        self.saved_bytes = 0
        #: the plugin registered while recording (``warp_record_launch``)
        self._recorder = _LaunchRecorder(self)

    # -- recording --------------------------------------------------------------------------
    def __enter__(self) -> Tape:
        if _active:
            raise RuntimeError("Warp: a Tape is already recording; nested tapes are not supported")
        _active.append(self)
        get_plugin_manager().register(self._recorder)
        return self

    def __exit__(self, *exc: Any) -> None:
        pm = get_plugin_manager()
        if pm.is_registered(self._recorder):
            pm.unregister(self._recorder)
        if _active and _active[-1] is self:
            _active.pop()

    def _record(
        self, kernel: Any, dim: Any, inputs: Any, outputs: Any, device: Any, block_dim: int = 256,
        max_blocks: int = 0,
    ) -> Callable[[], None]:
        """Record a launch about to run; returns what forgets it if the launch is refused."""
        inputs, outputs = list(inputs), list(outputs)
        self.launches.append(TapeLaunch([kernel, dim, max_blocks, inputs, outputs, device, block_dim, None]))
        record = _Record(inputs + outputs)
        self._records.append(record)
        if getattr(kernel, "enable_backward", None) is not False:
            try:
                self._track_arrays(kernel, record)
            except Exception as exc:  # noqa: BLE001 - never break the forward launch; refuse its backward
                name = getattr(kernel, "name", kernel)
                reason = f"{type(exc).__name__}: {exc}"
                record.refused = f"the array accesses of kernel '{name}' could not be analysed ({reason})"
        return lambda: self._forget(record)

    def _forget(self, record: _Record) -> None:
        """Drop the record of a launch that was refused before it ran (copies it saved of arrays
        for earlier launches hold the unchanged contents and stay valid)."""
        for i in range(len(self._records) - 1, -1, -1):
            if self._records[i] is record:
                del self._records[i]
                del self.launches[i]
                break
        for ptr in list(self._pending):
            kept = [(r, root) for r, root in self._pending[ptr] if r is not record]
            if kept:
                self._pending[ptr] = kept
            else:
                del self._pending[ptr]

    def _track_arrays(self, kernel: Any, record: _Record) -> None:
        """Keep copies of arrays this launch overwrites while recorded adjoints still need them."""
        if getattr(kernel, "is_generic", False):
            kernel = kernel.specialize(record.primal)  # the instance the launch runs
        access = kernel_access(kernel)
        written: dict[int, _array] = {}
        reads: list[tuple[Root, _array, str]] = []
        for root, use in access.uses.items():
            array = _resolve(record.primal, root)
            if not isinstance(array, _array) or array.ptr is None:
                continue
            if use.need == "mixed":
                record.refused = (
                    f"kernel '{access.name}' needs both the old and the new contents of array argument "
                    f"'{_arg_name(kernel, root)}': it reads them at {use.before} and at {use.after}, and "
                    f"overwrites them at {use.first_write}; the adjoint cannot replay such reads (write the "
                    "new values to a separate array)"
                )
            if use.writes:
                written[array.ptr] = array
            if use.need in ("before", "after"):
                reads.append((root, array, use.need))
        for ptr, array in written.items():
            # contents about to be overwritten: kept for earlier launches and for this one's reads
            waiting = self._pending.pop(ptr, [])
            waiting += [(record, root) for root, a, need in reads if need == "before" and a.ptr == ptr]
            if waiting:
                self._save(array, waiting)
        for root, array, need in reads:
            address = array.ptr
            assert address is not None  # arrays without memory were skipped above
            if need == "after" or address not in written:
                self._pending.setdefault(address, []).append((record, root))

    def _save(self, array: _array, waiting: list[tuple[_Record, Root]]) -> None:
        """Copy ``array`` (about to be overwritten) for the adjoints of ``waiting``."""
        self._saving = True  # the tape's own copy is not a copy of the program's to differentiate
        try:
            copy = clone(array, requires_grad=False)
        finally:
            self._saving = False
        self.saved_bytes += array.size * array._info.itemsize
        for record, root in waiting:
            record.primal = _replace(record.primal, root, copy)

    def record_func(self, backward: Callable[[], None], arrays: list[Any]) -> None:
        """Record a Python callable run (instead of a kernel adjoint) during :meth:`backward`.

        ``arrays`` are the arrays whose gradients it updates; they are zeroed by :meth:`zero`.
        """
        for a in arrays:
            if isinstance(a, _array) and not isinstance(a, ArrayDescriptor) and a.grad is not None:
                self.gradients[a] = a.grad
            else:
                raise RuntimeError(
                    f"Tape.record_func: array {a!r} has no gradient (create it with requires_grad=True)"
                )
        self.launches.append(backward)
        self._records.append(None)

    def record_copy(self, dest: _array, src: _array, dest_offset: int, src_offset: int, count: int) -> None:
        """Record ``dest[window] = src[window]`` (``wp.copy``, ``wp.clone``, ``array.assign``),
        about to run: its adjoint adds the destination window's gradient to the source window's
        and zeroes it (the copy is the last write there: earlier writes get no gradient)."""
        if self._saving:
            return
        if dest.ptr is not None:
            waiting = self._pending.pop(dest.ptr, [])  # earlier adjoints still need dest's contents
            if waiting:
                self._save(dest, waiting)

        def adjoint() -> None:
            if dest.grad is None:
                return
            self.gradients[dest] = dest.grad
            dest_grad = _window(dest.grad, dest_offset, count)
            if src.grad is None:
                if not dest.retain_grad:  # consumed, unless retained
                    dest_grad.zero_()
                return
            self.gradients[src] = src.grad
            src_grad = _window(src.grad, src_offset, count)
            dest_window, src_window = _window(dest, dest_offset, count), _window(src, src_offset, count)
            if copy_adjoint_on_device(dest_window, src_window, dest_grad, src_grad):
                return
            refuse_host_adjoint_while_capturing(dest, src)
            seed = dest_grad.numpy().copy()
            if not dest.retain_grad:  # consumed, unless retained
                dest_grad.zero_()
            src_grad.assign(src_grad.numpy() + seed)

        self.launches.append(adjoint)
        self._records.append(None)

    def record_scope_begin(self, scope_name: str, metadata: Any = None) -> None:
        """Mark the start of a named group of launches (kept for visualization tools):
        ``scopes`` gets ``(launch index, scope_name, metadata or {})``."""
        self.scopes.append((len(self.launches), scope_name, {} if metadata is None else metadata))

    def record_scope_end(self, remove_scope_if_empty: bool = True) -> None:
        """Mark the end of the innermost open scope: ``scopes`` gets ``(launch index, None, None)``,
        or, with ``remove_scope_if_empty`` and no launch recorded since it began, the scope's
        markers are removed. Raises ``RuntimeError`` when no scope is open."""
        depth = 0
        for k in range(len(self.scopes) - 1, -1, -1):
            name = self.scopes[k][1]
            if name is None:
                depth += 1  # the end of a nested scope: skip its begin
            elif depth == 0:
                break
            else:
                depth -= 1
        else:
            raise RuntimeError("Warp: ended tape scope, but scope not present (no open record_scope_begin)")
        if remove_scope_if_empty and self.scopes[k][0] == len(self.launches):
            del self.scopes[k:]  # nothing recorded in it (nor in the scopes nested in it)
        else:
            self.scopes.append((len(self.launches), None, None))

    # -- backward ---------------------------------------------------------------------------
    def backward(self, loss: Any = None, grads: dict[Any, Any] | None = None) -> None:
        """Run the adjoints of the recorded launches in reverse order.

        ``loss``: a one-element array with ``requires_grad=True``; its gradient is set to 1.
        ``grads``: ``{array: seed}`` gradients to start from (e.g. a row selector for Jacobians).
        """
        if loss is not None:
            if not isinstance(loss, _array):
                raise TypeError(f"Tape.backward: loss must be a warp array, got {type(loss).__name__}")
            if loss.size > 1:
                raise RuntimeError("Can only return gradients for scalar loss functions.")
            if loss.grad is None:
                raise RuntimeError(
                    "Scalar loss arrays should have requires_grad=True set before calling Tape.backward()"
                )
            self.loss = loss
            loss.grad.fill_(1.0)
        if grads:
            for a, g in grads.items():
                if a.grad is None:
                    a.grad = g
                else:
                    a.grad.assign(g)
                self.gradients[a] = a.grad
        refused = [r.refused for r in self._records if r is not None and r.refused]
        if refused:
            raise RuntimeError(f"Tape.backward: {refused[0]}")
        for entry, record in zip(reversed(self.launches), reversed(self._records)):
            if callable(entry):
                entry()
                continue
            inputs, outputs = entry.inputs, entry.outputs
            adj_inputs = [self.get_adjoint(a) for a in inputs]
            adj_outputs = [self.get_adjoint(a) for a in outputs]
            primal = record.primal if record is not None else inputs + outputs
            n = len(inputs)
            launch_adjoint(entry.kernel, entry.dim, primal[:n], primal[n:], adj_inputs, adj_outputs,
                           device=entry.device, block_dim=entry.block_dim, max_blocks=entry.max_blocks)

    def get_adjoint(self, a: Any) -> Any:
        """The adjoint argument for launch argument ``a``: its gradient, ``None``, or ``a`` itself."""
        if isinstance(a, _array):
            grad = a.grad
            if grad is None:
                return None
            self.gradients[a] = grad
            return grad
        if getattr(type(a), "_wp_kind_", "") == "struct":
            adj = self._struct_adjoint(a)
            self.gradients[a] = adj  # its array fields are in gradients too (zero() clears them)
            return adj
        if any(hasattr(a, p) for p in _FOREIGN_ARRAY_PROTOCOLS):
            # a framework tensor or NumPy array viewed in place by the launch: it has no gradient
            # here, and passing it as its own adjoint would accumulate adjoints into its values
            return None
        return a  # scalars and other values: no gradient flows back through them

    def _struct_adjoint(self, s: Any) -> Any:
        """A struct of the same type whose array fields are the gradients of ``s``'s arrays."""
        adj = type(s)()
        for name, _ in type(s)._fields_:
            value = getattr(s, name)
            if isinstance(value, _array) or getattr(type(value), "_wp_kind_", "") == "struct":
                grad = self.get_adjoint(value)
                if grad is not None:
                    setattr(adj, name, grad)
        return adj

    # -- housekeeping -----------------------------------------------------------------------
    def zero(self) -> None:
        """Set every gradient array the tape used to zero."""
        for grad in self.gradients.values():
            if isinstance(grad, _array):
                grad.zero_()

    def reset(self) -> None:
        """Forget the recorded launches (and copies of overwritten arrays), zero the gradients."""
        self.launches = []
        self.scopes = []
        self._records = []
        self._pending = {}
        self.saved_bytes = 0
        self.zero()

    def visualize(
        self,
        filename: str | None = None,
        simplify_graph: bool = True,
        hide_readonly_arrays: bool = False,
        array_labels: dict[Any, str] | None = None,
        ignore_graph_scopes: bool = False,
        graph_direction: str = "LR",
    ) -> str:
        """The recorded launches as GraphViz DOT text (also written to ``filename`` if given).

        Launches are nodes linked to the arrays they read and write (``array_labels`` names
        arrays; ``hide_readonly_arrays`` leaves out arrays no launch writes); ``simplify_graph``
        merges consecutive identical launches into one ``repeated Nx`` node; named scopes are
        clusters unless ``ignore_graph_scopes``. ``graph_direction``: GraphViz ``rankdir``.
        """
        text = tape_to_dot(self, simplify_graph, hide_readonly_arrays, array_labels, ignore_graph_scopes,
                           graph_direction)
        if filename is not None:
            with open(filename, "w", encoding="utf-8") as f:
                f.write(text)
        return text

    def __repr__(self) -> str:
        return f"<warp.Tape launches={len(self.launches)} gradients={len(self.gradients)}>"


def recording_tape() -> Tape | None:
    """The ``wp.Tape`` recording now, if any."""
    return _active[-1] if _active else None


def _window(a: _array, offset: int, count: int) -> _array:
    """Elements ``[offset, offset + count)`` of ``a`` (flattened when contiguous) as a view."""
    if offset == 0 and count == a.size:
        return a
    flat = a if a.ndim == 1 else a.flatten()
    return flat[offset : offset + count]


def _resolve(args: list[Any], root: Root) -> Any:
    """The array at ``root`` (argument index, struct field path) of launch arguments ``args``."""
    k, path = root
    value = args[k] if k < len(args) else None
    for name in path:
        value = getattr(value, name, None)
    return value


def _replace(args: list[Any], root: Root, new: Any) -> list[Any]:
    """``args`` with the array at ``root`` replaced by ``new`` (struct arguments are copied)."""
    k, path = root
    out = list(args)
    out[k] = _with_field(out[k], path, new)
    return out


def _with_field(value: Any, path: tuple[str, ...], new: Any) -> Any:
    if not path:
        return new
    copy = type(value)()
    for name, _ in type(value)._fields_:
        setattr(copy, name, getattr(value, name))
    setattr(copy, path[0], _with_field(getattr(value, path[0]), path[1:], new))
    return copy


def _arg_name(kernel: Any, root: Root) -> str:
    names = list(getattr(kernel, "arg_names", []))
    k, path = root
    base = names[k] if k < len(names) else f"#{k}"
    return ".".join([base, *path])
