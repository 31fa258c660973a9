"""The ``jax_device`` fixture: JAX tests run on each platform JAX and warp share.

A JAX test module opts in with ``pytestmark = pytest.mark.usefixtures("jax_device")`` (or takes
``jax_device`` as an argument, for expectations that differ by device). Each test then runs once
on the CPU and, where JAX has its CUDA platform and warp sees the GPUs, once per ``cuda:N``: inside
``jax.default_device(<JAX device>)`` (``jnp`` arrays go there) and ``wp.ScopedDevice(<warp
device>)`` (warp arrays and launches go there). On a host without a GPU only the CPU runs.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import pytest

import warp as wp


class JaxDevice(NamedTuple):
    """A JAX device and the warp device of the same memory."""

    warp: Any
    jax: Any


def _jax_gpus() -> list:
    """JAX's GPU devices (empty without JAX's CUDA plugin)."""
    import jax

    try:
        return list(jax.devices("gpu"))
    except RuntimeError:  # no GPU backend
        return []


def jax_test_devices() -> list[str]:
    """``cpu`` and each ``cuda:N`` that both JAX and warp see."""
    try:
        gpus = _jax_gpus()
    except ImportError:
        return ["cpu"]
    return ["cpu", *(f"cuda:{i}" for i in range(min(len(gpus), wp.get_cuda_device_count())))]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    # JAX (and its GPU client) is asked only where a test uses the fixture
    if "jax_device" in metafunc.fixturenames:
        metafunc.parametrize("jax_device", jax_test_devices(), indirect=True)


@pytest.fixture
def jax_device(request) -> Any:
    """Run the test with the JAX default device and the warp default device on one device."""
    import jax

    name = request.param
    jdev = jax.devices("cpu")[0] if name == "cpu" else _jax_gpus()[int(name.split(":")[1])]
    device = wp.get_device(name)
    with jax.default_device(jdev), wp.ScopedDevice(device):
        yield JaxDevice(device, jdev)
