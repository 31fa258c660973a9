"""Shared pytest setup: an isolated kernel cache per session, quiet module loading, the
``needs_plugin`` marker for tests that need an optional package (they skip when it is disabled
with ``WARP_DISABLE_PLUGINS`` or not installed, so ``tests/core`` also runs against core alone),
the ``fake_cuda`` stand-in driver (tests/cuda/fake_driver.py) and the ``device`` fixture.

``device`` runs a test on ``cpu`` and on every ``cuda:N`` present; on a host without a GPU (with
cuda-python installed) on the stand-in driver's ``cuda:0`` instead, so the GPU path of the
runtime, geometry, autodiff and capture code runs in CI too.
"""

import gc
import os
import sys
import weakref
from pathlib import Path

# JAX's GPU client preallocates most of the GPU memory per process unless told not to: several
# test processes (or JAX beside torch and warp) would abort. Must be set before jax is imported.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import pytest  # noqa: E402

import warp as wp  # noqa: E402
from warp import modules as wp_modules  # noqa: E402
from warp.plugins.manager import plugin_module  # noqa: E402

# the stand-in driver's modules (not a package: "cuda" would shadow cuda-python's namespace)
sys.path.insert(0, str(Path(__file__).parent / "cuda"))

#: entry-point name of each optional plugin -> the distribution providing it
PLUGIN_PACKAGES = {
    "builtins": "warp-builtins",
    "autodiff": "warp-autodiff",
    "geometry": "warp-geometry",
    "interop": "warp-interop",
}


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "needs_plugin(*names): skip unless the warp plugins with these entry-point names "
        "(builtins, autodiff, geometry, interop) are loaded",
    )


def pytest_collection_finish(session):
    """Freeze what collection left alive (the imported libraries, test modules, their kernels: about
    half a million objects with torch and JAX) out of the cyclic garbage collector's reach: every
    ``gc.collect()`` (two per ``fake_cuda`` test) then scans only the objects made since, instead
    of taking about a second each on a full collection. They stay alive for the session anyway."""
    gc.collect()
    gc.freeze()


def pytest_runtest_setup(item):
    for marker in item.iter_markers("needs_plugin"):
        missing = [name for name in marker.args if plugin_module(name) is None]
        if missing:
            packages = ", ".join(PLUGIN_PACKAGES.get(name, name) for name in missing)
            pytest.skip(f"needs {packages} (disabled by WARP_DISABLE_PLUGINS or not installed)")


@pytest.fixture(scope="session", autouse=True)
def _warp_session_config(tmp_path_factory):
    """Point the kernel cache at a per-session temporary directory and silence load logs."""
    saved = (wp.config.kernel_cache_dir, wp.config.quiet)
    wp.config.kernel_cache_dir = str(tmp_path_factory.mktemp("warp_kernel_cache"))
    wp.config.quiet = True
    yield
    wp.config.kernel_cache_dir, wp.config.quiet = saved


@pytest.fixture
def debug_mode():
    """Run a test with ``wp.config.mode = "debug"`` (bounds checks), restoring the mode afterwards."""
    saved = wp.config.mode
    wp.config.mode = "debug"
    yield
    wp.config.mode = saved


@pytest.fixture
def force_parallel():
    """Make every launch with more than a few threads run on the thread pool, with several workers
    even on small machines (more interleaving for the atomics tests)."""
    saved = (wp.config.cpu_parallel_min_dim, wp.config.cpu_threads)
    wp.config.cpu_parallel_min_dim = 2
    wp.config.cpu_threads = 8
    yield
    wp.config.cpu_parallel_min_dim, wp.config.cpu_threads = saved


# -- the stand-in CUDA driver ---------------------------------------------------------------------

#: the fake devices and driver, kept across tests: compiled kernels and launchers remember device
#: objects and function handles
_FAKE_DEVICES: list = []
_FAKE: list = []


class CpuEntries:
    """Symbol -> CPU entry (and parameter types) of the same kernel part, filled while kernels
    compile for CUDA."""

    def __init__(self) -> None:
        self.entries: dict[str, object] = {}
        self.params: dict[str, list] = {}
        self.keep: list[object] = []

    def __call__(self, symbol: str):
        return self.entries[symbol]


@pytest.fixture(scope="session")
def _fake_cuda_cache(tmp_path_factory):
    """Kernel cache of the stand-in's tests: fresh per session, so every CUDA kernel loaded under
    the stand-in was compiled (and its CPU build registered) in this session."""
    return str(tmp_path_factory.mktemp("fake_cuda_cache"))


@pytest.fixture
def fake_cuda(monkeypatch, _fake_cuda_cache):
    """Run the CUDA runtime against the stand-in driver: two fake devices ``cuda:0``/``cuda:1``
    whose memory the host cannot touch; kernels compile to PTX as for a real device and each
    launch runs the kernel's CPU build on the argument buffer it was given."""
    pytest.importorskip("cuda.bindings")
    from fake_driver import FakeDriver

    import warp.compiler.pipeline as pipeline
    from warp.runtime import devices
    from warp.targets import registry as targets
    from warp.targets.cpu.target import CpuTarget
    from warp.targets.cuda import context, driver, peer, streams
    from warp.targets.cuda import memory as cuda_memory
    from warp.targets.cuda.target import CudaTarget

    # on a GPU host: real garbage is freed by the real driver, before the stand-in replaces it
    # (without one, the last fake_cuda test's teardown already collected its garbage)
    if _REAL_CUDA:
        gc.collect()
    if not _FAKE:
        entries = CpuEntries()
        _FAKE.append(FakeDriver(device_count=2, resolve_entry=entries, entry_params=entries.params.get))
    fake = _FAKE[0]
    fake.reset()
    entries = fake.resolve_entry
    original_compile = pipeline.compile_kernel
    cpu = CpuTarget()
    cpu.contiguous_entry = False  # the entries (and error sites) the CUDA build has
    define_entry = cpu.define_entry

    def recording_define_entry(module, name, body, kernel_ir, options, *, contiguous, variant=None):
        entries.params[name] = [p.type for p in kernel_ir.params]
        return define_entry(module, name, body, kernel_ir, options, contiguous=contiguous, variant=variant)

    cpu.define_entry = recording_define_entry  # type: ignore[method-assign]

    def compile_kernel(kernel, options, target, device=None, store=None):
        result = original_compile(kernel, options, target, device, store)
        if isinstance(options.target, CudaTarget):
            cpu_object = original_compile(kernel, options.replace(target=cpu), cpu, None)
            symbols = list(cpu_object.meta["entries"].values())
            loaded = cpu.load(cpu_object.obj, symbols, name="fake", device=wp.get_device("cpu"))
            entries.keep.append(loaded)
            for symbol in symbols:
                entries.entries[symbol] = loaded.entry(symbol).fn
            vector = result.meta["entries"].get("vector")
            if vector is not None:  # the vector entry computes what the strided one does
                strided = cpu_object.meta["entries"]["strided"]
                entries.entries[vector] = entries.entries[strided]
                entries.params[vector] = entries.params[strided]
        return result

    monkeypatch.setattr(pipeline, "compile_kernel", compile_kernel)
    monkeypatch.setattr(wp.config, "kernel_cache_dir", _fake_cuda_cache)
    monkeypatch.setattr(driver, "_cu", fake)
    monkeypatch.setattr(driver, "_failure", None)
    if not _FAKE_DEVICES:
        _FAKE_DEVICES.extend(devices.Device(f"cuda:{i}", i, f"Fake GPU {i}") for i in range(2))
    monkeypatch.setattr(devices, "_cuda_count", 2)
    monkeypatch.setattr(devices, "_cuda_devices", list(_FAKE_DEVICES))
    monkeypatch.setattr(devices, "_default_device", None)
    monkeypatch.setattr(context, "_infos", {})
    monkeypatch.setattr(streams, "_current", {})
    monkeypatch.setattr(streams, "_null", {})
    monkeypatch.setattr(peer, "_peer_enabled", set())
    # the real devices' streams and capture bookkeeping (same ordinals) stay out of the stand-in's
    monkeypatch.setattr(streams, "_streams", weakref.WeakSet())
    for name, empty in (("_captures", {}), ("_epochs", {}), ("_deferred", []), ("_deferred_calls", [])):
        monkeypatch.setattr(cuda_memory, name, empty)
    # the CPU target (and its capture state) stays the one launchers already hold
    targets.get_target(wp.get_device("cpu"))
    monkeypatch.setattr(targets, "_instances", {k: v for k, v in targets._instances.items() if k != "cuda"})
    context.forget_current()
    _unload_all_kernels()
    yield fake
    gc.collect()  # free fake allocations while the fake driver is still installed
    fake.drain()  # (deferred mode: run the work and frees still pending)
    context.forget_current()
    _unload_all_kernels()
    # misuses a real driver crashes on, made where warp ignores the result (finalizers)
    assert not fake.violations, "stand-in driver misuse: " + "; ".join(fake.violations)


def _unload_all_kernels() -> None:
    """Forget every kernel's loaded code and launchers. Both are keyed by the device's alias, so
    on a GPU host code loaded into the real driver would otherwise be launched through the
    stand-in (and the stand-in's handles through the real driver) once ``fake_cuda`` swaps them."""
    with wp_modules._lock:
        loaded = list(wp_modules._modules.values())
    for module in loaded:
        module.unload()


# -- device parametrization -----------------------------------------------------------------------

#: parameter of the ``device`` fixture that means "cuda:0 of the stand-in driver"
STAND_IN = "standin-cuda:0"


def _test_devices() -> list[str]:
    """``cpu`` and each CUDA device present; the stand-in's ``cuda:0`` where there is none but
    cuda-python is installed (the stand-in needs its types)."""
    cuda = [f"cuda:{i}" for i in range(wp.get_cuda_device_count())]
    if cuda:
        return ["cpu", *cuda]
    try:
        import cuda.bindings.driver  # noqa: F401
    except ImportError:
        return ["cpu"]
    return ["cpu", STAND_IN]


TEST_DEVICES = _test_devices()
#: the devices with real memory (no stand-in): for frameworks (torch, JAX) that allocate there
REAL_DEVICES = [d for d in TEST_DEVICES if d != STAND_IN]
#: whether a real CUDA device is present (its driver may hold garbage to free before the stand-in)
_REAL_CUDA = any(d.startswith("cuda") for d in REAL_DEVICES)


@pytest.fixture(params=TEST_DEVICES)
def device(request):
    """Each device a test runs on (see the module docstring)."""
    if request.param == STAND_IN:
        request.getfixturevalue("fake_cuda")
        return wp.get_device("cuda:0")
    return wp.get_device(request.param)


@pytest.fixture(params=REAL_DEVICES)
def real_device(request):
    """Each device present (``cpu``, every real ``cuda:N``; never the stand-in): for interop tests
    whose other framework must reach the memory."""
    return wp.get_device(request.param)


@pytest.fixture
def on_device(device):
    """Run a test written without a device argument with ``device`` as the default device (its
    arrays, launches and geometry objects go there): ``pytestmark = pytest.mark.usefixtures("on_device")``."""
    with wp.ScopedDevice(device):
        yield device


@pytest.fixture(autouse=True)
def _cpu_unless_parametrized(request):
    """Tests that take no ``device`` (nor ``fake_cuda``) are CPU tests: they run with ``cpu`` as
    the default device even on a GPU host, where ``cuda:0`` is the default (their NumPy
    zero-copy and thread-pool expectations are the CPU's). Device-parametrized tests choose
    their own (``jax_device``: tests/interop/conftest.py)."""
    names = request.fixturenames
    if "device" in names or "real_device" in names or "fake_cuda" in names or "jax_device" in names:
        yield
        return
    with wp.ScopedDevice("cpu"):
        yield
