"""``warp.render.UsdRenderer``: writes shapes, meshes and point clouds, frame by frame, as time
samples of a USD stage (needs the ``usd-core`` package).

Frames are delimited by ``begin_frame(time)`` / ``end_frame()``; every ``render_*`` call inside a
frame writes its prim's animated attributes (points, transforms) at that frame's time code
(``time * fps``). Prims are created on first use under ``/root``; the stage's time range grows
with the frames written. ``save()`` writes the stage to its file.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from warp.plugins.install_hints import install_hint


def _import_pxr() -> Any:
    try:
        from pxr import Gf, Tf, Usd, UsdGeom, Vt  # optional dependency, needed only here
    except ImportError as e:
        raise ImportError(
            "warp.render.UsdRenderer needs the usd-core package to write USD stages "
            f"({install_hint('usd-core')})"
        ) from e
    return Gf, Tf, Usd, UsdGeom, Vt


def _vec(v: Any, n: int = 3) -> tuple[float, ...]:
    values = tuple(float(x) for x in np.asarray(v, dtype=np.float64).reshape(-1))
    if len(values) != n:
        raise ValueError(f"expected {n} components, got {len(values)}")
    return values


class UsdRenderer:
    """Records frames into a USD stage.

    Args:
        stage: path of the ``.usd``/``.usda`` file to create, or an open ``Usd.Stage``.
        up_axis: ``"X"``, ``"Y"`` or ``"Z"``.
        fps: time codes per second (a frame at ``time`` is written at time code ``time * fps``).
        scaling: uniform scale of the ``/root`` transform.
    """

    def __init__(self, stage: Any, up_axis: str = "Y", fps: int = 60, scaling: float = 1.0) -> None:
        self._Gf, self._Tf, Usd, self._UsdGeom, self._Vt = _import_pxr()
        if isinstance(stage, str):
            self.stage = Usd.Stage.CreateNew(stage)
        elif isinstance(stage, Usd.Stage):
            self.stage = stage
        else:
            raise TypeError(f"UsdRenderer needs a file path or a Usd.Stage, got {type(stage).__name__}")
        up_axis = up_axis.upper()
        if up_axis not in ("X", "Y", "Z"):
            raise ValueError(f"up_axis must be 'X', 'Y' or 'Z', got {up_axis!r}")
        self.up_axis = up_axis
        self.fps = float(fps)
        self.time = 0.0
        self.clock_time = 0.0
        self._frame_open = False
        self._first_code: float | None = None
        self.stage.SetTimeCodesPerSecond(self.fps)
        self.stage.SetFramesPerSecond(self.fps)
        UsdGeom = self._UsdGeom
        UsdGeom.SetStageUpAxis(self.stage, getattr(UsdGeom.Tokens, up_axis.lower()))
        self.root = UsdGeom.Xform.Define(self.stage, "/root")
        self.stage.SetDefaultPrim(self.root.GetPrim())
        if scaling != 1.0:
            self.root.AddScaleOp().Set(self._Gf.Vec3f(float(scaling)))
        self._xform_ops: dict[str, tuple[Any, Any, Any]] = {}

    # frames -----------------------------------------------------------------------------------

    @property
    def time_code(self) -> float:
        """The time code the current frame writes at."""
        return self.time * self.fps

    def begin_frame(self, time: float) -> None:
        """Start the frame at ``time`` seconds."""
        self.time = float(time)
        self.clock_time = self.time
        self._frame_open = True
        code = self.time_code
        if self._first_code is None or code < self._first_code:
            self._first_code = code
            self.stage.SetStartTimeCode(code)
        self.stage.SetEndTimeCode(max(code, self.stage.GetEndTimeCode()))

    def end_frame(self) -> None:
        """Finish the current frame."""
        self._frame_open = False

    def save(self) -> bool:
        """Write the stage to its file; returns True."""
        self.stage.Save()
        return True

    # helpers ----------------------------------------------------------------------------------

    def _path(self, name: str, parent: str | None = None) -> str:
        if not name or "/" in name and not name.startswith("/"):
            raise ValueError(f"invalid prim name {name!r}")
        base = parent if parent else "/root"
        return name if name.startswith("/") else f"{base}/{self._Tf.MakeValidIdentifier(name)}"

    def _set_transform(self, prim: Any, pos: Any, rot: Any, scale: Any = (1.0, 1.0, 1.0)) -> None:
        """Write translate / orient / scale ops of ``prim`` at the current time code."""
        Gf = self._Gf
        key = str(prim.GetPath())
        ops = self._xform_ops.get(key)
        if ops is None:
            xform = self._UsdGeom.Xformable(prim)
            xform.ClearXformOpOrder()
            ops = (xform.AddTranslateOp(), xform.AddOrientOp(), xform.AddScaleOp())
            self._xform_ops[key] = ops
        x, y, z, w = _vec(rot, 4)
        ops[0].Set(Gf.Vec3d(*_vec(pos)), self.time_code)
        ops[1].Set(Gf.Quatf(w, x, y, z), self.time_code)
        ops[2].Set(Gf.Vec3f(*_vec(scale)), self.time_code)

    def _color(self, gprim: Any, color: Any) -> None:
        if color is None:
            return
        values = np.asarray(color, dtype=np.float32).reshape(-1, 3)
        attr = gprim.GetDisplayColorAttr()
        attr.Set(self._Vt.Vec3fArray.FromNumpy(values), self.time_code)
        if len(values) > 1:
            self._UsdGeom.PrimvarsAPI(gprim.GetPrim()).GetPrimvar("displayColor").SetInterpolation("vertex")

    # shapes -----------------------------------------------------------------------------------

    def render_points(
        self,
        name: str,
        points: Any,
        radius: Any,
        colors: Any = None,
        as_spheres: bool = True,
        visible: bool = True,
    ) -> Any:
        """A point cloud: positions (N, 3) and one radius or one per point."""
        pts = np.asarray(points, dtype=np.float32).reshape(-1, 3)
        geom = self._UsdGeom.Points.Define(self.stage, self._path(name))
        self._set_points(geom, pts)
        widths = np.broadcast_to(2.0 * np.asarray(radius, dtype=np.float32).reshape(-1), (len(pts),))
        geom.GetWidthsAttr().Set(self._Vt.FloatArray.FromNumpy(np.ascontiguousarray(widths)), self.time_code)
        if colors is not None and np.asarray(colors).size not in (3, 3 * len(pts)):
            colors = None  # colors of another count than one or one per point are not written
        return self._finish(geom, colors, visible)

    def render_mesh(
        self,
        name: str,
        points: Any,
        indices: Any,
        colors: Any = None,
        pos: Any = (0.0, 0.0, 0.0),
        rot: Any = (0.0, 0.0, 0.0, 1.0),
        scale: Any = (1.0, 1.0, 1.0),
        update_topology: bool = False,
        parent: str | None = None,
        is_template: bool = False,
        smooth_shading: bool = True,
        visible: bool = True,
    ) -> Any:
        """A triangle mesh: vertex positions (N, 3) and flat vertex indices (3 per triangle)."""
        pts = np.asarray(points, dtype=np.float32).reshape(-1, 3)
        idx = np.asarray(indices, dtype=np.int32).reshape(-1)
        if idx.size % 3:
            raise ValueError(f"render_mesh: indices must hold 3 vertex numbers per triangle, got {idx.size}")
        path = self._path(name, parent)
        new = not self.stage.GetPrimAtPath(path).IsValid()
        geom = self._UsdGeom.Mesh.Define(self.stage, path)
        self._set_points(geom, pts)
        if new or update_topology:
            counts = self._Vt.IntArray.FromNumpy(np.full(idx.size // 3, 3, dtype=np.int32))
            at = self.time_code if update_topology else None
            self._set(geom.GetFaceVertexCountsAttr(), counts, at)
            self._set(geom.GetFaceVertexIndicesAttr(), self._Vt.IntArray.FromNumpy(idx), at)
            geom.GetSubdivisionSchemeAttr().Set("none")
        self._set_transform(geom.GetPrim(), pos, rot, scale)
        return self._finish(geom, colors, visible)

    def _set(self, attr: Any, value: Any, time_code: float | None) -> None:
        if time_code is None:
            attr.Set(value)
        else:
            attr.Set(value, time_code)

    def _visibility(self, geom: Any, visible: bool) -> None:
        token = self._UsdGeom.Tokens.inherited if visible else self._UsdGeom.Tokens.invisible
        geom.GetVisibilityAttr().Set(token, self.time_code)

    def _finish(self, geom: Any, color: Any, visible: bool) -> Any:
        """Write ``geom``'s display color (when given) and visibility; returns its prim."""
        self._color(geom, color)
        self._visibility(geom, visible)
        return geom.GetPrim()

    def _set_points(self, geom: Any, pts: np.ndarray) -> None:
        """Write ``geom``'s points (N, 3 float32) at the current time code."""
        geom.GetPointsAttr().Set(self._Vt.Vec3fArray.FromNumpy(pts), self.time_code)

    def render_ref(self, name: str, path: str, pos: Any, rot: Any, scale: Any, color: Any = None) -> Any:
        """A reference to the default prim of another USD file, placed by a transform."""
        prim_path = self._path(name)
        prim = self.stage.GetPrimAtPath(prim_path)
        if not prim.IsValid():
            prim = self.stage.DefinePrim(prim_path)  # typeless: its type comes from the reference
            prim.GetReferences().AddReference(str(path))
        self._set_transform(prim, pos, rot, scale)
        return prim

    def render_box(
        self,
        name: str,
        pos: Any,
        rot: Any,
        extents: Any,
        parent: str | None = None,
        is_template: bool = False,
        color: Any = None,
        visible: bool = True,
    ) -> Any:
        """A box with half-extents ``extents``."""
        geom = self._UsdGeom.Cube.Define(self.stage, self._path(name, parent))
        geom.GetSizeAttr().Set(2.0)
        self._set_transform(geom.GetPrim(), pos, rot, _vec(extents))
        return self._finish(geom, color, visible)

    def render_sphere(
        self,
        name: str,
        pos: Any,
        rot: Any,
        radius: float,
        parent: str | None = None,
        is_template: bool = False,
        color: Any = None,
        visible: bool = True,
    ) -> Any:
        """A sphere of ``radius``."""
        geom = self._UsdGeom.Sphere.Define(self.stage, self._path(name, parent))
        geom.GetRadiusAttr().Set(float(radius), self.time_code)
        self._set_transform(geom.GetPrim(), pos, rot)
        return self._finish(geom, color, visible)

    def _axial(
        self,
        schema: Any,
        name: str,
        pos: Any,
        rot: Any,
        radius: float,
        half_height: float,
        parent: str | None,
        up_axis: int,
        color: Any,
        visible: bool,
    ) -> Any:
        """A UsdGeom shape of ``radius`` and height ``2 * half_height`` along ``up_axis``."""
        geom = schema.Define(self.stage, self._path(name, parent))
        geom.GetRadiusAttr().Set(float(radius), self.time_code)
        geom.GetHeightAttr().Set(2.0 * float(half_height), self.time_code)
        geom.GetAxisAttr().Set("XYZ"[up_axis])
        self._set_transform(geom.GetPrim(), pos, rot)
        return self._finish(geom, color, visible)

    def render_capsule(
        self,
        name: str,
        pos: Any,
        rot: Any,
        radius: float,
        half_height: float,
        parent: str | None = None,
        is_template: bool = False,
        up_axis: int = 1,
        color: Any = None,
        visible: bool = True,
    ) -> Any:
        """A capsule: a cylinder of ``2 * half_height`` along ``up_axis`` with hemispherical caps."""
        return self._axial(
            self._UsdGeom.Capsule, name, pos, rot, radius, half_height, parent, up_axis, color, visible
        )

    def render_cylinder(
        self,
        name: str,
        pos: Any,
        rot: Any,
        radius: float,
        half_height: float,
        parent: str | None = None,
        is_template: bool = False,
        up_axis: int = 1,
        color: Any = None,
        visible: bool = True,
    ) -> Any:
        """A cylinder of height ``2 * half_height`` along ``up_axis``."""
        return self._axial(
            self._UsdGeom.Cylinder, name, pos, rot, radius, half_height, parent, up_axis, color, visible
        )

    def render_cone(
        self,
        name: str,
        pos: Any,
        rot: Any,
        radius: float,
        half_height: float,
        parent: str | None = None,
        is_template: bool = False,
        up_axis: int = 1,
        color: Any = None,
        visible: bool = True,
    ) -> Any:
        """A cone of height ``2 * half_height`` along ``up_axis``."""
        return self._axial(
            self._UsdGeom.Cone, name, pos, rot, radius, half_height, parent, up_axis, color, visible
        )

    def render_line_strip(
        self, name: str, vertices: Any, color: Any = None, radius: float = 0.01, visible: bool = True
    ) -> Any:
        """A polyline through ``vertices`` (N, 3), drawn as a curve of width ``2 * radius``."""
        pts = np.asarray(vertices, dtype=np.float32).reshape(-1, 3)
        geom = self._UsdGeom.BasisCurves.Define(self.stage, self._path(name))
        geom.GetTypeAttr().Set("linear")
        self._set_points(geom, pts)
        geom.GetCurveVertexCountsAttr().Set(self._Vt.IntArray([len(pts)]), self.time_code)
        geom.GetWidthsAttr().Set(self._Vt.FloatArray([2.0 * float(radius)]))
        return self._finish(geom, color, visible)

    def render_ground(self, size: float = 100.0, plane: Sequence[float] | None = None) -> Any:
        """A square ground plane of side ``2 * size`` through the origin, normal to the up axis."""
        up = "XYZ".index(self.up_axis)
        a, b = [n for n in range(3) if n != up]
        corners = np.zeros((4, 3), dtype=np.float32)
        for k, (u, v) in enumerate(((-1, -1), (1, -1), (1, 1), (-1, 1))):
            corners[k, a], corners[k, b] = u * size, v * size
        geom = self._UsdGeom.Mesh.Define(self.stage, "/root/ground")
        geom.GetPointsAttr().Set(self._Vt.Vec3fArray.FromNumpy(corners))
        geom.GetFaceVertexCountsAttr().Set(self._Vt.IntArray([4]))
        order = [0, 3, 2, 1] if (b - a) % 3 == 2 else [0, 1, 2, 3]  # normal along +up
        geom.GetFaceVertexIndicesAttr().Set(self._Vt.IntArray(order))
        return geom.GetPrim()
