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
from warp.extending import WarpCodegenTypeError, canonical_type, type_repr

GROUP = "Volumes"
_SUFFIX = {wp.float32: "f", wp.vec3: "v", wp.int32: "i"}


def _dtype(builder: Any, node: ast.expr, name: str) -> str:
    from warp.extending import PyObj
    from warp.extending import BuiltinName

    item = builder.expr(node)
    obj = item.obj if isinstance(item, PyObj) else None
    if isinstance(obj, BuiltinName):
        obj = getattr(wp, obj.name, None)
    try:
        t = canonical_type(obj)
    except TypeError:
        t = None
    if t not in _SUFFIX:
        shown = type_repr(t) if t is not None else ast.unparse(node)
        raise builder.error(
            f"wp.{name}: dtype must be float, wp.vec3 or wp.int32, got {shown}", WarpCodegenTypeError, node
        )
    return _SUFFIX[t]


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
        suffix = _dtype(builder, dtype_node, self.name)
        target = f"{self.name}_{suffix}"
        if self.name == "volume_sample" and suffix == "i":
            args = args[:2]  # volume_sample_i(id, uvw): integers are sampled at the closest voxel
        if self.grad and suffix != "f":
            raise builder.error(
                f"wp.{self.name}: only float volumes have gradients", WarpCodegenTypeError, node
            )
        module = ast.Name("__wp_volume", ast.Load())
        call = ast.Call(func=ast.Attribute(value=module, attr=target, ctx=ast.Load()), args=args, keywords=[])
        for part in (call, call.func, module):
            ast.copy_location(part, node)
        from warp.extending import PyObj

        builder.assign_var("__wp_volume", PyObj(wp))
        return builder.expr(call)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"wp.{self.name} is a kernel builtin: call it inside a @wp.kernel or @wp.func")

    def __repr__(self) -> str:
        return f"<warp builtin {self.name}>"


def _store_overloads(registry: Any) -> None:
    from warp_geometry.descriptors import add_builtin
    from warp_geometry.volume_queries import volume_store_f_f, volume_store_i_f, volume_store_v_f

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


def register(registry: Any) -> None:
    """Register ``volume_store`` (typed by its value argument)."""
    _store_overloads(registry)


def exports() -> dict[str, Any]:
    """The dtype-taking volume builtins."""
    forms = [
        VolumeForm(
            "volume_lookup",
            4,
            "(id: uint64, i: int32, j: int32, k: int32, dtype: float32 | vec3f | int32) -> dtype",
            "Value of voxel (i, j, k) of a volume of value type ``dtype`` (background if it has no storage).",
        ),
        VolumeForm(
            "volume_sample",
            3,
            "(id: uint64, uvw: vec3f, sampling_mode: int32, dtype: float32 | vec3f | int32) -> dtype",
            "Sample a volume of value type ``dtype`` at index-space point uvw (CLOSEST or LINEAR).",
        ),
        VolumeForm(
            "volume_sample_grad",
            4,
            "(id: uint64, uvw: vec3f, sampling_mode: int32, grad: vec3f, dtype: float32) -> float32",
            "Sample a float volume and write the index-space gradient to ``grad`` (updates ``grad``).",
            grad=True,
        ),
    ]
    return {f.name: f for f in forms}


__all__ = ["VolumeForm", "exports", "register"]
