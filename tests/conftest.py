"""Shared pytest setup: an isolated kernel cache per session, quiet module loading, and the
``needs_plugin`` marker for tests that need an optional package (they skip when it is disabled
with ``WARP_DISABLE_PLUGINS`` or not installed, so ``tests/core`` also runs against core alone).
"""

import pytest

import warp as wp
from warp.plugins.manager import plugin_module

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
