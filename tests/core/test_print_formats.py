"""``print`` of composite values and structs in kernels, compared character by character.

Formats follow NVIDIA Warp's kernels: components print with ``%g`` (as float32), a vector as
its components each followed by a space (Warp's issue #278 shows ``print(A[0])`` of a vec3
giving ``1 2 3``), matrices one row per line, quaternions ``x y z w``, transforms
``(px py pz) (qx qy qz qw)``. Structs (undocumented in Warp) print as ``Name(field=value)``.
"""

import warp as wp


@wp.struct
class Particle:
    id: int
    pos: wp.vec3
    mass: float


@wp.kernel
def print_all(p: Particle, m33: wp.mat33d):
    print(wp.vec3(1.0, 2.5, -3.0))
    print(wp.vec2(0.1, 1.0e-7))
    print(wp.vec4i(1, -2, 3, 16777217))
    print(wp.mat22(1.0, 2.0, 3.0, 4.0))
    print(m33)
    print(wp.quat(0.0, 0.0, 0.0, 1.0))
    print(wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat(0.0, 0.0, 0.7071068, 0.7071068)))
    print(wp.spatial_vector(1.0, 2.0, 3.0, 4.0, 5.0, 6.0))
    print(p)
    print("v =", wp.vec2(0.5, 2.0))
    print(0.1)
    print(wp.float64(123456789.0))
    print(-7)


def test_print_formats(capfd):
    p = Particle()
    p.id = 7
    p.pos = wp.vec3(0.5, -1.0, 2.0)
    p.mass = 1.25
    m = wp.mat33d(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.5)
    capfd.readouterr()
    wp.launch(print_all, dim=1, inputs=[p, m])
    wp.synchronize()
    out = capfd.readouterr().out
    expected = (
        "1 2.5 -3 \n"
        "0.1 1e-07 \n"
        "1 -2 3 1.67772e+07 \n"
        "1 2 \n3 4 \n"
        "1 2 3 \n4 5 6 \n7 8 9.5 \n"
        "0 0 0 1\n"
        "(1 2 3) (0 0 0.707107 0.707107)\n"
        "1 2 3 4 5 6 \n"
        "Particle(id=7, pos=0.5 -1 2 , mass=1.25)\n"
        "v = 0.5 2 \n"
        "0.1\n"
        "1.23457e+08\n"
        "-7\n"
    )
    assert out == expected
