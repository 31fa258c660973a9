"""warp-interop: PyTorch, JAX and Paddle interoperability for warp (a plugin; see ``plugin.py``).

Importing this package imports no framework; each function imports its framework when called.
"""

# warp first: importing it registers every plugin, this one included, so a module of this
# package imported before warp is not found half-initialized by that registration
import warp  # noqa: F401

__version__ = "0.1.0"
