"""Indexed arrays (``wp.indexedarray``, ``a[index_array]``): an array seen through index arrays.

``wp.indexedarray(data, [i0, i1, ...])`` (or ``data[i0, i1]`` with ``wp.array`` indices) is the
array whose element ``[j0, j1, ...]`` is ``data[i0[j0], i1[j1], ...]``; a dimension given
``None`` (or a slice in ``data[...]``) is taken whole. It shares ``data``'s memory: reading it
gathers the indexed elements, writing it (``assign``, ``fill_``, ``wp.copy`` into it) scatters
into ``data``. Index arrays are 1-D ``int32`` arrays on ``data``'s device.

Here indexed arrays live in Python scope only (copies, NumPy conversion, fills): they are not
kernel arguments or struct fields, and launches refuse them with a ``TypeError`` saying so.

On the CPU, gathers and scatters index the data's memory with NumPy in place. For data on another
device (CUDA) they run as kernels there (:mod:`warp.arrays.indexed_device`): fills, assignments
and copies from arrays on that device, and ``contiguous()``, never stage through host memory, so
graph capture records them; ``numpy()`` gathers on the device, then downloads.

The module takes arrays (``wp.array``) as arguments and uses their methods, so the array class
can build on it (``array.__getitem__`` makes indexed arrays).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from warp.arrays.capture_guard import is_capturing, refuse_while_capturing
from warp.arrays.conversion import is_bfloat16_element, value_to_numpy
from warp.arrays.indexed_device import copy_on_device, fill_on_device
from warp.arrays.layout import MAX_DIMS, element_info, resolve_dtype
from warp.types import bfloat16_bits
from warp.types.scalars import int32, type_repr

if TYPE_CHECKING:
    from warp.arrays.array import array


def _is_array(value: Any) -> bool:
    is_array_class = bool(getattr(type(value), "_wp_array_class_", False))
    return is_array_class and not getattr(value, "_is_annotation", True)


class indexedarray:  # noqa: N801  (NVIDIA Warp's name)
    """``data`` seen through index arrays: element ``[j0, j1, ...]`` is
    ``data[i0[j0], i1[j1], ...]`` for ``indices=[i0, i1, ...]`` (1-D ``int32`` arrays on
    ``data``'s device; ``None`` or a missing index takes a dimension whole). ``data[i0, i1]``
    with ``wp.array`` indices makes one too. It shares ``data``'s memory: reads gather, writes
    (``assign``, ``fill_``, ``wp.copy`` into it) scatter. Python scope only: kernels and structs
    do not take indexed arrays here. Without ``data``: a type description holding no data."""

    #: Fixed dimension count of the ``indexedarray1d``..``indexedarray4d`` subclasses.
    _fixed_ndim_: int | None = None

    def __init__(
        self, data: array | None = None, indices: Any = None, dtype: Any = Any, ndim: int | None = None
    ) -> None:
        fixed = self._fixed_ndim_
        if fixed is not None:
            if ndim is not None and ndim != fixed:
                raise ValueError(f"{type(self).__name__} has ndim={fixed}, got ndim={ndim}")
            ndim = fixed
        if data is None:
            self._data = None
            self._indices: tuple[array | None, ...] = ()
            self._dtype = resolve_dtype(dtype)
            self._shape: tuple[int, ...] = (0,) * (1 if ndim is None else ndim)
            return
        if not _is_array(data) or not hasattr(data, "_storage"):
            raise TypeError(f"indexedarray: data must be a warp array, got {type(data).__name__}")
        if dtype is not Any and resolve_dtype(dtype) != data.dtype:
            raise TypeError(
                f"indexedarray: dtype {type_repr(resolve_dtype(dtype))} does not match the data's dtype "
                f"{type_repr(data.dtype)}"
            )
        if ndim is not None and ndim != data.ndim:
            raise ValueError(f"indexedarray: ndim={ndim} does not match the data's {data.ndim} dimensions")
        self._data = data
        self._dtype = data.dtype
        self._indices = _check_indices(data, indices)
        self._shape = tuple(n if idx is None else idx.shape[0] for n, idx in zip(data.shape, self._indices))

    @classmethod
    def __class_getitem__(cls, params: Any) -> indexedarray:
        """``wp.indexedarray[float]``, ``wp.indexedarray[float, 2]``: type descriptions."""
        ndim = None
        if isinstance(params, tuple):
            if len(params) != 2:
                raise TypeError(f"invalid parameters for {cls.__name__}[...]: {params!r}")
            params, ndim = params
            ndim = getattr(ndim, "__args__", (ndim,))[0]  # typing.Literal[2]
        return cls(dtype=params, ndim=ndim)

    # -- attributes ---------------------------------------------------------------------------

    @property
    def data(self) -> array | None:
        """The indexed array (None for a type description)."""
        return self._data

    @property
    def indices(self) -> list[array | None]:
        """One index array (or None: the whole dimension) per dimension of :attr:`data`."""
        return list(self._indices)

    @property
    def dtype(self) -> Any:
        """Element type."""
        return self._dtype

    @property
    def shape(self) -> tuple[int, ...]:
        """Extent of each dimension: an index array's length, or the data's extent."""
        return self._shape

    @property
    def ndim(self) -> int:
        """Number of dimensions (that of :attr:`data`)."""
        return len(self._shape)

    @property
    def size(self) -> int:
        """Number of elements."""
        return math.prod(self._shape) if self._data is not None else 0

    @property
    def device(self) -> Any:
        """The device of :attr:`data` (None for a type description)."""
        return None if self._data is None else self._data.device

    @property
    def is_contiguous(self) -> bool:
        """Always False: the elements are wherever the index arrays point."""
        return False

    @property
    def requires_grad(self) -> bool:
        """Always False: indexed arrays carry no gradient here."""
        return False

    @property
    def grad(self) -> None:
        """None: indexed arrays carry no gradient here."""
        return None

    def __len__(self) -> int:
        return self._shape[0]

    def __repr__(self) -> str:
        if self._data is None:
            return f"indexedarray(dtype={type_repr(self._dtype)}, ndim={self.ndim})"
        return f"indexedarray(shape={self._shape}, dtype={type_repr(self._dtype)}, device={self.device})"

    # -- data access --------------------------------------------------------------------------

    def numpy(self) -> np.ndarray:
        """A NumPy copy of the indexed elements (composite dtypes add trailing dimensions)."""
        values = self._gather()
        return bfloat16_bits.as_public(values) if is_bfloat16_element(self._dtype) else values

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        values = self.numpy()
        return values if dtype is None else values.astype(dtype)

    def list(self) -> list[Any]:
        """The elements in row-major order as a flat Python list."""
        return self.contiguous().list()

    def contiguous(self) -> array:
        """A new contiguous ``wp.array`` of the indexed elements, on the same device."""
        data = self._checked_data("contiguous()")
        dest = data._new(self._shape)
        if not self._gather_on_device(dest):
            store_host_values(dest, self._gather())
        return dest

    def zero_(self) -> None:
        """Set the indexed elements of :attr:`data` to zero."""
        self.fill_(0)

    def fill_(self, value: Any) -> None:
        """Set the indexed elements of :attr:`data` to ``value``."""
        info = element_info(self._dtype)
        try:
            values = value_to_numpy(value, info, self._dtype)
            element = np.zeros((1, *info.inner_shape), dtype=info.np_dtype)
            element[0] = values
        except (ValueError, TypeError) as e:
            raise ValueError(
                f"cannot fill an array of dtype {type_repr(self._dtype)} with {value!r}: {e}"
            ) from None
        data = self._checked_data("fill_()")
        if self.size == 0:
            return
        if self._on_device():
            self._check_indices_unless_capturing()
            if fill_on_device(data, self._indices, element.tobytes()):
                return
        self._scatter(values, "fill_()")

    def assign(self, src: Any) -> None:
        """Write the elements of ``src`` (an array, indexed array, NumPy array or list of this
        shape) into the indexed elements of :attr:`data`."""
        if isinstance(src, indexedarray) or _is_array(src):
            if src.shape != self._shape:
                raise ValueError(
                    f"assign: source shape {src.shape} does not match indexed shape {self._shape}"
                )
            if self.size and copy_between_on_device(self, src):
                return
            values = host_values(src)
            if is_bfloat16_element(src.dtype) != is_bfloat16_element(self._dtype):
                values = (
                    bfloat16_bits.from_bits(values)
                    if is_bfloat16_element(src.dtype)
                    else bfloat16_bits.to_bits(values)
                )
        else:
            values = value_to_numpy(src, element_info(self._dtype), self._dtype)
        self._scatter(values, "assign()")

    # -- gather / scatter ---------------------------------------------------------------------

    def _checked_data(self, what: str) -> array:
        if self._data is None:
            raise TypeError(f"{what} is not available on an indexedarray type description (no data)")
        return self._data

    def _selector(self) -> tuple[Any, ...]:
        """The NumPy index selecting the indexed elements of the data's host values (the index
        arrays read on the host and checked)."""
        data = self._data
        assert data is not None
        axes = []
        for k, (n, idx) in enumerate(zip(data.shape, self._indices)):
            if idx is None:
                axes.append(np.arange(n))
                continue
            values = host_values(idx).astype(np.int64)
            bad = (values < 0) | (values >= n)
            if bad.any():
                j = int(np.argmax(bad))
                raise IndexError(
                    f"indexedarray: index {int(values[j])} at position {j} of the index array of "
                    f"dimension {k} is out of bounds for size {n}"
                )
            axes.append(values)
        return np.ix_(*axes)

    def _on_device(self) -> bool:
        """Whether the data is on a device other than the CPU (gathers and scatters in kernels)."""
        data = self._data
        return data is not None and data.device is not None and not data.device.is_cpu

    def _check_indices_unless_capturing(self) -> None:
        """Raise ``IndexError`` for an out-of-range index before a kernel gathers or scatters.

        The indices are read on the host, which graph capture cannot do (the copy would only be
        recorded): during capture the check is skipped, as NVIDIA Warp checks nothing there; the
        kernels then skip out-of-range elements rather than touch memory outside the data."""
        data = self._data
        if data is not None and any(idx is not None for idx in self._indices):
            if not is_capturing(data.device):
                self._selector()

    def _gather_on_device(self, dest: array) -> bool:
        """Gather the indexed elements into contiguous ``dest`` (this shape and dtype, on the
        data's device) in a kernel there; False when that is not available (the CPU)."""
        return self.size > 0 and copy_between_on_device(dest, self)

    def _gather(self) -> np.ndarray:
        """The raw host values (bfloat16 as bits) of the indexed elements, in this shape (gathered
        on the data's device first when it is not the CPU)."""
        data = self._checked_data("numpy()")
        if self.size == 0:
            info = element_info(self._dtype)
            return np.zeros(self._shape + info.inner_shape, dtype=info.np_dtype)
        if self._on_device():
            dense = data._new(self._shape)
            if self._gather_on_device(dense):
                return dense._storage()
        return np.ascontiguousarray(data._storage()[self._selector()])

    def _scatter(self, values: np.ndarray, what: str) -> None:
        """Write raw host ``values`` (broadcast to this shape) into the indexed elements of the data."""
        data = self._checked_data(what)
        if self.size == 0:
            return
        refuse_while_capturing(data.device, f"{what} of an indexed array")
        host = data._storage()
        host[self._selector()] = values
        if data.device is not None and not data.device.is_cpu:
            data._upload(host)


def _check_indices(data: array, indices: Any) -> tuple[array | None, ...]:
    """One index array or None per dimension of ``data``, checked."""
    if indices is None:
        indices = []
    elif _is_array(indices):
        indices = [indices]
    indices = list(indices)
    if len(indices) > data.ndim:
        raise ValueError(
            f"indexedarray: {len(indices)} index arrays given for an array of {data.ndim} dimensions"
        )
    indices += [None] * (data.ndim - len(indices))
    for k, idx in enumerate(indices):
        if idx is None:
            continue
        if not _is_array(idx) or not hasattr(idx, "_storage"):
            raise TypeError(
                f"indexedarray: the index of dimension {k} must be a warp array or None, "
                f"got {type(idx).__name__}"
            )
        if idx.dtype is not int32 or idx.ndim != 1:
            raise TypeError(
                f"indexedarray: index arrays must be 1-D arrays of int32, got one of "
                f"dtype {type_repr(idx.dtype)} with {idx.ndim} dimensions (dimension {k})"
            )
        if idx.device != data.device:
            raise ValueError(
                f"indexedarray: the index array of dimension {k} is on {idx.device}, "
                f"the data on {data.device}"
            )
    return tuple(indices)


def has_index_arrays(key: Any) -> bool:
    """Whether an ``array[key]`` key holds ``wp.array`` indices (an indexed view)."""
    if isinstance(key, tuple):
        return any(_is_array(k) for k in key)
    return _is_array(key)


def indexed_view(arr: array, key: Any) -> indexedarray:
    """``arr[key]`` for a key holding index arrays: basic indices (ints, slices, ``...``) apply
    first as a view, then the index arrays to the dimensions they stand in."""
    key = key if isinstance(key, tuple) else (key,)
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if Ellipsis in key:
        pos = key.index(Ellipsis)
        key = key[:pos] + (slice(None),) * max(arr.ndim - (len(key) - 1), 0) + key[pos + 1 :]
    if len(key) > arr.ndim:
        raise IndexError(
            f"too many indices for array: array is {arr.ndim}-dimensional, but {len(key)} were indexed"
        )
    basic = tuple(slice(None) if _is_array(k) else k for k in key)
    indices: list[array | None] = []
    for k in key:
        if isinstance(k, slice):
            indices.append(None)
        elif _is_array(k):
            indices.append(k)
        # an integer index removes its dimension
    view = arr[basic] if any(not _is_array(k) for k in key) else arr
    if not _is_array(view):
        raise IndexError("an indexed view needs at least one dimension left besides the integer indices")
    return indexedarray(view, indices)


def _parts(a: Any) -> tuple[array, list[array | None]]:
    """The data array and per-dimension index arrays (None: whole) of an array or indexed array."""
    if isinstance(a, indexedarray):
        return a._checked_data("copy"), list(a._indices)
    return a, [None] * a.ndim


def copy_between_on_device(dest: Any, src: Any) -> bool:
    """``dest = src`` for arrays or indexed arrays of one shape and dtype whose data is on one
    device other than the CPU, in a kernel there (no host staging: graph capture records it);
    False when that is not available (the CPU, different devices or dtypes, no implementation)."""
    device = dest.device
    if device is None or device.is_cpu or src.device != device or src.dtype != dest.dtype:
        return False
    for side in (dest, src):
        if isinstance(side, indexedarray):
            side._check_indices_unless_capturing()
    dest_data, dest_indices = _parts(dest)
    src_data, src_indices = _parts(src)
    return copy_on_device(dest_data, dest_indices, src_data, src_indices)


def host_values(a: Any) -> np.ndarray:
    """Raw host values (bfloat16 as bits) of an array or indexed array, in its shape."""
    return a._gather() if isinstance(a, indexedarray) else a._storage()


def store_host_values(dest: array, values: np.ndarray) -> None:
    """Write raw host ``values`` (``dest``'s shape and storage dtype) into array ``dest``."""
    if dest.size == 0:
        return
    if dest.device is None or dest.device.is_cpu:
        np.copyto(dest._storage(), values, casting="unsafe")
    else:
        host = dest._storage()
        np.copyto(host, values, casting="unsafe")
        dest._upload(host)


def _annotation_class(ndim: int) -> type[indexedarray]:
    return type(
        f"indexedarray{ndim}d",
        (indexedarray,),
        {
            "_fixed_ndim_": ndim,
            "__doc__": f"An indexed array of {ndim} dimension(s).",
            "__module__": __name__,
        },
    )


indexedarray1d = _annotation_class(1)
indexedarray2d = _annotation_class(2)
indexedarray3d = _annotation_class(3)
indexedarray4d = _annotation_class(4)

assert MAX_DIMS == 4

__all__ = [
    "has_index_arrays",
    "indexed_view",
    "indexedarray",
    "indexedarray1d",
    "indexedarray2d",
    "indexedarray3d",
    "indexedarray4d",
]
