"""The ``wp.array`` class: a typed, strided view of device memory (host memory on the CPU).

An array is either *concrete* (it has memory: ``ptr``, ``shape``, ``strides`` in bytes) or an
*annotation* (``wp.array(dtype=float, ndim=2)`` with no data, shape or pointer) used in kernel
signatures. Both expose :attr:`array.array_type`, the compiler's :class:`ArrayType`.

Concrete arrays never change ``ptr``/``shape``/``strides``. The 64-byte kernel argument
descriptor :attr:`array._desc` is precomputed and refreshed only when the gradient changes.
"""

from __future__ import annotations

import math
import struct
import weakref
from typing import Any, Callable

import numpy as np

from warp.arrays import ctypes_access, inplace, staging, views
from warp.arrays.allocation import allocate_array_memory
from warp.arrays.arithmetic import ArithmeticOperators
from warp.arrays.copying import copy_elements
from warp.arrays.cuda_interface import export_interface, import_interface
from warp.arrays.dlpack_export import dl_device_of, dlpack_method
from warp.arrays.conversion import element_value, is_bfloat16_element, prepare_data, value_to_numpy
from warp.arrays.indexed import has_index_arrays, indexed_view
from warp.arrays.indexing import resolve_index
from warp.arrays.ipc import array_ipc_handle
from warp.arrays.layout import (
    contiguous_strides,
    element_info,
    is_contiguous_layout,
    is_generic_dtype,
    normalize_shape,
    resolve_dtype,
    span_in_bytes,
)
from warp.arrays.numpy_interface import as_numpy, host_interface
from warp.arrays.printing import array_repr, array_str
from warp.plugins.manager import get_plugin_manager
from warp.runtime.devices import Device, get_device
from warp.types import bfloat16_bits
from warp.types.array_type import ARRAY_DESC_FORMAT, MAX_DIMS, ArrayType
from warp.types.ctypes_layout import ArrayDescriptorC
from warp.types.scalars import is_scalar_type, type_repr

_desc_struct = struct.Struct(ARRAY_DESC_FORMAT)
_array_types: dict[tuple[Any, int], ArrayType] = {}


def _array_type(dtype: Any, ndim: int) -> ArrayType:
    try:
        return _array_types[(dtype, ndim)]
    except KeyError:
        t = _array_types[(dtype, ndim)] = ArrayType(dtype, ndim)
        return t
    except TypeError:  # unhashable dtype
        return ArrayType(dtype, ndim)


class array(ArithmeticOperators):
    """A multi-dimensional array of ``dtype`` elements (at most 4 dimensions), or an annotation."""

    #: Fixed dimension count of the ``array1d``..``array4d`` helper subclasses.
    _fixed_ndim_: int | None = None
    #: Marks array classes for ``warp.types.is_array``/``type_is_array`` (types must not import arrays).
    _wp_array_class_ = True
    #: The packed kernel argument (None for annotations).
    _desc: bytes | None
    #: The function given with ``ptr=`` that frees that external memory when the array is
    #: collected (``deleter(ptr, capacity)``); None for memory warp allocates or views.
    deleter: Callable[[int, int], None] | None = None
    #: Whether the adjoints of stores into this array leave its gradient in place (``retain_grad``).
    _retain_grad: bool = False

    def __init__(
        self,
        data: Any = None,
        dtype: Any = Any,
        shape: Any = None,
        strides: Any = None,
        ptr: int | None = None,
        capacity: int | None = None,
        device: Any = None,
        pinned: bool = False,
        copy: bool = True,
        owner: bool = False,
        deleter: Callable[[int, int], None] | None = None,
        ndim: int | None = None,
        grad: array | None = None,
        requires_grad: bool = False,
        length: int | None = None,
        retain_grad: bool = False,
    ) -> None:
        fixed = self._fixed_ndim_
        if fixed is not None:
            if ndim is not None and ndim != fixed:
                raise ValueError(f"{type(self).__name__} has ndim={fixed}, got ndim={ndim}")
            ndim = fixed
        self._grad: array | None = None
        self._requires_grad = False
        dtype = resolve_dtype(dtype)
        if shape is None and length is not None:
            shape = length
        if data is not None:
            self._init_from_data(data, dtype, shape, device, copy, pinned)
        elif ptr is not None:
            self._init_from_ptr(ptr, dtype, shape, strides, capacity, device, deleter)
        elif shape is not None:
            self._init_new(dtype, normalize_shape(shape), get_device(device), zero=False, pinned=pinned,
                           strides=strides)
        else:
            self._init_annotation(dtype, 1 if ndim is None else ndim)
            return
        if ndim is not None and ndim != self._ndim:
            raise ValueError(f"array has {self._ndim} dimensions but ndim={ndim} was requested")
        if grad is not None:
            self.grad = grad
        elif requires_grad:
            self._alloc_grad()
        if retain_grad:
            self.retain_grad = True
        self._update_desc()

    # -- construction ---------------------------------------------------------------------------

    def _setup(self, ptr: int, shape: tuple[int, ...], strides: tuple[int, ...], dtype: Any,
               device: Device, mem: Any, capacity: int | None = None) -> None:
        info = element_info(dtype)
        self._ptr = ptr
        self._shape = shape
        self._strides = strides
        self._dtype = dtype
        self._info = info
        self._ndim = len(shape)
        self._size = math.prod(shape)
        self._device = device
        self._mem = mem
        self._is_annotation = False
        self._is_contiguous = is_contiguous_layout(shape, strides, info.itemsize)
        self._capacity = span_in_bytes(shape, strides, info.itemsize) if capacity is None else capacity
        self._array_type = _array_type(dtype, len(shape))

    def _init_annotation(self, dtype: Any, ndim: int) -> None:
        self._array_type = _array_type(dtype, ndim)
        # An annotation has no data: the attributes typed for data arrays hold None (every data
        # path checks _is_annotation first; the public ptr and device properties say None).
        self._ptr = None  # type: ignore[assignment]
        self._shape = (0,) * ndim
        self._strides = (0,) * ndim
        self._dtype = dtype
        self._info = None  # type: ignore[assignment]
        self._ndim = ndim
        self._size = 0
        self._device = None  # type: ignore[assignment]
        self._mem = None
        self._is_annotation = True
        self._is_contiguous = True
        self._capacity = 0
        self._desc = None

    def _init_new(self, dtype: Any, shape: tuple[int, ...], device: Device, zero: bool,
                  pinned: bool = False, strides: Any = None) -> None:
        mem, strides, nbytes = allocate_array_memory(dtype, shape, device, zero, pinned, strides)
        self._setup(mem.ptr, shape, strides, dtype, device, mem, nbytes)

    def _init_from_ptr(self, ptr: int, dtype: Any, shape: Any, strides: Any, capacity: int | None,
                       device: Any, deleter: Callable[[int, int], None] | None) -> None:
        if is_generic_dtype(dtype):
            raise TypeError("an array created from a pointer needs a concrete dtype")
        if shape is None:
            raise TypeError("an array created from a pointer needs a shape")
        shape = normalize_shape(shape)
        itemsize = element_info(dtype).itemsize
        strides = contiguous_strides(shape, itemsize) if strides is None else tuple(int(s) for s in strides)
        if len(strides) != len(shape):
            raise ValueError(f"strides {strides} do not match shape {shape}")
        self._setup(int(ptr), shape, strides, dtype, get_device(device), None, capacity)
        if deleter is not None:
            self.deleter = deleter
            weakref.finalize(self, deleter, self._ptr, self._capacity)

    def _init_from_data(self, data: Any, dtype: Any, shape: Any, device: Any, copy: bool,
                        pinned: bool = False) -> None:
        if isinstance(data, array):
            if data._is_annotation:
                raise TypeError("cannot create an array from an array annotation")
            if is_generic_dtype(dtype):
                dtype = data._dtype
        elif (not isinstance(data, (np.ndarray, list, tuple)) and hasattr(data, "__cuda_array_interface__")
              and not (hasattr(data, "__array_interface__") and get_device(device).is_cpu)):
            # (an object offering both interfaces is read through the host one for a CPU array)
            ptr, shape, strides, dtype, device = import_interface(data, dtype, shape, device)
            if not copy:
                self._setup(ptr, shape, strides, dtype, device, data)
                return
            source = array(ptr=ptr, dtype=dtype, shape=shape, strides=strides, device=device)
            self._init_new(dtype, shape, device, zero=False)
            copy_elements(self, source)
            return
        device = get_device(device)
        arr, dtype = prepare_data(data, dtype, shape)
        info = element_info(dtype)
        k = len(info.inner_shape)
        outer_shape = tuple(arr.shape[: arr.ndim - k])
        if not device.is_cpu or pinned:
            self._init_new(dtype, normalize_shape(outer_shape), device, zero=False, pinned=pinned)
            if self._size:
                staged = np.ascontiguousarray(arr, dtype=info.np_dtype)
                self._upload(staged)
            return
        if not copy and arr.flags.writeable and tuple(arr.strides[arr.ndim - k :]) == info.inner_strides:
            ptr = arr.__array_interface__["data"][0]
            self._setup(ptr, outer_shape, tuple(arr.strides[: arr.ndim - k]), dtype, device, arr)
            return
        self._init_new(dtype, normalize_shape(outer_shape), device, zero=False)
        if self._size:
            np.copyto(self._storage(), arr, casting="unsafe")

    # -- device staging (arrays outside host memory) ---------------------------------------------

    def _download(self) -> np.ndarray:
        """A host copy of a device array's elements (same strides inside a copied span)."""
        return staging.download(self)

    def _upload(self, values: np.ndarray) -> None:
        """Write host ``values`` (this array's shape) into a device array's elements."""
        staging.upload(self, values)

    def _make_view(self, offset: int, shape: tuple[int, ...], strides: tuple[int, ...],
                   dtype: Any = None, grad: array | None = None) -> array:
        """A new array sharing this array's memory (keeps this array alive)."""
        view = array.__new__(array)
        view._setup(self._ptr + offset, shape, strides, self._dtype if dtype is None else dtype,
                    self._device, self)
        view._requires_grad = self._requires_grad
        view._retain_grad = self._retain_grad
        view._grad = grad
        view._update_desc()
        return view

    def _new(self, shape: tuple[int, ...]) -> array:
        """A new uninitialized contiguous array of this dtype and ``shape`` on this device."""
        a = array.__new__(array)
        a._grad = None
        a._requires_grad = False
        a._init_new(self._dtype, shape, self._device, zero=False)
        a._update_desc()
        return a

    def _alloc_grad(self) -> None:
        grad = array.__new__(array)
        grad._grad = None
        grad._requires_grad = False
        grad._init_new(self._dtype, self._shape, self._device, zero=True)
        grad._update_desc()
        self._grad = grad
        self._requires_grad = True

    def _update_desc(self) -> None:
        pad = MAX_DIMS - self._ndim
        grad_ptr = self._grad._ptr if self._grad is not None else 0
        self._desc = _desc_struct.pack(self._ptr or 0, grad_ptr or 0, *self._shape, *(0,) * pad,
                                       *self._strides, *(0,) * pad)

    def _check_concrete(self, what: str) -> None:
        if self._is_annotation:
            raise TypeError(f"{what} is not available on an array annotation (an array type without data)")

    # -- attributes -----------------------------------------------------------------------------

    @property
    def ptr(self) -> int | None:
        """Address of the first element (None for annotations and arrays without elements)."""
        return self._ptr if self._size else None

    @property
    def shape(self) -> tuple[int, ...]:
        """Extent of each dimension."""
        return self._shape

    @property
    def strides(self) -> tuple[int, ...]:
        """Byte step between successive elements of each dimension."""
        return self._strides

    @property
    def dtype(self) -> Any:
        """Element type."""
        return self._dtype

    @property
    def ndim(self) -> int:
        """Number of dimensions (1 to 4)."""
        return self._ndim

    @property
    def size(self) -> int:
        """Number of elements."""
        return self._size

    @property
    def capacity(self) -> int:
        """Bytes of memory addressable from :attr:`ptr`."""
        return self._capacity

    @property
    def device(self) -> Device | None:
        """Device holding the memory (None for annotations)."""
        return self._device

    @property
    def pinned(self) -> bool:
        """Whether the memory is page-locked host memory (``pinned=True`` with CUDA present)."""
        mem = self._mem
        while isinstance(mem, array):
            mem = mem._mem
        owner = getattr(mem, "owner", None)
        return isinstance(owner, str) and owner == "pinned"

    @property
    def is_contiguous(self) -> bool:
        """True if elements are packed in row-major order."""
        return self._is_contiguous

    @property
    def array_type(self) -> ArrayType:
        """The compiler type of this array: ``ArrayType(dtype, ndim)``."""
        return self._array_type

    @property
    def requires_grad(self) -> bool:
        """Whether the array has a gradient; setting True allocates a zeroed :attr:`grad`."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self._check_concrete("requires_grad")
        if value and self._grad is None:
            self._alloc_grad()
        elif not value:
            self._grad = None
            self._retain_grad = False
        self._requires_grad = bool(value)
        self._update_desc()

    @property
    def retain_grad(self) -> bool:
        """Whether :attr:`grad` is left in place by the adjoints of writes to this array.

        By default the adjoint of a store (and of ``wp.copy`` into the array) *consumes* the
        gradient of the overwritten elements (zeroes it once propagated), so a value written
        twice passes its gradient back only through the last write. With ``retain_grad`` the
        gradient stays readable after ``Tape.backward`` (earlier writes then see it too).
        Needs ``requires_grad``.
        """
        return self._retain_grad

    @retain_grad.setter
    def retain_grad(self, value: bool) -> None:
        self._check_concrete("retain_grad")
        if value and not self._requires_grad:
            raise ValueError("retain_grad=True needs requires_grad=True (the array has no gradient)")
        self._retain_grad = bool(value)

    @property
    def grad(self) -> array | None:
        """Gradient array of the same shape and dtype, or None."""
        return self._grad

    @grad.setter
    def grad(self, value: array | None) -> None:
        self._check_concrete("grad")
        if value is None:
            self._grad = None
            self._requires_grad = False
            self._retain_grad = False
        else:
            if not isinstance(value, array) or value._is_annotation:
                raise TypeError(f"grad must be a warp array, got {type(value).__name__}")
            if value._shape != self._shape or value._dtype != self._dtype:
                raise ValueError(
                    f"grad must match the array (shape {self._shape}, dtype {type_repr(self._dtype)}), got "
                    f"shape {value._shape}, dtype {type_repr(value._dtype)}"
                )
            self._grad = value
            self._requires_grad = True
        self._update_desc()

    @property
    def __array_interface__(self) -> dict[str, Any]:
        """NumPy array interface (version 3) over the array's host memory."""
        return host_interface(self)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """NumPy conversion (``np.asarray(a)``): a zero-copy view of a CPU array unless a copy is asked."""
        return as_numpy(self, dtype, copy)

    def ipc_handle(self) -> bytes:
        """The 64-byte handle another process maps this CUDA array's memory with
        (``wp.from_ipc_handle``); the memory must come from ``cuMemAlloc``, i.e. be allocated
        inside ``wp.ScopedMempool(device, False)``, and the array must start it."""
        return array_ipc_handle(self)

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        """CUDA array interface (version 3) of an array in CUDA device memory."""
        if self._is_annotation or self._device is None or self._device.is_cpu:
            raise AttributeError("__cuda_array_interface__ is only available for arrays on CUDA devices")
        return export_interface(self)

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: bool | None = None) -> Any:
        """Export the array as a DLPack capsule (zero-copy; versioned when ``max_version`` allows)."""
        return dlpack_method(self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self) -> tuple[int, int]:
        """The DLPack ``(device_type, device_id)`` of the array's memory."""
        self._check_concrete("__dlpack_device__")
        return dl_device_of(self._device)

    def __matmul__(self, other: Any) -> Any:
        """``a @ b`` of 2-D arrays: ``wp.matmul`` into a new array (differentiable), through the
        ``warp_array_matmul`` hook."""
        product = get_plugin_manager().hook.warp_array_matmul(a=self, b=other)
        return NotImplemented if product is None else product

    def __len__(self) -> int:
        return self._shape[0]

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        return array_repr(self)

    def __str__(self) -> str:
        return array_str(self)

    def _values(self) -> np.ndarray:
        """The data as NumPy values: ``numpy()``, except bfloat16 bits shown as float32 values."""
        values = self._storage()
        return bfloat16_bits.from_bits(values) if is_bfloat16_element(self._dtype) else values

    @classmethod
    def __class_getitem__(cls, params: Any) -> array:
        """``wp.array[float]``, ``wp.array2d[wp.vec3]``, ``wp.array[float, 2]``: annotation instances."""
        ndim = None
        if isinstance(params, tuple):
            if len(params) == 2 and isinstance(params[1], int) and cls._fixed_ndim_ is None:
                params, ndim = params
            elif len(params) == 1:
                params = params[0]
            else:
                raise TypeError(f"invalid parameters for {cls.__name__}[...]: {params!r}")
        return cls(dtype=params, ndim=ndim)

    # -- data access ----------------------------------------------------------------------------

    def numpy(self) -> np.ndarray:
        """A NumPy view of the data (zero-copy on the CPU); composite dtypes add trailing dims.

        NumPy has no bfloat16 of its own: a bfloat16 array's view has dtype
        ``ml_dtypes.bfloat16`` when the optional package ml_dtypes is installed, and is
        ``uint16`` holding the bit patterns otherwise (``warp.types.bfloat16_bits.from_bits``
        turns either into float32 values)."""
        view = self._storage("numpy()")
        if is_bfloat16_element(self._dtype):
            return bfloat16_bits.as_public(view)
        return view

    def _storage(self, what: str = "numpy()") -> np.ndarray:
        """The raw host data as NumPy sees it (bfloat16 as ``uint16`` bit patterns): a view of
        the array's memory on the CPU, a downloaded copy on other devices."""
        self._check_concrete(what)
        if not self._device.is_cpu:
            return self._download()
        view = np.asarray(self)
        exact = self._info.np_dtype
        if exact.fields is not None and view.dtype != exact:
            view = view.view(exact)  # the interface's descr spells padding as fields; restore offsets
        return view

    def list(self) -> list[Any]:
        """The elements in row-major order as a flat Python list."""
        values = self._storage()
        info = self._info
        if is_scalar_type(self._dtype):
            if is_bfloat16_element(self._dtype):
                values = bfloat16_bits.from_bits(values)
            return values.reshape(-1).tolist()
        rows = values.reshape((self._size, *info.inner_shape))
        return [element_value(self._dtype, v, self) for v in rows]

    def cptr(self) -> Any:
        """A ctypes pointer to the elements of a contiguous CPU array (``p[i]`` reads/writes
        element ``i`` without bounds checks), typed by :func:`warp.types.ctypes_layout.ctype_of`
        (struct elements as ``ctypes.Structure``, 16-bit floats as their ``uint16`` bits);
        None for an array without elements."""
        return ctypes_access.element_pointer(self)

    def __ctype__(self) -> ArrayDescriptorC:
        """The array's kernel-argument descriptor as a ctypes structure (data and gradient
        addresses, shape, byte strides); ``wp.Launch.set_param_*_from_ctype`` take it."""
        return ctypes_access.descriptor_struct(self)

    def __getitem__(self, key: Any) -> Any:
        self._check_concrete("indexing")
        if has_index_arrays(key):  # a[idx] with wp.array indices: a wp.indexedarray
            return indexed_view(self, key)
        r = resolve_index(key, self._shape, self._strides)
        if r.element is not None:
            return element_value(self._dtype, self._storage()[r.element], self)
        grad = self._grad[key] if self._grad is not None else None
        return self._make_view(r.offset, r.shape, r.strides, grad=grad)

    def __setitem__(self, key: Any, value: Any) -> None:
        self._check_concrete("item assignment")
        r = resolve_index(key, self._shape, self._strides)
        target = self._storage()
        index = r.element if r.element is not None else key
        if isinstance(value, array):
            value = value._values()  # bfloat16 sources as float32 values, converted below
        target[index] = value_to_numpy(value, self._info, self._dtype)
        if not self._device.is_cpu:
            self._upload(target)

    # -- in-place operations --------------------------------------------------------------------

    def zero_(self) -> None:
        """Set every element to zero."""
        inplace.zero(self)

    def fill_(self, value: Any) -> None:
        """Set every element to ``value`` (a scalar, or a vector/matrix/struct value)."""
        inplace.fill(self, value)

    def assign(self, src: Any) -> None:
        """Copy values from an array, NumPy array or list with the same shape (or element count)."""
        inplace.assign(self, src)

    # -- views and copies -----------------------------------------------------------------------

    def reshape(self, shape: Any) -> array:
        """A view with a new shape (one dimension may be -1); the array must be contiguous."""
        return views.reshape(self, shape)

    def flatten(self) -> array:
        """A 1-D view of a contiguous array."""
        return views.flatten(self)

    def view(self, dtype: Any) -> array:
        """Reinterpret the memory as another dtype: one of the same byte size, the scalar type of
        a vector/matrix dtype (adds its dimensions), or a vector/matrix of the scalar dtype
        (folds the matching trailing dimensions)."""
        return views.view(self, dtype)

    def transpose(self, axes: Any = None) -> array:
        """A view with permuted dimensions (reversed by default)."""
        return views.transpose(self, axes)

    def contiguous(self) -> array:
        """This array if contiguous, else a contiguous copy."""
        return views.contiguous(self)

    def to(self, device: Any, requires_grad: bool | None = None) -> array:
        """This array if already on ``device``, else a copy there."""
        return views.to_device(self, device, requires_grad)

    def _clone(self, device: Any = None, requires_grad: bool | None = None, pinned: bool = False) -> array:
        """A contiguous copy (``wp.clone``) on ``device`` (default: this array's; ``pinned``: in
        page-locked host memory, for a CPU copy)."""
        dest = array(
            dtype=self._dtype, shape=self._shape, device=self._device if device is None else device,
            requires_grad=self._requires_grad if requires_grad is None else requires_grad, pinned=pinned,
        )
        copy_elements(dest, self)
        return dest
