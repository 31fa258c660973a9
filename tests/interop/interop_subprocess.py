"""Running small Python programs in a fresh interpreter (import side effects, exit behaviour)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path


def run_python(code: str, tmp_path: Path, timeout: float = 600, **env: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a new interpreter with a private kernel cache; returns the completed process."""
    environment = dict(os.environ)
    environment["WARP_CACHE_PATH"] = str(tmp_path / "cache")
    environment.update(env)
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(code))
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=environment,
                          timeout=timeout, cwd=str(tmp_path))
