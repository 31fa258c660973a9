"""``wp.Launch``: a kernel launch recorded with ``wp.launch(..., record_cmd=True)``, replayable cheaply.

The arguments are validated and converted once, packed into the launch buffer once, and kept;
``launch()`` hands the same buffer to the device's target again. Changing a parameter
(:meth:`Launch.set_param_at_index`, :meth:`Launch.set_param_by_name`, :meth:`Launch.set_params`)
or the grid (:meth:`Launch.set_dim`) re-validates that value and repacks the buffer.
"""

from __future__ import annotations

import ctypes
from typing import Any, Sequence

import numpy as np

from warp.arrays.array import array
from warp.arrays.descriptor import adjoint_of, caller_adjoint, descriptor_from_bytes
from warp.errors import LaunchTypeError
from warp.runtime import devices
from warp.runtime.launch_plan import LaunchPlan
from warp.runtime.launcher import get_launcher, launch_dims
from warp.types.array_type import ArrayType
from warp.types.ctypes_layout import ArrayDescriptorC
from warp.types.helpers import type_is_struct
from warp.types.scalars import is_scalar_type


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
        #: the converted arguments; until set, each parameter's zero value (null arrays)
        self._params: list[Any] = [] if params is not None else [
            self._launcher.convert_one(name, t, _zero_argument(t))
            for name, t in zip(self._launcher.names, self._launcher.types)
        ]
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
    @property
    def params(self) -> list[Any]:
        """The arguments as validated and converted for the kernel, in order (for an adjoint
        launch: the forward arguments, then the adjoints); parameters not set hold zero values."""
        return list(self._params)

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
        if adjoint:  # the caller's buffer unless it is the argument's own .grad (see caller_adjoint)
            value = caller_adjoint(self._params[slot - len(self.kernel.arg_names)], value)
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
        if self.adjoint:  # adjoints other than the arguments' own .grad: the caller's buffers
            n = len(self.kernel.arg_names)
            values[n:] = [caller_adjoint(a, g) for a, g in zip(values[:n], values[n:])]
        self._params = launcher.convert(values)
        self._buffer = None

    def set_param_at_index_from_ctype(self, index: int, value: Any) -> None:
        """As :meth:`set_param_at_index`, ``value`` may also be a ctypes value: an array's or a
        struct's ``__ctype__()``, a ctypes scalar or a ctypes array of a vector's components.
        An array given so is used as a launch-only descriptor of the memory it points at."""
        slot = self._index(index, False)
        self.set_param_at_index(index, self._from_ctype(slot, value))

    def set_param_by_name_from_ctype(self, name: str, value: Any) -> None:
        """As :meth:`set_param_by_name`, taking ctypes values as :meth:`set_param_at_index_from_ctype`."""
        names = list(self.kernel.arg_names)
        if name not in names:
            self.set_param_by_name(name, value)  # raises the KeyError naming the parameters
        self.set_param_at_index_from_ctype(names.index(name), value)

    def set_params_from_ctypes(self, values: Sequence[Any]) -> None:
        """As :meth:`set_params`, taking ctypes values as :meth:`set_param_at_index_from_ctype`."""
        values = list(values)
        self.set_params([self._from_ctype(i, v) if i < len(self._launcher.types) else v
                         for i, v in enumerate(values)])

    def _from_ctype(self, slot: int, value: Any) -> Any:
        """The Python value of a ctypes ``value`` given for parameter ``slot``."""
        t = self._launcher.types[slot]
        if isinstance(value, ctypes._SimpleCData):
            return value.value
        if isinstance(value, ctypes.Array):
            return _ctypes_array_values(value)
        if isinstance(value, ArrayDescriptorC) and isinstance(t, ArrayType):
            return descriptor_from_bytes(bytes(value), t, self.device, owner=value)
        if isinstance(value, ctypes.Structure) and type_is_struct(t):
            if type(value) is not t.ctype:
                raise LaunchTypeError(
                    f"kernel '{self.kernel.name}', argument '{self._launcher.names[slot]}': a ctypes "
                    f"structure {type(value).__name__} is not a {t.__name__} "
                    f"(pass {t.__name__}().__ctype__() or a {t.__name__} instance)"
                )
            record = np.frombuffer(bytes(value), dtype=t.numpy_dtype())[0]
            return t.from_numpy_value(
                record, lambda at, desc: descriptor_from_bytes(desc, at, self.device, owner=value)
            )
        return value

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


def _zero_argument(t: Any) -> Any:
    """The value a parameter of type ``t`` has until set: a null array, zero, a zero value."""
    if isinstance(t, ArrayType):
        return None
    if is_scalar_type(t):
        return False if t._kind_ == "bool" else 0
    if getattr(t, "_wp_scalar_type_", None) is not None:  # composites: all components 0 (a
        return t(np.zeros(t._shape_))  # transform too, where wp.transform() is the identity)
    return t()  # structs: their default field values


def _ctypes_array_values(value: ctypes.Array) -> Any:
    """The (nested) list of a ctypes array's elements (a vector's or matrix's components)."""
    return [_ctypes_array_values(v) if isinstance(v, ctypes.Array) else v for v in value]
