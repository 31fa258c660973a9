"""Python-scope API names user code reaches: devices, ScopedTimer, array.list(), config, constants."""

from __future__ import annotations

import time

import numpy as np
import pytest

import warp as wp

wp.config.quiet = True


def test_device_queries():
    assert wp.is_cpu_available() is True
    assert isinstance(wp.is_cuda_available(), bool)
    assert wp.get_device("cpu").is_cpu and str(wp.get_device("cpu")) == "cpu"
    with wp.ScopedDevice("cpu") as device:
        assert wp.get_device() is device
        a = wp.zeros(3)
        assert a.device is device
    wp.synchronize_device("cpu")
    wp.synchronize_device()


def test_scoped_timer_measures_and_reports(capsys):
    times: dict[str, list[float]] = {}
    with wp.ScopedTimer("sleep", dict=times) as timer:
        time.sleep(0.02)
    assert timer.elapsed >= 19.0  # milliseconds
    assert times == {"sleep": [timer.elapsed]}
    out = capsys.readouterr().out
    assert out.startswith("sleep took ") and out.rstrip().endswith(" ms")
    assert abs(float(out.split()[2]) - timer.elapsed) < 0.01

    with wp.ScopedTimer("quiet", print=False, dict=times, synchronize=True) as quiet:
        pass
    assert capsys.readouterr().out == "" and len(times["quiet"]) == 1 and quiet.elapsed >= 0.0
    with wp.ScopedTimer("off", active=False) as off:
        time.sleep(0.001)
    assert off.elapsed == 0.0 and capsys.readouterr().out == ""


def test_scoped_timer_nesting_indents(capsys):
    with wp.ScopedTimer("outer"):
        with wp.ScopedTimer("inner"):
            pass
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("    inner took ") and lines[1].startswith("outer took ")


def test_scoped_timer_accepts_warp_keywords(capsys):
    reports = []
    options = dict(active=True, print=False, detailed=False, dict=None, use_nvtx=False, color="rapids",
                   synchronize=False, cuda_filter=0, report_func=lambda a, i: reports.append(a),
                   skip_tape=True)
    with wp.ScopedTimer("k", **options):
        pass
    assert reports == []


@wp.struct
class Particle:
    pos: wp.vec3
    mass: float
    id: int


def test_array_list_of_structs_returns_struct_objects():
    p = [Particle(), Particle()]
    p[0].pos, p[0].mass, p[0].id = wp.vec3(1.0, 2.0, 3.0), 0.5, 7
    p[1].pos, p[1].mass, p[1].id = wp.vec3(4.0, 5.0, 6.0), 1.5, 9
    arr = wp.array(p, dtype=Particle)
    items = arr.list()
    assert [type(x) for x in items] == [Particle, Particle]
    assert items[0].mass == 0.5 and items[1].id == 9
    assert np.array_equal(np.array(items[1].pos), [4.0, 5.0, 6.0]) and type(items[1].pos) is wp.vec3
    assert type(arr[0]) is Particle and arr[1].id == 9


def test_array_list_of_vectors_and_matrices_returns_warp_values():
    v = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3), dtype=wp.vec3)
    items = v.list()
    assert [type(x) for x in items] == [wp.vec3, wp.vec3] and np.array_equal(np.array(items[1]), [3, 4, 5])
    m = wp.array(np.arange(8, dtype=np.float64).reshape(2, 2, 2), dtype=wp.mat22d)
    assert type(m.list()[0]) is wp.mat22d and np.array_equal(np.array(m.list()[1]), [[4, 5], [6, 7]])
    assert wp.array([1, 2, 3], dtype=wp.int32).list() == [1, 2, 3]


def test_config_names_warp_documents_are_accepted():
    for name, value in {
        "verify_fp": False, "verify_cuda": False, "print_launches": False, "verbose": False,
        "verbose_warnings": False, "cache_kernels": True, "mode": "release", "quiet": True,
        "enable_backward": True, "max_unroll": 16, "lineinfo": False, "line_directives": True,
        "optimization_level": None, "ptx_target_arch": None, "cuda_output": None, "llvm_cuda": False,
        "enable_graph_capture_module_load_by_default": True, "enable_vector_component_overwrites": False,
        "legacy_scalar_return_types": False, "compile_time_trace": False, "track_memory": False,
        "load_module_max_workers": None, "use_precompiled_headers": True,
    }.items():
        assert hasattr(wp.config, name), name
        old = getattr(wp.config, name)
        setattr(wp.config, name, value)
        setattr(wp.config, name, old)
    assert isinstance(wp.config.version, str)


def test_print_launches_prints_each_launch(capsys):
    out = wp.zeros(2, dtype=wp.int32)
    wp.config.print_launches = True
    try:
        wp.launch(_set_one, dim=2, inputs=[out])
    finally:
        wp.config.print_launches = False
    printed = capsys.readouterr().out
    assert "_set_one" in printed and "dim=(2,)" in printed and "cpu" in printed


@wp.kernel
def _set_one(out: wp.array(dtype=wp.int32)):
    out[wp.tid()] = 1


@wp.kernel
def _divide(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    out[i] = a[i] / b[i]


def test_verify_fp_reports_non_finite_outputs():
    a = wp.array(np.array([1.0, 2.0], dtype=np.float32))
    out = wp.zeros(2, dtype=wp.float32)
    wp.config.verify_fp = True
    try:
        wp.launch(_divide, dim=2, inputs=[a, wp.array(np.array([1.0, 4.0], dtype=np.float32)), out])
        assert np.array_equal(out.numpy(), [1.0, 0.5])
        with pytest.raises(FloatingPointError, match="kernel '_divide'.*'out'.*not finite"):
            wp.launch(_divide, dim=2, inputs=[a, wp.array(np.array([1.0, 0.0], dtype=np.float32)), out])
    finally:
        wp.config.verify_fp = False


TWO = wp.constant(2)
HALF = wp.constant(0.5)
SCALE = wp.constant(wp.float64(3.0))
AXIS = wp.constant(wp.vec3(0.0, 1.0, 0.0))


@wp.kernel
def _use_constants(out: wp.array(dtype=wp.float64), v: wp.array(dtype=wp.vec3)):
    out[0] = wp.float64(TWO) * SCALE + wp.float64(HALF)
    v[0] = AXIS * float(TWO)


@pytest.mark.needs_plugin("builtins")
def test_constants_keep_their_types_and_values():
    assert TWO == 2 and HALF == 0.5
    out = wp.zeros(1, dtype=wp.float64)
    v = wp.zeros(1, dtype=wp.vec3)
    wp.launch(_use_constants, dim=1, inputs=[out, v])
    assert out.numpy()[0] == 6.5 and np.array_equal(v.numpy()[0], [0.0, 2.0, 0.0])
