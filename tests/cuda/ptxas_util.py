"""Offline PTX validation with ``ptxas`` from the CUDA toolkit (no GPU needed)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from types import ModuleType
from typing import Any

import pytest
import warp as wp
from warp.targets import target_for_kind

PTXAS = shutil.which("ptxas")

needs_ptxas = pytest.mark.skipif(PTXAS is None, reason="ptxas (CUDA toolkit) not installed")


def _instances(name: str, kernel: Any) -> list[tuple[str, Any]]:
    """``(name, kernel)`` of a concrete kernel; for a generic kernel, of every instance declared
    with ``wp.overload``, named after its array parameters' element types."""
    if not kernel.is_generic:
        return [(name, kernel)]
    out = []
    for n, (types, inst) in enumerate(kernel.overloads.items()):
        if getattr(inst, "_implicit", False):  # made by a launch, not declared by the module
            continue
        dtypes = ",".join(dict.fromkeys(t.dtype.__name__ for t in types if hasattr(t, "dtype")))
        out.append((f"{name}[{dtypes or n}]", inst))
    # a generic kernel has no code of its own: its declared instances (wp.overload) do
    assert out, f"generic kernel {name} has no instances declared with wp.overload"
    return out


def module_kernels(*modules: ModuleType) -> list[tuple[str, str, Any]]:
    """``(module's short name, kernel name, kernel)`` for every ``wp.Kernel`` the modules define at
    their top level (generic ones: every declared instance), sorted by name: the cases of a "every
    kernel assembles" test."""
    return [
        (m.__name__.rsplit(".", 1)[1], name, k)
        for m in modules
        for top, kernel in sorted(vars(m).items())
        if isinstance(kernel, wp.Kernel)
        for name, k in _instances(top, kernel)
    ]


def ptxas_check(ptx: str, arch: int = 90) -> None:
    """Assemble ``ptx`` for ``sm_<arch>`` with ptxas; fail with its messages if it rejects it."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "kernel.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        proc = subprocess.run(
            [PTXAS, f"-arch=sm_{arch}", src, "-o", os.path.join(tmp, "kernel.cubin")],
            capture_output=True,
            text=True,
        )
    assert proc.returncode == 0, f"ptxas rejected the PTX:\n{proc.stderr}\n{ptx[:4000]}"


def cuda_compile(
    kernel, *, part: str = "forward", debug: bool = False, target: tuple[int, int] | None = None
):
    """Compile ``kernel`` for the CUDA target offline: (PTX text, metadata).

    ``target`` is an (SM, PTX version) pair; the default is the target's offline target.
    """
    from types import SimpleNamespace

    from warp.compiler.options import resolve_options
    from warp.compiler.pipeline import compile_kernel
    from warp import config
    from warp.runtime.cache import kernel_cache_for
    from warp.targets.cuda.target import CudaTarget

    mode = "debug" if debug else "release"
    options = resolve_options(kernel, target=target_for_kind("cuda"), part=part, mode=mode)
    device = SimpleNamespace(ptx_target=target) if target is not None else None
    store = kernel_cache_for(config.kernel_cache_dir)
    compiled = compile_kernel(kernel, options, CudaTarget(), device, store=store)
    return compiled.obj.decode(), compiled.meta


def assert_ptx_assembles(kernel) -> str:
    """Compile ``kernel`` (forward) for the CUDA target offline, check the PTX has an entry and that
    ptxas assembles it; returns the PTX."""
    ptx, _ = cuda_compile(kernel)
    assert ".entry" in ptx
    ptxas_check(ptx)
    return ptx
