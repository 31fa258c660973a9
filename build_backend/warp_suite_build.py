"""In-tree PEP 517 backend of the umbrella distribution: setuptools, told whether it builds editable.

``setup.py`` turns requirements naming packages of this checkout into direct file references
for a regular install (``pip install ".[all]"``). For an editable install of the umbrella it
keeps plain names instead, so that the development command, which installs each package
editable beside it (``pip install -e packages/warp-core ... -e ".[dev]"``), does not conflict
with a second, non-editable copy of the same package.
"""

from __future__ import annotations

import os
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403  (the standard hooks)

_EDITABLE = "WARP_SUITE_EDITABLE_BUILD"


def _editable(hook: Any) -> Any:
    def run(*args: Any, **kwargs: Any) -> Any:
        os.environ[_EDITABLE] = "1"
        try:
            return hook(*args, **kwargs)
        finally:
            os.environ.pop(_EDITABLE, None)

    run.__name__ = hook.__name__
    return run


get_requires_for_build_editable = _editable(_setuptools.get_requires_for_build_editable)
prepare_metadata_for_build_editable = _editable(_setuptools.prepare_metadata_for_build_editable)
build_editable = _editable(_setuptools.build_editable)
