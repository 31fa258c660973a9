"""Pictures of Jacobians (``warp.autograd.jacobian_plot``) and the metadata that labels them.

:class:`FunctionMetadata` describes what a Jacobian's rows and columns are: the labels, element
types and strides of a function's differentiated inputs and outputs. It is made from a kernel's
signature, or from a Python function's parameter names (outputs ``output_0``, ...), and may be
written by hand for other callables. :func:`jacobian_plot` draws the Jacobians of one function
as one matrix of image plots (rows: outputs, columns: inputs, each sized by its number of scalar
components). It needs matplotlib (an optional dependency, imported when a plot is drawn).
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from warp.extending import array as _array, is_scalar_type, Kernel

Key = tuple[int, int]


@dataclass
class FunctionMetadata:
    """Labels and element types of a function's inputs and outputs, as Jacobian plots show them.

    ``input_dtypes`` / ``output_dtypes`` are array element types (their scalar component count
    sizes the plot); ``*_strides`` optionally give each array's strides (None where unknown).
    """

    key: str | None = None
    input_labels: list[Any] = field(default_factory=list)
    output_labels: list[Any] = field(default_factory=list)
    input_strides: list[Any] = field(default_factory=list)
    output_strides: list[Any] = field(default_factory=list)
    input_dtypes: list[Any] = field(default_factory=list)
    output_dtypes: list[Any] = field(default_factory=list)

    @classmethod
    def from_kernel(cls, kernel: Any, inputs: Sequence[Any], outputs: Sequence[Any] = ()) -> FunctionMetadata:
        """Metadata of ``kernel`` launched with ``inputs`` then ``outputs`` (its parameters in order)."""
        names, types = list(kernel.arg_names), list(kernel.arg_types)
        n_in = len(inputs)
        n_out = len(outputs) if outputs else len(names) - n_in
        out_arrays = list(outputs) or [None] * n_out
        return cls(
            key=kernel.key,
            input_labels=names[:n_in],
            output_labels=names[n_in : n_in + n_out],
            input_strides=[_strides(a) for a in inputs],
            output_strides=[_strides(a) for a in outputs] if outputs else [None] * n_out,
            input_dtypes=[_dtype(a, t) for a, t in zip(inputs, types[:n_in])],
            output_dtypes=[_dtype(a, t) for a, t in zip(out_arrays, types[n_in : n_in + n_out])],
        )

    @classmethod
    def from_function(cls, function: Any, inputs: Sequence[Any], outputs: Sequence[Any]) -> FunctionMetadata:
        """Metadata of a Python function called as ``function(*inputs)`` giving ``outputs``."""
        try:
            params = list(inspect.signature(function).parameters)
        except (TypeError, ValueError):
            params = []
        labels = [params[i] if i < len(params) else f"input_{i}" for i in range(len(inputs))]
        return cls(
            key=getattr(function, "__name__", None),
            input_labels=labels,
            output_labels=[f"output_{j}" for j in range(len(outputs))],
            input_strides=[_strides(a) for a in inputs],
            output_strides=[_strides(a) for a in outputs],
            input_dtypes=[_dtype(a, None) for a in inputs],
            output_dtypes=[_dtype(a, None) for a in outputs],
        )


def _strides(a: Any) -> Any:
    return tuple(a.strides) if isinstance(a, _array) else None


def _dtype(a: Any, annotated: Any) -> Any:
    if isinstance(a, _array):
        return a.dtype
    return getattr(annotated, "dtype", None)


def _components(dtype: Any, where: str) -> int:
    """Scalar components of one element of ``dtype`` (1 for scalars, 3 for vec3, ...)."""
    if dtype is None:
        raise ValueError(f"{where}: missing array dtype")
    if is_scalar_type(dtype):
        return 1
    shape = getattr(dtype, "_shape_", None)
    if shape is None:
        raise ValueError(f"{where}: cannot tell the component count of dtype {dtype!r}")
    return math.prod(shape)


def _label(labels: Sequence[Any], index: int, where: str) -> str:
    if index >= len(labels):
        raise ValueError(f"{where}: no label in the metadata ({len(labels)} labels)")
    if labels[index] is None:
        raise ValueError(f"{where}: missing label")
    return str(labels[index])


def jacobian_plot(
    jacobians: dict[Key, Any],
    kernel: FunctionMetadata | Kernel,
    inputs: Sequence[Any] | None = None,
    show_plot: bool = True,
    show_colorbar: bool = True,
    scale_colors_per_submatrix: bool = False,
    title: str | None = None,
    colormap: str = "coolwarm",
    log_scale: bool = False,
) -> Any:
    """Draw ``jacobians`` (``{(input index, output index): 2-D array}``) as one figure: a grid
    of image plots, one column per differentiated input and one row per output, sized by their
    scalar components. ``kernel`` is the kernel the Jacobians are of (then ``inputs`` are needed
    to tell inputs from outputs) or a :class:`FunctionMetadata`. Returns the Matplotlib figure
    (None when there is nothing to draw); ``show_plot`` also shows it."""
    if isinstance(kernel, Kernel):
        if inputs is None:
            raise ValueError("jacobian_plot: inputs must be provided when kernel is a Kernel")
        metadata = FunctionMetadata.from_kernel(kernel, list(inputs))
    elif isinstance(kernel, FunctionMetadata):
        metadata = kernel
    else:
        raise TypeError(
            f"jacobian_plot: kernel must be a Kernel or a FunctionMetadata, got {type(kernel).__name__}"
        )
    if not jacobians:
        return None
    cols = sorted({i for i, _ in jacobians})
    rows = sorted({j for _, j in jacobians})
    widths, heights, xlabels, ylabels = [], [], [], []
    for i in cols:
        where = f"Jacobian input index {i}"
        xlabels.append(_label(metadata.input_labels, i, where))
        dtype = metadata.input_dtypes[i] if i < len(metadata.input_dtypes) else None
        widths.append(_components(dtype, where))
    for j in rows:
        where = f"Jacobian output index {j}"
        ylabels.append(_label(metadata.output_labels, j, where))
        dtype = metadata.output_dtypes[j] if j < len(metadata.output_dtypes) else None
        heights.append(_components(dtype, where))
    mats = {
        k: np.asarray(v.numpy() if hasattr(v, "numpy") else v, dtype=np.float64) for k, v in jacobians.items()
    }
    for (i, j), m in mats.items():  # size each cell by the Jacobian it shows
        widths[cols.index(i)] = max(widths[cols.index(i)], m.shape[1])
        heights[rows.index(j)] = max(heights[rows.index(j)], m.shape[0])

    import matplotlib.pyplot as plt  # optional dependency: only plotting needs it
    from matplotlib import colors

    fig = plt.figure(figsize=(max(4.0, 0.4 * sum(widths) + 2.0), max(3.0, 0.4 * sum(heights) + 1.5)))
    grid = fig.add_gridspec(len(rows), len(cols), width_ratios=widths, height_ratios=heights)
    values = np.concatenate([m.ravel() for m in mats.values()]) if mats else np.zeros(1)
    image = None
    for r, j in enumerate(rows):
        for c, i in enumerate(cols):
            ax = fig.add_subplot(grid[r, c])
            cell = mats.get((i, j))
            if cell is None:
                ax.axis("off")
                continue
            source = cell.ravel() if scale_colors_per_submatrix else values
            vmin, vmax = float(np.nanmin(source)), float(np.nanmax(source))
            if log_scale:
                positive = source[source > 0]
                norm = colors.LogNorm(vmin=float(positive.min()) if positive.size else 1e-12,
                                      vmax=max(vmax, 1e-12))
            else:
                bound = max(abs(vmin), abs(vmax)) or 1.0
                norm = colors.Normalize(vmin=-bound, vmax=bound)
            image = ax.imshow(cell, cmap=colormap, norm=norm, interpolation="nearest", aspect="auto")
            ax.set_xlabel(xlabels[c])
            ax.set_ylabel(ylabels[r])
            if show_colorbar and scale_colors_per_submatrix:
                fig.colorbar(image, ax=ax)
    if show_colorbar and not scale_colors_per_submatrix and image is not None:
        fig.colorbar(image, ax=fig.axes)
    fig.suptitle(title if title is not None else f"{metadata.key or 'unknown'} kernel Jacobian")
    if show_plot:
        plt.show()
    return fig


__all__ = ["FunctionMetadata", "jacobian_plot"]
