"""``wp.Launch``: a kernel launch recorded with ``wp.launch(..., record_cmd=True)``, replayable cheaply.

The arguments are validated and converted once, packed into the launch buffer once, and kept;
``launch()`` hands the same buffer to the device's target again. Changing a parameter
(:meth:`Launch.set_param_at_index`, :meth:`Launch.set_param_by_name`, :meth:`Launch.set_params`)
or the grid (:meth:`Launch.set_dim`) re-validates that value and repacks the buffer.
"""

from __future__ import annotations

from typing import Any, Sequence

from warp.arrays.array import array
from warp.arrays.descriptor import adjoint_of
from warp.runtime import devices
from warp.runtime.launch_plan import LaunchPlan
from warp.runtime.launcher import get_launcher, launch_dims


class Launch:
    """All the data of one kernel launch, so that it can be replayed quickly.

    Obtain one with ``wp.launch(kernel, dim, inputs, ..., record_cmd=True)``; the kernel does not
    run until :meth:`launch` is called. ``params`` are the kernel's arguments in order (for an
    adjoint launch: the forward arguments, then one adjoint per argument).
    """

    def __init__(
        self,
        kernel: Any,
        device: Any,
        hooks: Any = None,
        params: Sequence[Any] | None = None,
        params_addr: Any = None,
        bounds: Any = None,
        max_blocks: int = 0,
        block_dim: int = 256,
        adjoint: bool = False,
    ):
        if params_addr is not None:
            raise NotImplementedError("wp.Launch(params_addr=...): pass params (Python values) instead")
        self.device = devices.get_device(device)
        forward = list(params or [])[: len(kernel.arg_names)] if params is not None else []
        self._launcher = get_launcher(kernel, self.device, adjoint=adjoint, args=forward)
        self.kernel = self._launcher.kernel
        self.hooks = hooks
        self.max_blocks = max_blocks
        self.block_dim = block_dim
        self.adjoint = adjoint
        self._params: list[Any] = [None] * len(self._launcher.types)
        #: adjoint slots given explicitly (the others follow their array argument's .grad)
        self._adjoint_set: set[int] = set()
        self._buffer: tuple[bytes, bool] | None = None
        #: where the target launches from a reused buffer: this launch's own, filled when repacked
        self._plan: LaunchPlan | None = None
        self.bounds: tuple[int, ...] = (0,)
        self._dims: tuple[tuple[int, ...], int] = ((0, 1, 1, 1), 0)
        if params is not None:
            self.set_params(params)
        if bounds is not None:
            self.set_dim(bounds)

    # -- parameters ------------------------------------------------------------------------
    def _index(self, index: int, adjoint: bool) -> int:
        n = len(self.kernel.arg_names)
        if adjoint and not self.adjoint:
            raise ValueError(
                f"kernel '{self.kernel.name}': this is a forward launch; it has no adjoint parameters"
            )
        if not -n <= index < n:
            raise IndexError(
                f"kernel '{self.kernel.name}' has {n} parameters ({', '.join(self.kernel.arg_names)}); "
                f"index {index} is out of range"
            )
        return index % n + (n if adjoint else 0)

    def set_param_at_index(self, index: int, value: Any, adjoint: bool = False) -> None:
        """Set the kernel argument at ``index`` (of the adjoint arguments with ``adjoint=True``)."""
        slot = self._index(index, adjoint)
        launcher = self._launcher
        self._params[slot] = launcher.convert_one(launcher.names[slot], launcher.types[slot], value)
        self._buffer = None
        if adjoint:
            self._adjoint_set.add(slot)
        elif self.adjoint and isinstance(value, array) and adjoint_of(value) is not None:
            # an adjoint launch uses an array's own .grad until another adjoint is set
            n = len(self.kernel.arg_names)
            if slot + n not in self._adjoint_set:
                self._params[slot + n] = launcher.convert_one(
                    launcher.names[slot + n], launcher.types[slot + n], adjoint_of(value)
                )

    def set_param_by_name(self, name: str, value: Any, adjoint: bool = False) -> None:
        """Set the kernel argument called ``name`` (its adjoint with ``adjoint=True``)."""
        names = list(self.kernel.arg_names)
        if name not in names:
            raise KeyError(
                f"kernel '{self.kernel.name}' has no parameter '{name}' (parameters: {', '.join(names)})"
            )
        self.set_param_at_index(names.index(name), value, adjoint)

    def set_params(self, values: Sequence[Any]) -> None:
        """Set all arguments in order (forward arguments, then adjoints for an adjoint launch)."""
        values = list(values)
        launcher = self._launcher
        if len(values) != len(launcher.types):
            launcher.convert(values)  # raises the launch's own error naming the missing parameters
        self._params = launcher.convert(values)
        self._buffer = None

    def set_param_at_index_from_ctype(self, index: int, value: Any) -> None:
        """As :meth:`set_param_at_index` (values are Python objects here; no ctypes structures)."""
        self.set_param_at_index(index, value)

    def set_param_by_name_from_ctype(self, name: str, value: Any) -> None:
        """As :meth:`set_param_by_name`."""
        self.set_param_by_name(name, value)

    def set_params_from_ctypes(self, values: Sequence[Any]) -> None:
        """As :meth:`set_params`."""
        self.set_params(values)

    # -- grid and launch -------------------------------------------------------------------
    def set_dim(self, dim: Any) -> None:
        """Set the launch grid (an int or a tuple of 1 to 4 ints), validated as ``wp.launch`` does."""
        self._dims = launch_dims(dim, self.kernel.name)
        self.bounds = tuple(self._dims[0][: 1 if isinstance(dim, int) else len(tuple(dim))])
        self._buffer = None

    def launch(self, stream: Any = None) -> None:
        """Run the kernel with the recorded arguments and grid."""
        launcher = self._launcher
        dims, n = self._dims
        if self.block_dim == 256 and self.max_blocks == 0:
            shape = launcher.default_shape
        else:
            shape = launcher.launch_shape(self.block_dim, self.max_blocks)
        if launcher.instrumented:  # debug-mode error record or printf flushing: the regular path
            launcher.launch_instrumented(self._params, dims, n, stream, shape=shape)
            return
        if self._buffer is None:
            self._buffer = launcher.pack_checked(self._params, dims, 0)
            if launcher.in_place:
                if self._plan is None:
                    self._plan = launcher.make_plan()
                assert self._plan is not None  # (in_place: the target launches from buffers)
                self._plan.fill(self._buffer[0])
        buf, contiguous = self._buffer
        plan = self._plan
        if plan is not None:  # replays pack and copy nothing
            (plan.run_contiguous if contiguous else plan.run_strided)(n, stream, self._params, shape)
            return
        (launcher.run_contiguous if contiguous else launcher.run_strided)(buf, n, stream, self._params, shape)

    def __repr__(self) -> str:
        return f"Launch(kernel='{self.kernel.name}', device='{self.device}', dim={self.bounds})"
