"""Exceptions raised by the compiler and runtime."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SourceLoc:
    """A position in kernel source: file, line and the text of that line."""

    file: str
    line: int
    text: str = ""
    col: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


class WarpCodegenError(RuntimeError):
    """A kernel or function could not be compiled; the message names the function and location.

    A ``RuntimeError``, as in NVIDIA Warp (code catching ``RuntimeError`` around a launch that
    compiles a broken kernel keeps working).
    """

    def __init__(self, message: str, *, function: str | None = None, loc: SourceLoc | None = None):
        self.raw_message = message
        self.function = function
        self.loc = loc
        super().__init__(self._format())

    def _format(self) -> str:
        """Where, then what: the location (and source line) first, the message last, as NVIDIA
        Warp orders them (so a pattern anchored at the message's end matches)."""
        if self.loc is None:
            where = f"in '{self.function}': " if self.function else ""
            return f"{where}{self.raw_message}"
        head = f"in '{self.function}' at {self.loc.file}:{self.loc.line}:\n"
        if self.loc.text:
            head += f"    {self.loc.text.strip()}\n"
        return head + self.raw_message


class WarpCodegenTypeError(WarpCodegenError, TypeError):
    """Type mismatch in kernel code (no overload, strict typing violation, ...)."""


class WarpCodegenNameError(WarpCodegenError, NameError):
    """A name used in kernel code is not defined or not usable in kernels."""


class WarpCodegenAttributeError(WarpCodegenError, AttributeError):
    """Attribute access in kernel code that the kernel language does not support."""


class WarpCodegenValueError(WarpCodegenError, ValueError):
    """A value in kernel code is out of range or not allowed (e.g. a non-constant where one is needed)."""


class MissingPluginError(WarpCodegenError):
    """A kernel calls a builtin provided by a package that is not installed."""


class BuiltinArgumentError(TypeError, RuntimeError):
    """A builtin called from Python scope with arguments none of its overloads accepts.

    A ``TypeError`` that is also a ``RuntimeError``, as NVIDIA Warp raises it ("Couldn't find a
    function ... compatible with the arguments ...").
    """


class LaunchTypeError(TypeError, RuntimeError):
    """A ``wp.launch`` argument of the wrong type or number.

    A ``TypeError`` that is also a ``RuntimeError``: NVIDIA Warp reports launch argument errors
    as ``RuntimeError("Error launching kernel ...")``.
    """


class LaunchValueError(ValueError, RuntimeError):
    """A ``wp.launch`` argument with a bad value (out of range, wrong device, bad dimensions);
    also a ``RuntimeError`` as in NVIDIA Warp."""


class IncompatibleDataTypeError(TypeError, RuntimeError):
    """Foreign data (DLPack, a tensor, an array interface) whose component type cannot be viewed
    as the requested warp dtype; also a ``RuntimeError``, as NVIDIA Warp reports it."""


class ArrayArgumentTypeError(TypeError, RuntimeError):
    """An array argument of a Python-scope API (``wp.Mesh(points=...)``, ...) that is not a
    ``wp.array`` of the required dtype and rank; also a ``RuntimeError`` as in NVIDIA Warp."""


class DeviceMismatchError(ValueError, RuntimeError):
    """Buffers given together (a mesh's points and indices, ...) that live on different devices;
    also a ``RuntimeError`` as in NVIDIA Warp."""


class ArrayCopyError(ValueError, RuntimeError):
    """A ``wp.copy`` with bad offsets, count or arrays; also a ``RuntimeError`` as in NVIDIA Warp."""


class ArrayShapeError(ValueError, RuntimeError):
    """An array reshape to an incompatible shape; also a ``RuntimeError`` as in NVIDIA Warp."""


class ArrayViewError(TypeError, RuntimeError):
    """An array view to a dtype whose size does not fit the source's; a ``TypeError`` as in NVIDIA
    Warp (and a ``RuntimeError``)."""


class NativeSnippetError(WarpCodegenError, NotImplementedError):
    """A kernel calls a ``@wp.func_native`` function: C++/CUDA snippets cannot be compiled here."""
