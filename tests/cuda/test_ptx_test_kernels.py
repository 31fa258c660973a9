"""Every module-level kernel of the project's tests compiles to PTX that ``ptxas`` accepts.

Kernels whose frontend rejects them (deliberate error tests, generic kernels) are left out; the
adjoints of the autodiff tests' kernels are compiled too. No GPU is needed.

By default the first few kernels of each module are checked (PTX generation plus ptxas take
~0.3-1 s per kernel); ``WARP_TEST_PTX_ALL=1`` checks every kernel (~2.5 min here).
"""

from __future__ import annotations

import importlib
import os
import sys

import pytest
from ptxas_util import cuda_compile, needs_ptxas, ptxas_check

import warp as wp
from warp.errors import WarpCodegenError

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

MODULES = [
    "core/test_codegen_arrays.py",
    "core/test_composite_types.py",
    "core/test_structs.py",
    "core/test_launch.py",
    "core/test_codegen_errors.py",
    "builtins/test_random.py",
    "builtins/test_checks.py",
    "builtins/test_scalar_math_kernels.py",
    "autodiff/test_adjoint_launch.py",
    "autodiff/test_core_gradients.py",
    "autodiff/test_builtin_gradients.py",
    "autodiff/test_more_builtin_gradients.py",
    "autodiff/test_composite_gradients.py",
    "autodiff/test_control_flow.py",
    "autodiff/test_more_kernels.py",
    "autodiff/test_gradcheck.py",
    "autodiff/test_tape.py",
]


PER_MODULE = 3


def _kernels(relpath: str) -> list:
    folder, file = os.path.split(os.path.join(TESTS, relpath))
    if folder not in sys.path:
        sys.path.insert(0, folder)
    module = importlib.import_module(file[:-3])
    seen, found = set(), []
    for value in vars(module).values():
        if isinstance(value, wp.Kernel) and id(value) not in seen:
            seen.add(id(value))
            found.append(value)
    return found


def _frontend_accepts(kernel) -> bool:
    from warp.compiler.frontend.translator import build_kernel

    try:
        build_kernel(kernel)
    except (WarpCodegenError, TypeError, ValueError):
        return False
    return True


@needs_ptxas
@pytest.mark.parametrize("relpath", MODULES)
def test_test_kernels_compile_to_valid_ptx(relpath: str) -> None:
    from warp.plugins.manager import load_plugins

    load_plugins()
    kernels = [k for k in _kernels(relpath) if _frontend_accepts(k)]
    assert kernels, f"no kernels found in {relpath}"
    if not os.environ.get("WARP_TEST_PTX_ALL"):
        kernels = kernels[:PER_MODULE]
    parts = ["forward", "adjoint"] if relpath.startswith("autodiff/") else ["forward"]
    for kernel in kernels:
        for part in parts:
            if part == "adjoint" and kernel.enable_backward is False:
                continue
            ptx, meta = cuda_compile(kernel, part=part)
            for entry in meta["entries"].values():
                assert f".entry {entry}(" in ptx
            ptxas_check(ptx)
