"""warp.render: UsdRenderer writes prims and time samples (where usd-core is installed);
OpenGLRenderer raises an error naming what is missing; importing warp.render needs neither."""

import os
import subprocess
import sys

import numpy as np
import pytest

import warp as wp
import warp.render


def test_import_without_usd_core():
    code = (
        "import sys; sys.modules['pxr'] = None\n"  # makes `import pxr` fail
        "import warp.render\n"
        "try:\n    warp.render.UsdRenderer('x.usda')\n"
        "except ImportError as e:\n    print('ERR', e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    )
    expected = 'ERR warp.render.UsdRenderer needs the usd-core package to write USD stages'
    assert expected + ' (pip install ".[usd]"' in out.stdout

def test_opengl_renderer_names_what_is_missing(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    if sys.platform.startswith("linux"):
        with pytest.raises(
            RuntimeError, match=r"OpenGLRenderer needs .*a display \(DISPLAY / WAYLAND_DISPLAY"
        ):
            warp.render.OpenGLRenderer(vsync=False)
    monkeypatch.setattr(warp.render.opengl.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(RuntimeError, match=r"needs the pyglet package"):
        warp.render.OpenGLRenderer()
    monkeypatch.setattr(warp.render.opengl.importlib.util, "find_spec", lambda name: object())
    monkeypatch.setenv("DISPLAY", ":0")
    with pytest.raises(NotImplementedError, match="use warp.render.UsdRenderer"):
        warp.render.OpenGLRenderer()


def test_usd_renderer_writes_prims_and_time_samples(tmp_path):
    Usd = pytest.importorskip("pxr.Usd")
    UsdGeom = pytest.importorskip("pxr.UsdGeom")
    path = str(tmp_path / "scene.usda")
    ref = str(tmp_path / "ref.usda")
    ref_stage = Usd.Stage.CreateNew(ref)
    ref_stage.SetDefaultPrim(UsdGeom.Sphere.Define(ref_stage, "/ball").GetPrim())
    ref_stage.Save()

    r = warp.render.UsdRenderer(path, fps=30, up_axis="Z")
    r.render_ground(size=5.0)
    points = [np.random.default_rng(k).random((10, 3)).astype(np.float32) for k in range(3)]
    verts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=np.float32)
    tris = np.array([0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3], dtype=np.int32)
    for frame in range(3):
        r.begin_frame(frame / 30.0)
        r.render_points("particles", points[frame], radius=0.1, colors=(0.8, 0.3, 0.2))
        r.render_mesh("tet", verts + frame, tris, pos=(frame, 0.0, 0.0))
        r.render_box(
            "box",
            pos=wp.vec3(0.0, 0.0, float(frame)),
            rot=wp.quat(0.0, 0.0, 0.0, 1.0),
            extents=(0.5, 1.0, 2.0),
        )
        r.render_sphere("sphere", pos=(0.0, 1.0, 0.0), rot=(0.0, 0.0, 0.0, 1.0), radius=0.25 * (frame + 1))
        r.render_capsule(
            "capsule", pos=(0.0, 0.0, 0.0), rot=(0.0, 0.0, 0.0, 1.0), radius=0.1, half_height=0.5
        )
        r.render_ref(
            "ref",
            ref,
            pos=wp.vec3(2.0, 0.0, 0.0),
            rot=wp.quat(0.0, 0.0, 0.0, 1.0),
            scale=wp.vec3(1.0, 1.0, 1.0),
        )
        r.end_frame()
    assert r.save()

    stage = Usd.Stage.Open(path)
    assert (
        stage.GetTimeCodesPerSecond() == 30 and stage.GetStartTimeCode() == 0 and stage.GetEndTimeCode() == 2
    )
    assert UsdGeom.GetStageUpAxis(stage) == UsdGeom.Tokens.z
    pts = UsdGeom.Points(stage.GetPrimAtPath("/root/particles"))
    assert pts.GetPointsAttr().GetTimeSamples() == [0.0, 1.0, 2.0]
    for frame in range(3):
        np.testing.assert_allclose(np.array(pts.GetPointsAttr().Get(frame)), points[frame])
    np.testing.assert_allclose(np.array(pts.GetWidthsAttr().Get(1)), 0.2)
    mesh = UsdGeom.Mesh(stage.GetPrimAtPath("/root/tet"))
    np.testing.assert_allclose(np.array(mesh.GetPointsAttr().Get(2)), verts + 2)
    assert list(mesh.GetFaceVertexIndicesAttr().Get()) == tris.tolist()
    assert list(mesh.GetFaceVertexCountsAttr().Get()) == [3, 3, 3, 3]
    world = UsdGeom.Xformable(mesh).ComputeLocalToWorldTransform(2)
    assert tuple(world.ExtractTranslation()) == (2.0, 0.0, 0.0)
    box = UsdGeom.Cube(stage.GetPrimAtPath("/root/box"))
    m = UsdGeom.Xformable(box).ComputeLocalToWorldTransform(1)
    bound = box.ComputeWorldBound(1, "default").ComputeAlignedRange()
    np.testing.assert_allclose(np.array(bound.GetMin()), [-0.5, -1.0, -1.0], atol=1e-6)
    np.testing.assert_allclose(np.array(bound.GetMax()), [0.5, 1.0, 3.0], atol=1e-6)
    assert tuple(m.ExtractTranslation()) == (0.0, 0.0, 1.0)
    sphere = UsdGeom.Sphere(stage.GetPrimAtPath("/root/sphere"))
    assert [sphere.GetRadiusAttr().Get(t) for t in range(3)] == [0.25, 0.5, 0.75]
    capsule = UsdGeom.Capsule(stage.GetPrimAtPath("/root/capsule"))
    assert capsule.GetHeightAttr().Get(0) == 1.0 and capsule.GetAxisAttr().Get() == "Y"
    referenced = stage.GetPrimAtPath("/root/ref")
    assert referenced.GetTypeName() == "Sphere"  # the referenced file's default prim
    ground = UsdGeom.Mesh(stage.GetPrimAtPath("/root/ground"))
    g = np.array(ground.GetPointsAttr().Get())
    assert np.all(g[:, 2] == 0) and np.abs(g).max() == 5.0
    i = list(ground.GetFaceVertexIndicesAttr().Get())
    assert np.cross(g[i[1]] - g[i[0]], g[i[2]] - g[i[0]])[2] > 0  # faces up (+Z)


def test_usd_renderer_errors(tmp_path):
    pytest.importorskip("pxr.Usd")
    with pytest.raises(ValueError, match="up_axis must be"):
        warp.render.UsdRenderer(str(tmp_path / "a.usda"), up_axis="W")
    with pytest.raises(TypeError, match="file path or a Usd.Stage"):
        warp.render.UsdRenderer(42)
    r = warp.render.UsdRenderer(str(tmp_path / "b.usda"))
    r.begin_frame(0.0)
    with pytest.raises(ValueError, match="3 vertex numbers per triangle"):
        r.render_mesh("m", np.zeros((3, 3)), [0, 1])
    assert os.path.basename(r.stage.GetRootLayer().realPath) == "b.usda"
