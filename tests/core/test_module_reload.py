"""Reloading a module (``importlib.reload``) whose ``@wp.func`` a kernel of another module calls,
directly or through a function of a third module: the next launch runs the new code. The files
are rewritten at once (within one file-timestamp tick, same size), as an editor-and-reload loop
does; the expected values are the products of the constants written into the files."""

import importlib
import importlib.util
import os
import sys

import numpy as np
import pytest

import warp as wp

OUTER = (
    "import warp as wp\nimport x2_inner\n\n\n"
    "@wp.func\ndef magic() -> float:\n    return {} * x2_inner.more()\n"
)
INNER = "import warp as wp\n\n\n@wp.func\ndef more() -> float:\n    return {}\n"
DEPENDENT = """import warp as wp
import x2_outer


@wp.kernel
def kern(out: wp.array(dtype=float)):
    out[0] = x2_outer.magic()


def run():
    out = wp.zeros(1, dtype=float)
    wp.launch(kern, dim=1, inputs=[out])
    return float(out.numpy()[0])
"""


def _write(path, text):
    path.write_text(text)
    cached = importlib.util.cache_from_source(str(path))
    if os.path.exists(cached):
        os.remove(cached)


@pytest.fixture
def modules(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    _write(tmp_path / "x2_inner.py", INNER.format(1.0))
    _write(tmp_path / "x2_outer.py", OUTER.format(1.0))
    _write(tmp_path / "x2_dependent.py", DEPENDENT)
    importlib.invalidate_caches()
    yield tmp_path
    for name in ("x2_inner", "x2_outer", "x2_dependent"):
        sys.modules.pop(name, None)


def test_reloaded_functions_reach_kernels_of_other_modules(modules):
    import x2_dependent
    import x2_inner
    import x2_outer

    results = [x2_dependent.run()]
    for outer, inner in ((3.0, 1.0), (3.0, 5.0), (7.0, 5.0)):
        _write(modules / "x2_outer.py", OUTER.format(outer))
        importlib.reload(x2_outer)
        _write(modules / "x2_inner.py", INNER.format(inner))
        importlib.reload(x2_inner)
        results.append(x2_dependent.run())
    np.testing.assert_array_equal(results, [1.0, 3.0, 15.0, 35.0])


def test_redefining_a_local_function_keeps_other_kernels_loaded():
    @wp.kernel(module="unique")
    def other(out: wp.array(dtype=float)):
        out[0] = 2.0

    out = wp.zeros(1, dtype=float)
    wp.launch(other, 1, inputs=[out])
    assert other.is_loaded(wp.get_device("cpu"))

    for _ in range(2):  # closures made again are separate functions, not redefinitions

        @wp.func
        def helper(x: float) -> float:
            return x

    assert other.is_loaded(wp.get_device("cpu"))
