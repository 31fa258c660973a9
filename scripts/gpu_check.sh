#!/usr/bin/env bash
# One-shot check of the project on a GPU host with no network (under 8 minutes in all):
#   1. the test suite with cuda:0 present (device-parametrized tests run on cpu and cuda:N),
#      a per-test timeout and a time limit for the whole run;
#   2. benchmarks/bench_cuda.py (saxpy, sin/cos, n-body, launch overhead, PTX cold compile, with
#      CUDA C and PyTorch beside) and bench_module_load.py (cold and warm load of a module);
#   3. the examples on cuda:0 (the default device where a GPU is present), images kept.
# Every step's output goes to a log under LOGDIR; summary.txt lists each step's exit status
# and duration.
#
#   scripts/gpu_check.sh [LOGDIR]            LOGDIR defaults to $OUT, else ./gpu_check_logs
#   scripts/gpu_check.sh --dry-run [LOGDIR]  print the steps without running them
#
# The project must be importable without network: PYTHONPATH pointing at a folder made (on any
# machine) with `pip install --no-deps --target site packages/*/`; when SITE (default: ./site)
# exists it is put on PYTHONPATH. PYTHON selects the interpreter (default python3). Exit status:
# 0 all steps passed, 1 a step failed, 2 no CUDA device (nothing was checked).
set -u

DRY_RUN=0
if [ "${1:-}" = "--dry-run" ]; then
    DRY_RUN=1
    shift
fi
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LOG=${1:-${OUT:-$ROOT/gpu_check_logs}}
PY=${PYTHON:-python3}
SITE=${SITE:-$ROOT/site}
# seconds per step: suite + benches + 4 examples x 25 + probe stay under 8 minutes
SUITE_LIMIT=${SUITE_LIMIT:-240}
TEST_TIMEOUT=${TEST_TIMEOUT:-120}
BENCH_LIMIT=${BENCH_LIMIT:-90}
LOAD_LIMIT=${LOAD_LIMIT:-45}
# pytest workers: three quarters of the cores, at most 12 (each holds a CUDA context)
CORES=$(nproc 2> /dev/null || echo 4)
NWORKERS=${NWORKERS:-$(( CORES * 3 / 4 < 12 ? (CORES * 3 / 4 > 0 ? CORES * 3 / 4 : 1) : 12 ))}
EXAMPLE_LIMIT=${EXAMPLE_LIMIT:-25}

if [ -d "$SITE" ]; then
    export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}"
    # bytecode for this interpreter, as `pip install` leaves it: the GPU hosts set
    # PYTHONDONTWRITEBYTECODE=1 and SITE's .pyc (if any) are for the Python that made it, so every
    # process would otherwise compile each module it imports from source (measured on the H200:
    # the CPU's warm module load 18.5 ms without bytecode, 9.5 ms with it)
    [ "$DRY_RUN" = 1 ] || "$PY" -m compileall -q "$SITE" > /dev/null 2>&1
fi
# several processes (pytest workers, JAX beside torch) share the GPU
export XLA_PYTHON_CLIENT_PREALLOCATE=false
export WARP_CACHE_PATH=${WARP_CACHE_PATH:-$LOG/kernel_cache}

mkdir -p "$LOG/examples"
SUMMARY="$LOG/summary.txt"
: > "$SUMMARY"
FAILED=0

# run NAME LIMIT COMMAND...: COMMAND under `timeout LIMIT`, output to LOG/NAME.log
run() {
    local name=$1 limit=$2
    shift 2
    if [ "$DRY_RUN" = 1 ]; then
        echo "[dry-run] $name (limit ${limit}s): $*"
        return 0
    fi
    local start=$SECONDS rc
    echo "== $name (limit ${limit}s): $*"
    # SIGINT first: pytest then stops like on Ctrl-C and still writes its summary and junit file
    timeout -s INT -k 20 "$limit" "$@" > "$LOG/$name.log" 2>&1
    rc=$?
    local took=$((SECONDS - start))
    if [ "$rc" = 124 ] || [ "$rc" = 137 ] || [ "$rc" = 130 ]; then
        echo "$name: TIMED OUT after ${took}s (limit ${limit}s)" | tee -a "$SUMMARY"
        FAILED=1
    elif [ "$rc" != 0 ]; then
        echo "$name: FAILED rc=$rc in ${took}s (log: $LOG/$name.log)" | tee -a "$SUMMARY"
        FAILED=1
    else
        echo "$name: ok in ${took}s" | tee -a "$SUMMARY"
    fi
    tail -n 3 "$LOG/$name.log"
}

# -- what is there ------------------------------------------------------------------------------
PROBE='import warp as wp
n = wp.get_cuda_device_count()
print("cuda devices:", n)
for i in range(n):
    d = wp.get_device(f"cuda:{i}")
    print(f"cuda:{i}:", d.name)
print("default device:", wp.get_device())'
if [ "$DRY_RUN" = 1 ]; then
    echo "[dry-run] probe: $PY -c <count CUDA devices>; stop with status 2 when there is none"
else
    {
        date -u
        command -v nvidia-smi > /dev/null && nvidia-smi -L
        "$PY" --version
        "$PY" -c "$PROBE"
    } > "$LOG/environment.log" 2>&1
    cat "$LOG/environment.log"
    if ! grep -q "^cuda:0:" "$LOG/environment.log"; then
        echo "gpu_check: no CUDA device available (see $LOG/environment.log): nothing checked" \
            | tee -a "$SUMMARY"
        exit 2
    fi
fi

# -- 1. the suite -------------------------------------------------------------------------------
WORKERS=()
if "$PY" -c "import xdist" 2> /dev/null; then
    WORKERS=(-n "$NWORKERS")
fi
run pytest "$SUITE_LIMIT" "$PY" -m pytest "$ROOT/tests" -q -rfE -p no:cacheprovider \
    --timeout "$TEST_TIMEOUT" "${WORKERS[@]}" --junitxml "$LOG/pytest.xml"

# -- 2. benchmarks ------------------------------------------------------------------------------
run bench_cuda "$BENCH_LIMIT" "$PY" "$ROOT/benchmarks/bench_cuda.py" --runs 50 --compile-runs 3
run bench_module_load "$LOAD_LIMIT" "$PY" "$ROOT/benchmarks/bench_module_load.py" --runs 3

# -- 3. examples on cuda:0 ----------------------------------------------------------------------
run example_mandelbrot "$EXAMPLE_LIMIT" "$PY" "$ROOT/examples/mandelbrot.py" \
    --out "$LOG/examples/mandelbrot.png"
run example_mesh_raycast "$EXAMPLE_LIMIT" "$PY" "$ROOT/examples/mesh_raycast.py" \
    --out "$LOG/examples/mesh_raycast.png"
run example_sph_neighbours "$EXAMPLE_LIMIT" "$PY" "$ROOT/examples/sph_neighbours.py" \
    --out "$LOG/examples/sph_neighbours.png"
run example_volume_slice "$EXAMPLE_LIMIT" "$PY" "$ROOT/examples/volume_slice.py" \
    --out "$LOG/examples/volume_slice.png"

if [ "$DRY_RUN" = 0 ]; then
    echo "== summary ($SUMMARY)"
    cat "$SUMMARY"
fi
exit "$FAILED"
