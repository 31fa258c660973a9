"""Run NVIDIA Warp's example programs with this project's warp, short and headless, on the CPU.

Usage::

    python scripts/run_warp_examples.py EXAMPLES_DIR [--assets DIR] [--work DIR]
        [--timeout SECONDS] [--only NAME ...] [--device cpu]

``EXAMPLES_DIR`` is a folder of ``example_*.py`` programs (for instance ``core/`` of a checkout
of NVIDIA Warp's ``warp/examples``). Each one is copied into ``--work`` (a temporary folder by
default), where two things may be changed in the copy and nothing else: with ``--assets``,
``warp.examples.get_asset_directory()`` is replaced by that folder (NVIDIA's asset files are
not shipped with this project), and the frame/iteration counts come from the command line
below. Each program runs in its own process with ``WARP_CACHE_PATH`` in the work folder; the
script prints a Markdown table (example, result, the last line of its error output) and keeps
each program's output in ``<work>/logs``. Nothing is downloaded.

Programs that use tiles (``wp.launch_tiled``, ``tile_*`` builtins) are listed as not run.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Short runs: the options each program takes to stop after a few frames, headless, on the CPU.
SHORT_ARGS: dict[str, list[str]] = {
    "example_cupy": ["--num-frames", "2"],
    "example_dem": ["--num-frames", "2"],
    "example_fdtd_3d": ["--num-steps", "4", "--headless"],
    "example_fft_poisson_navier_stokes_2d": ["--num-steps", "2", "--headless"],
    "example_fluid": ["--num-frames", "2", "--headless"],
    "example_graph_capture": ["--num-frames", "2", "--headless"],
    "example_mesh": ["--num-frames", "2"],
    "example_nvdb": ["--num-frames", "2"],
    "example_raycast": ["--width", "128", "--height", "128", "--headless"],
    "example_raymarch": ["--width", "128", "--height", "64", "--headless"],
    "example_sample_mesh": ["--num-frames", "2"],
    "example_sph": ["--num-frames", "2"],
    "example_torch": ["--num-frames", "2", "--train-iters", "2", "--headless"],
    "example_wave": ["--num-frames", "2"],
    "example_diffray": ["--train-iters", "2", "--height", "64", "--headless"],
    "example_fluid_checkpoint": ["--num-frames", "20", "--train-iters", "2", "--headless"],
    "example_fluid_checkpoint_custom_backward": [
        "--num-frames",
        "20",
        "--train-iters",
        "2",
        "--headless",
    ],
    "example_navier_stokes_perturbation": ["--train-iters", "2", "--headless"],
    "example_particle_repulsion": ["--num-frames", "2", "--headless"],
    "example_isosurface": ["--num-frames", "2"],
    "example_sparse_marching_cubes": ["--num-frames", "2"],
    "example_swept_volume": ["--num-samples", "4"],
}

#: whether usd-core is installed (the programs write their USD stages with it)
_HAS_USD = importlib.util.find_spec("pxr") is not None

# Options that name an output stage file: pointed into the work folder.
STAGE_OPTIONS = ("--stage-path",)

_TILE_USE = re.compile(r"\bwp\.(launch_tiled|tile_\w+)\b")


def uses_tiles(source: str) -> bool:
    """Whether a program calls ``wp.launch_tiled`` or a ``tile_*`` builtin."""
    return _TILE_USE.search(source) is not None


def prepare_copy(source: str, assets: str | None) -> str:
    """The program's text with the asset folder replaced (the only edit made to a copy)."""
    if assets is not None:
        source = source.replace("warp.examples.get_asset_directory()", repr(assets))
    return source


def last_error_line(text: str) -> str:
    """The most telling line of a failed run's output: the exception line, else the last line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        if re.match(r"^[\w.]*(Error|Exception|Exit)\b", line) or "Error:" in line:
            return line[:200]
    return lines[-1][:200] if lines else ""


def run_one(
    path: Path, work: Path, assets: str | None, device: str, timeout: float
) -> tuple[str, str, float]:
    """Run one program; returns (result, detail, seconds)."""
    source = path.read_text()
    if uses_tiles(source):
        return "not run", "uses tiles (wp.launch_tiled / tile_*)", 0.0
    name = path.stem
    copy = work / path.name
    copy.write_text(prepare_copy(source, assets))
    args = list(SHORT_ARGS.get(name, []))
    if "--device" in source:
        args += ["--device", device]
    if '"--stage-path"' in source or "'--stage-path'" in source:
        # without usd-core (pxr), "None": the programs then simulate without writing a stage
        stage = str(work / "out" / f"{name}.usd") if _HAS_USD else "None"
        args += ["--stage-path", stage]
    env = dict(os.environ)
    env["WARP_CACHE_PATH"] = str(work / "cache")
    env.setdefault("MPLBACKEND", "Agg")
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, str(copy), *args],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        out = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        (work / "logs" / f"{name}.log").write_text(out)
        return "timeout", f"over {timeout:.0f} s", time.perf_counter() - start
    seconds = time.perf_counter() - start
    log = proc.stdout + "\n--- stderr ---\n" + proc.stderr
    (work / "logs" / f"{name}.log").write_text(log)
    if proc.returncode == 0:
        return "runs", "", seconds
    return f"fails (rc {proc.returncode})", last_error_line(proc.stderr or proc.stdout), seconds


def main(argv: list[str] | None = None) -> int:
    """Run every ``example_*.py`` of a folder and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("examples", type=Path, help="folder of example_*.py programs")
    parser.add_argument("--assets", type=str, default=None, help="folder used for get_asset_directory()")
    parser.add_argument("--work", type=Path, default=None, help="work folder (default: a new temporary one)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds allowed to each program")
    parser.add_argument("--only", nargs="*", default=None, help="run only these example names")
    parser.add_argument("--device", type=str, default="cpu", help="value given to programs taking --device")
    ns = parser.parse_args(argv)

    work = ns.work or Path(tempfile.mkdtemp(prefix="warp-examples-"))
    for sub in ("logs", "out", "cache"):
        (work / sub).mkdir(parents=True, exist_ok=True)
    programs = sorted(ns.examples.glob("example_*.py"))
    if ns.only:
        programs = [p for p in programs if p.stem in ns.only or p.stem.removeprefix("example_") in ns.only]
    print("| example | result | detail | seconds |\n|---|---|---|---|", flush=True)
    failures = 0
    for path in programs:
        result, detail, seconds = run_one(path, work, ns.assets, ns.device, ns.timeout)
        failures += result not in ("runs", "not run")
        print(f"| {path.stem} | {result} | {detail.replace('|', '/')} | {seconds:.1f} |", flush=True)
    print(f"\nlogs: {work / 'logs'}", file=sys.stderr)
    if ns.work is None and failures == 0:
        shutil.rmtree(work / "cache", ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
