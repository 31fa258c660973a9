"""Component assignment and augmented assignment on every composite kind, locally and in arrays.

Local values (vectors, matrix rows/elements, quaternions, transforms, spatial vectors/matrices,
struct fields holding composites) are updated copies; array elements of composite type are
updated in memory, with ``+=`` / ``-=`` on a component being an atomic update of that component
only (as ``a[i] += x`` is for the whole element). References are NumPy computations of the same
updates.
"""

import numpy as np
import pytest

import warp as wp


@wp.kernel
def locals_all_kinds(k: int, fo: wp.array(dtype=float)):
    v = wp.vec3(1.0, 2.0, 3.0)
    v[0] = 10.0
    v.y += 5.0
    v[k] *= 2.0
    v.z -= 0.5
    fo[0] = v[0]
    fo[1] = v[1]
    fo[2] = v[2]
    m = wp.mat22(1.0, 2.0, 3.0, 4.0)
    m[0, 1] = 20.0
    m[1] += wp.vec2(100.0, 200.0)
    m[k, 0] -= 1.0
    m[0][1] += 0.5  # row then element
    fo[3] = m[0, 0]
    fo[4] = m[0, 1]
    fo[5] = m[1, 0]
    fo[6] = m[1, 1]
    q = wp.quat(0.0, 0.0, 0.0, 1.0)
    q.x = 0.5
    q[3] -= 0.25
    q.w *= 2.0
    fo[7] = q[0]
    fo[8] = q.w
    t = wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat(0.0, 0.0, 0.0, 1.0))
    t.p = wp.vec3(4.0, 5.0, 6.0)
    t[1] += 10.0
    t.q = wp.quat(0.0, 1.0, 0.0, 0.0)
    t[6] = 0.25
    fo[9] = t[0]
    fo[10] = t[1]
    fo[11] = t[4]
    fo[12] = t[6]
    s = wp.spatial_vector(1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
    s[5] = -6.0
    s[k + 3] += 100.0
    fo[13] = s[5]
    fo[14] = s[k + 3]
    sm = wp.spatial_matrix()
    sm[5, 4] = 3.0
    sm[2] = s
    sm[5, 4] += 1.0
    fo[15] = sm[5, 4]
    fo[16] = sm[2, 5]


@pytest.mark.needs_plugin("builtins")
@pytest.mark.parametrize("k", [0, 1])
def test_local_component_updates_on_all_kinds(k):
    fo = wp.zeros(17, dtype=float)
    wp.launch(locals_all_kinds, dim=1, inputs=[k, fo])
    v = np.array([1.0, 2.0, 3.0])
    v[0] = 10.0
    v[1] += 5.0
    v[k] *= 2.0
    v[2] -= 0.5
    m = np.array([[1.0, 2.0], [3.0, 4.0]])
    m[0, 1] = 20.0
    m[1] += [100.0, 200.0]
    m[k, 0] -= 1.0
    m[0][1] += 0.5
    q = np.array([0.0, 0.0, 0.0, 1.0])
    q[0] = 0.5
    q[3] -= 0.25
    q[3] *= 2.0
    t = np.array([4.0, 5.0, 6.0, 0.0, 1.0, 0.0, 0.0])
    t[1] += 10.0
    t[6] = 0.25
    s = np.arange(1.0, 7.0)
    s[5] = -6.0
    s[k + 3] += 100.0
    sm = np.zeros((6, 6))
    sm[5, 4] = 3.0
    sm[2] = s
    sm[5, 4] += 1.0
    exp = [*v, *m.reshape(-1), q[0], q[3], t[0], t[1], t[4], t[6], s[5], s[k + 3], sm[5, 4], sm[2, 5]]
    np.testing.assert_allclose(fo.numpy(), exp)


@wp.struct
class Body:
    pos: wp.vec3
    rot: wp.mat22
    xform: wp.transform
    mass: float


@pytest.mark.needs_plugin("builtins")
def test_struct_fields_holding_composites():
    @wp.kernel
    def update(bodies: wp.array(dtype=Body), out: wp.array(dtype=Body)):
        i = wp.tid()
        b = bodies[i]
        b.pos.x = 1.5
        b.pos[2] += 2.0
        b.rot[1, 0] = -3.0
        b.rot[0] += wp.vec2(10.0, 20.0)
        b.xform.p = wp.vec3(7.0, 8.0, 9.0)
        b.mass *= 2.0
        out[i] = b
        bodies[i].pos.y = 42.0
        bodies[i].rot[1][1] = 0.25

    src = Body()
    src.pos = wp.vec3(1.0, 2.0, 3.0)
    src.rot = wp.mat22(1.0, 2.0, 3.0, 4.0)
    src.xform = wp.transform(wp.vec3(0.0, 0.0, 0.0), wp.quat(0.0, 0.0, 0.0, 1.0))
    src.mass = 3.0
    bodies = wp.array([src], dtype=Body)
    out = wp.zeros(1, dtype=Body)
    wp.launch(update, dim=1, inputs=[bodies, out])
    got = out.numpy()[0]
    np.testing.assert_array_equal(got["pos"], [1.5, 2.0, 5.0])
    np.testing.assert_array_equal(got["rot"], [[11.0, 22.0], [-3.0, 4.0]])
    np.testing.assert_array_equal(got["xform"], [7.0, 8.0, 9.0, 0.0, 0.0, 0.0, 1.0])
    assert got["mass"] == 6.0
    back = bodies.numpy()[0]
    np.testing.assert_array_equal(back["pos"], [1.0, 42.0, 3.0])
    np.testing.assert_array_equal(back["rot"], [[1.0, 2.0], [3.0, 0.25]])


@wp.kernel
def array_elements(vs: wp.array(dtype=wp.vec3), ms: wp.array(dtype=wp.mat33), qs: wp.array(dtype=wp.quat),
                   ts: wp.array(dtype=wp.transform), m2: wp.array2d(dtype=wp.vec2), k: int):
    i = wp.tid()
    vs[i][0] = 5.0
    vs[i].y += 1.5
    vs[i][k] -= 0.25
    vs[i][1:] += wp.vec2(10.0, 20.0)
    ms[i][1, 2] = -1.0
    ms[i][0] += wp.vec3(1.0, 2.0, 3.0)
    ms[i][2, k] -= 4.0
    ms[i][:, 1] += wp.vec3(0.5, 0.5, 0.5)
    ms[i][2][0] *= 3.0
    qs[i].w += 1.0
    qs[i][0] = 7.0
    ts[i][2] += 3.0
    ts[i].p += wp.vec3(1.0, 1.0, 1.0)
    m2[i, 1].x += 2.0
    m2[i][0][1] -= 3.0


@pytest.mark.needs_plugin("builtins")
@pytest.mark.parametrize("k", [0, 2, -1])
def test_array_element_component_updates(k):
    n = 3
    rng = np.random.default_rng(k + 5)
    vd, md = rng.normal(size=(n, 3)).astype(np.float32), rng.normal(size=(n, 3, 3)).astype(np.float32)
    qd, td = rng.normal(size=(n, 4)).astype(np.float32), rng.normal(size=(n, 7)).astype(np.float32)
    m2d = rng.normal(size=(n, 2, 2)).astype(np.float32)
    vs, ms = wp.array(vd, dtype=wp.vec3), wp.array(md, dtype=wp.mat33)
    qs, ts, m2 = wp.array(qd, dtype=wp.quat), wp.array(td, dtype=wp.transform), wp.array(m2d, dtype=wp.vec2)
    wp.launch(array_elements, dim=n, inputs=[vs, ms, qs, ts, m2, k])
    vd[:, 0] = 5.0
    vd[:, 1] += 1.5
    vd[:, k] -= 0.25
    vd[:, 1:] += [10.0, 20.0]
    md[:, 1, 2] = -1.0
    md[:, 0] += [1.0, 2.0, 3.0]
    md[:, 2, k] -= 4.0
    md[:, :, 1] += 0.5
    md[:, 2, 0] *= 3.0
    qd[:, 3] += 1.0
    qd[:, 0] = 7.0
    td[:, 2] += 3.0
    td[:, :3] += 1.0
    m2d[:, 1, 0] += 2.0
    m2d[:, 0, 1] -= 3.0
    for got, ref in ((vs, vd), (ms, md), (qs, qd), (ts, td), (m2, m2d)):
        np.testing.assert_allclose(got.numpy(), ref, rtol=1e-6)


def test_component_augmented_assignment_is_atomic(force_parallel):
    """Many threads updating one component of one element: no update is lost. The element index
    comes from an array, so the compiler cannot merge the updates of a chunk of threads."""

    @wp.kernel
    def contend(target: wp.array(dtype=int), vs: wp.array(dtype=wp.vec3), ms: wp.array(dtype=wp.mat22),
                iv: wp.array(dtype=wp.vec2i)):
        i = wp.tid()
        t = target[i]
        vs[t].x += 1.0
        vs[t][2] -= 2.0
        ms[t][1, 0] += 0.5
        ms[t][0] += wp.vec2(1.0, -1.0)
        iv[t].y += i % 3

    n = 400_000
    target = wp.zeros(n, dtype=int)
    vs, ms, iv = wp.zeros(1, dtype=wp.vec3), wp.zeros(1, dtype=wp.mat22), wp.zeros(1, dtype=wp.vec2i)
    wp.launch(contend, dim=n, inputs=[target, vs, ms, iv])
    assert vs.numpy()[0].tolist() == [n, 0.0, -2.0 * n]
    assert ms.numpy()[0].tolist() == [[n, -n], [0.5 * n, 0.0]]
    assert iv.numpy()[0].tolist() == [0, int((np.arange(n) % 3).sum())]


def test_component_update_leaves_other_components_bit_exact():
    """``a[i].x += v`` must not touch y, z: -0.0, NaN and inf stay as they are."""

    @wp.kernel
    def bump(vs: wp.array(dtype=wp.vec4), ds: wp.array(dtype=wp.vec3d)):
        vs[0].x += 1.0
        vs[0].w -= 1.0
        ds[0][1] += wp.float64(2.0)

    vd = np.array([[0.0, -0.0, np.nan, -np.inf]], dtype=np.float32)
    dd = np.array([[-0.0, 1.0, -0.0]], dtype=np.float64)
    vs, ds = wp.array(vd, dtype=wp.vec4), wp.array(dd, dtype=wp.vec3d)
    wp.launch(bump, dim=1, inputs=[vs, ds])
    got = vs.numpy()[0]
    assert got[0] == 1.0 and got[1] == 0.0 and np.signbit(got[1]) and np.isnan(got[2])
    assert got[3] == -np.inf
    gd = ds.numpy()[0]
    assert np.signbit(gd[0]) and gd[1] == 3.0 and np.signbit(gd[2])


def test_whole_element_atomics_on_composite_arrays(force_parallel):
    @wp.kernel
    def atomics(vs: wp.array(dtype=wp.vec3), ms: wp.array(dtype=wp.mat22), old: wp.array(dtype=wp.vec3),
                mx: wp.array(dtype=wp.vec2i)):
        i = wp.tid()
        vs[0] += wp.vec3(1.0, 2.0, 3.0)
        wp.atomic_sub(ms, 0, wp.mat22(1.0, 0.0, 0.0, 2.0))
        wp.atomic_max(mx, 0, wp.vec2i(i, -i))
        wp.atomic_min(mx, 1, wp.vec2i(i, -i))
        if i == 0:
            old[0] = wp.atomic_add(vs, 1, wp.vec3(5.0, 5.0, 5.0))

    n = 1000
    vs = wp.array(np.array([[0, 0, 0], [1, 2, 3]], dtype=np.float32), dtype=wp.vec3)
    ms = wp.zeros(1, dtype=wp.mat22)
    old = wp.zeros(1, dtype=wp.vec3)
    mx = wp.array(np.array([[0, 0], [0, 0]], dtype=np.int32), dtype=wp.vec2i)
    wp.launch(atomics, dim=n, inputs=[vs, ms, old, mx])
    assert vs.numpy().tolist() == [[n, 2 * n, 3 * n], [6, 7, 8]]
    assert ms.numpy()[0].tolist() == [[-n, 0], [0, -2 * n]]
    assert old.numpy()[0].tolist() == [1, 2, 3]
    assert mx.numpy().tolist() == [[n - 1, 0], [0, -(n - 1)]]


def test_component_augmented_assignment_type_errors():
    @wp.kernel
    def bad(vs: wp.array(dtype=wp.vec3)):
        vs[0].x += wp.float64(1.0)

    with pytest.raises(wp.WarpCodegenTypeError, match=r"vec3f got a float64 component .*type `float32`"):
        wp.launch(bad, dim=1, inputs=[wp.zeros(1, dtype=wp.vec3)])

    @wp.kernel
    def bad_attr(vs: wp.array(dtype=wp.vec2)):
        vs[0].z += 1.0

    with pytest.raises(wp.WarpCodegenAttributeError, match=r"vec2f"):
        wp.launch(bad_attr, dim=1, inputs=[wp.zeros(1, dtype=wp.vec2)])
