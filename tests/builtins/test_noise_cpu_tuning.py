"""Noise gradients with CPU code tuned for other x86 CPUs ($WARP_LLVM_CPU): LLVM 22.1's SLP
vectorizer, tuned for Intel AVX-512 CPUs, turned the 4-D ``wp.pnoise`` kernel into wrong code on
a Xeon host while the same test passed on AMD hosts (see ``warp.targets.cpu.jit.LLVM_OPTIONS``).
The central-difference checks of test_noise_gradients.py run again in a child process per
tuning; the instruction set stays the host's, so the code runs on any x86-64 machine."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

pytestmark = [
    pytest.mark.needs_plugin("autodiff"),
    pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86 CPU names"),
]

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.mark.parametrize("cpu", ["skylake-avx512", "sapphirerapids"])
def test_noise_gradients_with_intel_tuning(cpu):
    env = dict(os.environ, WARP_LLVM_CPU=cpu)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-k", "central_differences",
         os.path.join(HERE, "test_noise_gradients.py")],
        env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "4 passed" in proc.stdout, proc.stdout[-2000:]
