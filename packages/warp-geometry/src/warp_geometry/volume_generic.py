"""The type-generic volume builtins: ``volume_lookup``, ``volume_sample``, ``volume_sample_grad``
(which take the value type as ``dtype``) and ``volume_store`` (typed by its value).

They take a type as an argument, which the registry's overload matching does not, so they are
special forms exported on ``wp`` (like ``wp.quat_identity(dtype=...)``) that forward to the typed
builtins ``volume_lookup_f/_v/_i``, ``volume_sample_f/_v/_i``, ``volume_sample_grad_f`` and
``volume_store_f/_v/_i``.
"""

from __future__ import annotations

import ast
from typing import Any

import warp as wp
from warp.extending import (
    BuiltinRegistry, builtin_call, canonical_type, compile_time_object, type_repr, WarpCodegenTypeError,
)
from warp_geometry.volume_wide import GRADIENT_TYPES
from warp_geometry.descriptors import add_builtin
from warp_geometry.volume_queries import volume_store_f_f, volume_store_i_f, volume_store_v_f

GROUP = "Volumes"
_SUFFIX = {wp.float32: "f", wp.vec3: "v", wp.int32: "i", wp.float64: "w", wp.vec3d: "w", wp.vec4f: "w",
           wp.vec4d: "w", wp.uint32: "q", wp.int64: "q"}
_ACCEPTED = "float, wp.vec3, wp.int32, wp.float64, wp.vec3d, wp.vec4f, wp.vec4d, wp.uint32 or wp.int64"
#: value type -> the type of ``volume_sample_grad``'s ``grad`` (its index-space Jacobian)
_GRADIENT = {wp.float32: wp.vec3, wp.vec3: wp.mat33, **GRADIENT_TYPES}


def _short_name(t: Any) -> str:
    """``mat43f`` for a 4x3 float32 matrix (Warp's spelling); other types as ``type_repr``."""
    shape = getattr(t, "_shape_", None)
    scalar = getattr(t, "_wp_scalar_type_", None)
    suffixes: dict[Any, str] = {wp.float16: "h", wp.float32: "f", wp.float64: "d"}
    suffix = suffixes.get(scalar)
    if shape is not None and len(shape) == 2 and suffix is not None:
        return f"mat{shape[0]}{shape[1]}{suffix}"
    return type_repr(t)


def _check_gradient_type(builder: Any, node: ast.expr, dtype: Any, name: str) -> None:
    """A variable passed as ``grad`` must have the gradient type of ``dtype`` volumes (a
    3-vector for scalars, an (n, 3) matrix, one row per component, for n-vectors)."""
    if not isinstance(node, ast.Name):
        return  # other expressions are checked by overload resolution
    value = builder.lookup_var(node.id)
    given = getattr(value, "type", None)
    expected = _GRADIENT[dtype]
    if given is not None and given is not expected:
        raise builder.error(
            f"wp.{name}: Incompatible gradient type, expected {_short_name(expected)}, "
            f"got {_short_name(given)} (the index-space gradient of a {type_repr(dtype)} volume)",
            WarpCodegenTypeError,
            node,
        )


def _dtype(builder: Any, node: ast.expr, name: str) -> tuple[str, Any]:
    obj = compile_time_object(builder, node)
    try:
        t = canonical_type(obj)
    except TypeError:
        t = None
    if t not in _SUFFIX:
        shown = type_repr(t) if t is not None else ast.unparse(node)
        raise builder.error(
            f"wp.{name}: dtype must be {_ACCEPTED}, got {shown}", WarpCodegenTypeError, node
        )
    return _SUFFIX[t], t


class VolumeForm:
    """``wp.<name>(..., dtype)``: forwards to ``<name>_<suffix>`` for the value type ``dtype``."""

    def __init__(self, name: str, positional: int, signature: str, doc: str, grad: bool = False):
        self.name = name
        self.positional = positional
        self.grad = grad
        self._wp_builtin_doc_ = {"group": GROUP, "doc": doc, "signatures": [signature]}
        self.__doc__ = doc

    def _wp_call_(self, builder: Any, node: ast.Call) -> Any:
        args = list(node.args)
        dtype_node = None
        for kw in node.keywords:
            if kw.arg != "dtype":
                raise builder.error(
                    f"wp.{self.name}() got an unexpected keyword argument '{kw.arg}'",
                    WarpCodegenTypeError,
                    node,
                )
            dtype_node = kw.value
        if dtype_node is None and len(args) == self.positional + 1:
            dtype_node = args.pop()
        if dtype_node is None or len(args) != self.positional:
            raise builder.error(
                f"wp.{self.name}() takes {self.positional} arguments and a dtype", WarpCodegenTypeError, node
            )
        suffix, dtype = _dtype(builder, dtype_node, self.name)
        target = f"{self.name}_{suffix}"
        if self.name == "volume_sample" and suffix == "i":
            args = args[:2]  # volume_sample_i(id, uvw): integers are sampled at the closest voxel
        if self.grad and suffix not in ("f", "v", "w"):
            raise builder.error(
                f"wp.{self.name}: {type_repr(dtype)} volumes have no gradients "
                "(float32, vec3f, float64, vec3d, vec4f and vec4d volumes have)",
                WarpCodegenTypeError,
                node,
            )
        if self.grad:
            _check_gradient_type(builder, args[3], dtype, self.name)
        if suffix in ("w", "q"):  # the wide and 64-bit integer grids' builtins take a zero of the type last
            args = [*args, ast.copy_location(ast.Call(func=dtype_node, args=[], keywords=[]), node)]
        return builder.expr(builtin_call(builder, target, args, node))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"wp.{self.name} is a kernel builtin: call it inside a @wp.kernel or @wp.func")

    def __repr__(self) -> str:
        return f"<warp builtin {self.name}>"


def _store_overloads(registry: BuiltinRegistry) -> None:
    ijk = [("id", wp.uint64), ("i", wp.int32), ("j", wp.int32), ("k", wp.int32)]
    for t, func in (
        (wp.float32, volume_store_f_f),
        (wp.vec3, volume_store_v_f),
        (wp.int32, volume_store_i_f),
    ):
        add_builtin(
            registry,
            "volume_store",
            params=ijk + [("value", t)],
            result=None,
            func=func,
            group=GROUP,
            side_effects=True,
            doc="Store ``value`` at voxel (i, j, k) of a volume of its type, when the "
            "voxel lies in an allocated leaf (no-op otherwise).",
        )


def register(registry: BuiltinRegistry) -> None:
    """Register ``volume_store`` (typed by its value argument)."""
    _store_overloads(registry)


def exports() -> dict[str, Any]:
    """The dtype-taking volume builtins."""
    forms = [
        VolumeForm(
            "volume_lookup",
            4,
            "(id: uint64, i: int32, j: int32, k: int32, "
            "dtype: float32 | vec3f | int32 | float64 | vec3d | vec4f | vec4d | uint32 | int64) -> dtype",
            "Value of voxel (i, j, k) of a volume of value type ``dtype`` (background if it has no storage).",
        ),
        VolumeForm(
            "volume_sample",
            3,
            "(id: uint64, uvw: vec3f, sampling_mode: int32, "
            "dtype: float32 | vec3f | int32 | float64 | vec3d | vec4f | vec4d | uint32 | int64) -> dtype",
            "Sample a volume of value type ``dtype`` at index-space point uvw (CLOSEST or LINEAR).",
        ),
        VolumeForm(
            "volume_sample_grad",
            4,
            "(id: uint64, uvw: vec3f, sampling_mode: int32, "
            "grad: vec3f | mat33f | vec3d | mat33d | mat43f | mat43d, "
            "dtype: float32 | vec3f | float64 | vec3d | vec4f | vec4d) -> dtype",
            "Sample a volume and write the index-space gradient to ``grad`` (updates ``grad``): a 3-vector "
            "for scalar volumes, an (n, 3) matrix, one row per component, for vector volumes.",
            grad=True,
        ),
    ]
    return {f.name: f for f in forms}


__all__ = ["VolumeForm", "exports", "register"]
