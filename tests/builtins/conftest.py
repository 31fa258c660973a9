"""Fixtures of the builtins' tests: ``cuda``, the stand-in's ``cuda:0`` with ``wp.utils``' host
staging made to fail (so a test proves the device path computed the result)."""

import pytest

import warp as wp
import warp.utils as wu


@pytest.fixture
def cuda(fake_cuda, monkeypatch):
    """``cuda:0`` of the stand-in, with ``wp.utils``' host staging made to fail."""

    def no_host(*args, **kwargs):
        raise AssertionError("wp.utils staged device arrays through the host")

    monkeypatch.setattr(wu._access, "read", no_host)
    monkeypatch.setattr(wu._access, "write", no_host)
    return wp.get_device("cuda:0")
