"""warp-interop: PyTorch, JAX and Paddle interoperability for warp (a plugin; see ``plugin.py``).

Importing this package imports no framework; each function imports its framework when called.
"""

__version__ = "0.1.0"
