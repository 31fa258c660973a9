"""The kernel cache key covers everything that changes generated code.

Each scenario runs a script in two fresh processes sharing one kernel cache, with a helper module
changed in between (a struct's field type, captured tuples/lists/dicts/objects, module options):
the second process must compile again and compute with the new definitions, never reuse stale
machine code.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
import warp as wp
from warp.compiler.hashing import kernel_hash, type_key, value_key
from warp.compiler.options import CompileOptions, resolve_options
from warp.targets import target_for_kind

HELPERS = """
import types
import numpy as np
import warp as wp

@wp.struct
class Inner:
    a: wp.{inner_a}
    b: wp.float32

@wp.struct
class Outer:
    tag: wp.int32
    inner: Inner

InnerArray = wp.array(dtype=Inner)
COEFFS = ({coeff},)
TABLE = [3, {table}]
OFFSETS = (0.0, {lookup})
params = types.SimpleNamespace(scale={scale})
"""

MAIN = """
import json
import warp as wp
import helpers
from helpers import COEFFS, TABLE, InnerArray, Outer

wp.config.verbose = True  # a line per kernel: cache hit or miss
wp.set_device("cpu")  # a CPU test, also where cuda:0 (the default there) is present
wp.set_module_options({options})

@wp.kernel
def read_nested(o: Outer, out: wp.array(dtype=float)):
    out[0] = o.inner.b

@wp.kernel
def read_alias(arr: InnerArray, out: wp.array(dtype=float)):
    out[0] = arr[1].b

@wp.kernel
def read_globals(out: wp.array(dtype=float)):
    out[0] = float(COEFFS[0])
    out[1] = float(TABLE[1])
    out[2] = helpers.params.scale
    out[3] = wp.vec2(COEFFS[0], helpers.OFFSETS[1])[1]

@wp.kernel
def loop(out: wp.array(dtype=float)):
    s = float(0.0)
    for k in range(4):
        s += float(k)
    out[0] = s

results = {{}}
inner = helpers.Inner(a=1, b=7.5)
o = Outer(tag=3, inner=inner)
out = wp.zeros(4, dtype=float)
wp.launch(read_nested, dim=1, inputs=[o, out])
results["nested"] = float(out.numpy()[0])
arr = wp.array([helpers.Inner(a=2, b=1.25), helpers.Inner(a=3, b=-4.5)], dtype=helpers.Inner)
wp.launch(read_alias, dim=1, inputs=[arr, out])
results["alias"] = float(out.numpy()[0])
wp.launch(read_globals, dim=1, inputs=[out])
results["globals"] = [float(v) for v in out.numpy()]
wp.launch(loop, dim=1, inputs=[out])
results["loop"] = float(out.numpy()[0])
print("RESULTS " + json.dumps(results))
"""


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(textwrap.dedent(text))


def _run(workdir: str, cache: str) -> tuple[dict, list[str]]:
    # the helpers come first; what made warp importable here (PYTHONPATH=site, say) stays after them
    pythonpath = os.pathsep.join(filter(None, [workdir, os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, WARP_CACHE_PATH=cache, PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=pythonpath)
    script = os.path.join(workdir, "main.py")
    proc = subprocess.run([sys.executable, script], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"child failed (rc={proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    lines = proc.stdout.splitlines()
    results = json.loads(next(line for line in lines if line.startswith("RESULTS "))[8:])
    # verbose mode: one line per kernel saying whether it came from the cache
    kernel_lines = [line for line in lines if line.startswith("Warp: kernel ")]
    statuses = ["cached" if ": cache hit;" in line else "compiled" for line in kernel_lines]
    return results, statuses


def _scenario(tmp_path, before: dict, after: dict, options_before: str = "{}", options_after: str = "{}"):
    workdir, cache = str(tmp_path / "src"), str(tmp_path / "cache")
    os.makedirs(workdir)
    _write(os.path.join(workdir, "helpers.py"), HELPERS.format(**before))
    _write(os.path.join(workdir, "main.py"), MAIN.format(options=options_before))
    first, statuses = _run(workdir, cache)
    assert statuses == ["compiled"] * 4
    again, statuses = _run(workdir, cache)
    assert again == first and statuses == ["cached"] * 4  # nothing changed: everything reused
    _write(os.path.join(workdir, "helpers.py"), HELPERS.format(**after))
    _write(os.path.join(workdir, "main.py"), MAIN.format(options=options_after))
    second, statuses = _run(workdir, cache)
    return first, second, statuses


BASE = {"inner_a": "float32", "coeff": "1.5", "table": "4", "lookup": "0.5", "scale": "2.0"}


@pytest.mark.slow
def test_changed_struct_layout_and_captured_values_recompile(tmp_path):
    after = {"inner_a": "float64", "coeff": "2.5", "table": "9", "lookup": "0.25", "scale": "3.0"}
    first, second, statuses = _scenario(tmp_path, BASE, after)
    assert first["nested"] == 7.5 and first["alias"] == -4.5
    assert first["globals"] == [1.5, 4.0, 2.0, 0.5]
    # Inner.a became float64: Inner.b moved, Outer and arrays of Inner changed layout.
    assert second["nested"] == 7.5, "stale code for a struct nested in a struct"
    assert second["alias"] == -4.5, "stale code for an array-of-struct annotation alias"
    assert second["globals"] == [2.5, 9.0, 3.0, 0.25], "stale captured tuple/list/object values"
    assert statuses[:3] == ["compiled"] * 3 and statuses[3] == "cached"


def test_module_options_are_in_the_key(tmp_path):
    first, second, statuses = _scenario(
        tmp_path, BASE, BASE, options_after='{"max_unroll": 0, "fast_math": True}'
    )
    assert second == first
    assert statuses == ["compiled"] * 4


# -- in-process checks of the key's parts ------------------------------------------------------------


@wp.struct
class Pair:
    x: wp.float32
    y: wp.int32


def test_type_key_describes_struct_fields_recursively():
    key = type_key(Pair)
    assert "x@0: float32" in key and "y@4: int32" in key and "size=8" in key
    assert type_key(wp.array(dtype=Pair)) == f"array({key}, ndim=1)"
    assert type_key(wp.array2d(dtype=float)) != type_key(wp.array(dtype=float))


def test_value_key_of_containers():
    assert value_key((1, 2.0)) != value_key((1, 2.5))
    assert value_key([1, 2]) != value_key((1, 2))
    assert value_key({"a": 1}) != value_key({"a": 2})
    import numpy as np

    assert value_key(np.arange(3)) != value_key(np.arange(3) + 1)
    assert value_key(wp.vec3(1.0, 2.0, 3.0)) != value_key(wp.vec3(1.0, 2.0, 4.0))
    assert value_key(object()) is None


@wp.kernel
def unroll_me(out: wp.array(dtype=float)):
    s = float(0.0)
    for k in range(3):
        s += float(k)
    out[0] = s


def test_max_unroll_changes_key_and_code():
    opts = resolve_options(unroll_me, target=target_for_kind("cpu"))
    assert kernel_hash(unroll_me, opts, "fp") != kernel_hash(unroll_me, opts.replace(max_unroll=0), "fp")
    from warp.compiler.frontend.translator import build_kernel
    from warp.compiler.options import compiling

    def loops(options: CompileOptions) -> int:
        from warp.compiler import ir

        with compiling(options):
            fn = build_kernel(unroll_me)
        return sum(op.kind == "for" for op in ir.walk(fn.body))

    assert loops(opts.replace(max_unroll=16)) == 0
    assert loops(opts.replace(max_unroll=2)) == 1


_CAPTURED = (1.0, 2.0)


@wp.kernel
def reads_captured(out: wp.array(dtype=float)):
    out[0] = _CAPTURED[1]


@pytest.mark.parametrize("value", [(1.0, 3.0), [1.0, 2.0], {"a": 1}, (1.0, 2.0, 0.0)])
def test_captured_containers_change_the_key(value):
    global _CAPTURED
    opts = CompileOptions(target=target_for_kind("cpu"))
    before = kernel_hash(reads_captured, opts, "fp")
    saved = _CAPTURED
    try:
        _CAPTURED = value
        assert kernel_hash(reads_captured, opts, "fp") != before
        _CAPTURED = saved
        assert kernel_hash(reads_captured, opts, "fp") == before
    finally:
        _CAPTURED = saved
