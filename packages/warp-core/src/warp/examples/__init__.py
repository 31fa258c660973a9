"""Where the example programs and their data live (NVIDIA Warp's ``warp.examples``).

``get_asset_directory()`` is the folder of data files the examples read; it is installed with
warp-core (``warp/examples/assets``). ``get_source_directory()`` is the folder of this project's
example programs: ``examples/`` of a source checkout when warp is imported from one (the example
programs are not installed), else this package's folder.
"""

from __future__ import annotations

import os

_HERE = os.path.dirname(os.path.abspath(__file__))

__all__ = ["get_asset_directory", "get_output_directory", "get_source_directory"]


def get_asset_directory() -> str:
    """The absolute path of the folder holding the examples' data files (meshes, volumes)."""
    return os.path.join(_HERE, "assets")


def get_source_directory() -> str:
    """The absolute path of the folder holding the example programs."""
    # packages/warp-core/src/warp/examples -> the checkout's root is five levels up
    checkout = os.path.normpath(os.path.join(_HERE, *[os.pardir] * 5, "examples"))
    if os.path.isfile(os.path.join(checkout, "mandelbrot.py")):
        return checkout
    return _HERE


def get_output_directory() -> str:
    """The folder the example programs write their pictures to (``<source directory>/output``)."""
    return os.path.join(get_source_directory(), "output")
