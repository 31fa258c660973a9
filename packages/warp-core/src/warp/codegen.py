"""``warp.codegen``: where NVIDIA Warp code finds the compiler's exception classes
(``wp.codegen.WarpCodegenError`` and its subclasses)."""

from warp.errors import (  # noqa: F401
    WarpCodegenAttributeError,
    WarpCodegenError,
    WarpCodegenNameError,
    WarpCodegenTypeError,
    WarpCodegenValueError,
)
from warp.compiler.frontend.subscripts import IndexErrorCodegen as WarpCodegenIndexError  # noqa: F401

__all__ = [
    "WarpCodegenAttributeError",
    "WarpCodegenError",
    "WarpCodegenIndexError",
    "WarpCodegenNameError",
    "WarpCodegenTypeError",
    "WarpCodegenValueError",
]
