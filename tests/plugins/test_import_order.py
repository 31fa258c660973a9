"""A module of a plugin package imported before ``warp`` itself: every plugin still registers.

Importing warp registers every installed plugin; when that import comes from a plugin's own
module (the user's first import), the registration must not find that package half-initialized
(which made the plugin's registration fail and left its names and builtins missing). Each case
runs in a fresh interpreter, with warnings made errors.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

CHECK = """
import {module}
import numpy as np
import warp as wp

# a name of every package, and a kernel calling a builtin of warp-builtins
assert wp.Mesh.__module__.startswith("warp_geometry"), wp.Mesh
assert wp.Tape.__module__.startswith("warp_autodiff"), wp.Tape
assert callable(wp.from_torch)

@wp.kernel
def k(out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.sin(float(i))

out = wp.zeros(4, dtype=float, device="cpu")
wp.launch(k, dim=4, inputs=[out], device="cpu")
assert np.allclose(out.numpy(), np.sin(np.arange(4)), atol=1e-6), out.numpy()
print("ok")
"""


@pytest.mark.needs_plugin("builtins", "geometry", "autodiff", "interop")
@pytest.mark.parametrize(
    "module",
    ["warp_builtins.device_sort", "warp_geometry.mesh", "warp_interop.torch_interop", "warp_autodiff.tape"],
)
def test_plugin_module_imported_before_warp(module: str, tmp_path) -> None:
    script = tmp_path / "first_import.py"  # a file: kernels need their source
    script.write_text(textwrap.dedent(CHECK.format(module=module)))
    command = [sys.executable, "-W", "error::RuntimeWarning", str(script)]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr[-3000:]
