"""Compile options: one frozen object that the pipeline receives and the cache key covers.

:func:`resolve_options` builds the options of one kernel part for one target from
``wp.config`` and the kernel's module options (``wp.set_module_options``); module options win
over ``wp.config``. Every field, and every unrecognized module option (kept in ``extra``), goes
into the kernel's cache key, so anything that can change generated code invalidates it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterator

from warp import config

if TYPE_CHECKING:  # targets build on the compiler: the type only
    from warp.targets.base import Target

#: Module options with a field of their own in :class:`CompileOptions`.
KNOWN_MODULE_OPTIONS = frozenset(
    {"mode", "max_unroll", "enable_backward", "fast_math", "fuse_fp", "lineinfo", "optimization_level",
     "cuda_vector_entry", "cuda_max_registers"}
)

MODES = ("release", "debug")
PARTS = ("forward", "adjoint")


@dataclass(frozen=True)
class CompileOptions:
    """Everything besides the kernel's code that decides the code generated for it."""

    #: the target the code is for (:class:`warp.targets.base.Target`; in cache keys by its name)
    target: Target
    #: which part of the kernel: ``"forward"`` or ``"adjoint"``
    part: str = "forward"
    #: ``"release"`` or ``"debug"`` (bounds checks with a recoverable error record)
    mode: str = "release"
    #: constant-bound ``range`` loops with at most this many iterations are unrolled
    max_unroll: int = 16
    #: whether adjoint code may be generated for the kernel
    enable_backward: bool = True
    #: allow value-changing floating point optimizations (reassociation, approximations)
    fast_math: bool = False
    #: allow fused multiply-add contraction
    fuse_fp: bool = True
    #: emit line information into generated code (CUDA)
    lineinfo: bool = False
    #: LLVM optimization level 0-3
    optimization_level: int = 3
    #: CUDA ``(max threads per block, min blocks per multiprocessor)`` of the kernel
    #: (``@wp.kernel(launch_bounds=...)``, see :func:`launch_bounds_of`); None: no bounds
    launch_bounds: tuple[int, int] | None = None
    #: CUDA registers per thread at most (``@wp.kernel(cuda_max_registers=...)``, PTX ``.maxnreg``;
    #: see :func:`max_registers_of`); None: the compiler's choice
    max_registers: int | None = None
    #: thread indices per thread of the vector entry that kernels able to use one get (targets
    #: with a ``vector_width``: CUDA; ``wp.config.cuda_vector_entry`` or the module option
    #: ``"cuda_vector_entry"``, see :func:`vector_width_of`); 0: none
    vector_width: int = 0
    #: other module options, as sorted ``(name, repr(value))`` pairs (hashed, not interpreted)
    extra: tuple[tuple[str, str], ...] = field(default=())

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"compile option 'mode' must be one of {MODES}, got {self.mode!r}")
        if self.part not in PARTS:
            raise ValueError(f"compile option 'part' must be one of {PARTS}, got {self.part!r}")
        for name in ("max_unroll", "optimization_level"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"compile option '{name}' must be a non-negative int, got {value!r}")
        if self.optimization_level > 3:
            level = self.optimization_level
            raise ValueError(f"compile option 'optimization_level' must be 0..3, got {level}")

    @property
    def debug(self) -> bool:
        """True in debug mode."""
        return self.mode == "debug"

    def replace(self, **changes: Any) -> CompileOptions:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    def cache_items(self) -> list[tuple[str, Any]]:
        """``(name, value)`` pairs of every field, for cache keys."""
        items = [(f.name, getattr(self, f.name)) for f in dataclasses.fields(self)]
        return [(name, value.name if name == "target" else value) for name, value in items]


#: most threads a CUDA block can have
MAX_THREADS_PER_BLOCK = 1024


def launch_bounds_of(value: Any, kernel_name: str = "?") -> tuple[int, int] | None:
    """``@wp.kernel(launch_bounds=...)`` as ``(max threads per block, min blocks per SM)``.

    Accepts None, an int (max threads) or a tuple of one or two ints, as CUDA's
    ``__launch_bounds__``; a min-blocks of 0 means none. Raises ``ValueError``/``TypeError``
    naming the kernel for anything else.
    """
    if value is None:
        return None
    items = value if isinstance(value, (tuple, list)) else (value,)
    where = f"kernel '{kernel_name}': launch_bounds"
    if not 1 <= len(items) <= 2:
        raise ValueError(f"{where} must be an int or a tuple (max threads per block, min blocks per SM), "
                         f"got {value!r}")
    numbers = []
    for item in items:
        if isinstance(item, bool) or not hasattr(item, "__index__"):
            raise TypeError(f"{where} must hold ints, got {value!r}")
        numbers.append(int(item.__index__()))
    threads, blocks = numbers[0], numbers[1] if len(numbers) > 1 else 0
    if not 1 <= threads <= MAX_THREADS_PER_BLOCK:
        raise ValueError(f"{where}: max threads per block must be 1..{MAX_THREADS_PER_BLOCK}, got {threads}")
    if blocks < 0:
        raise ValueError(f"{where}: min blocks per multiprocessor must not be negative, got {blocks}")
    return threads, blocks


def max_registers_of(value: Any, kernel_name: str = "?") -> int | None:
    """``@wp.kernel(cuda_max_registers=...)`` checked: None or a positive int (registers per
    thread, at most 255 as PTX allows); ``TypeError``/``ValueError`` naming the kernel otherwise."""
    if value is None:
        return None
    where = f"kernel '{kernel_name}': cuda_max_registers"
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{where} must be an int or None, got {value!r}")
    if not 0 < value <= 255:
        raise ValueError(f"{where} must be between 1 and 255, got {value}")
    return value


def module_options_of(kernel: Any) -> dict[str, Any]:
    """The options set with ``wp.set_module_options`` for the module of ``kernel``, overridden by
    the kernel's own (``wp.Kernel(options=...)``, ``@wp.kernel(enable_backward=...)``)."""
    return {**kernel.module.options.explicit(), **getattr(kernel, "options", {})}


def resolve_options(
    kernel: Any, *, target: Target, part: str = "forward", mode: str | None = None
) -> CompileOptions:
    """The compile options of ``part`` of ``kernel`` for ``target``: module options over ``wp.config``.

    ``mode`` overrides both (the runtime passes the mode it keys loaded code by).
    """
    module = module_options_of(kernel)
    enable_backward = module.get("enable_backward", config.enable_backward)
    if getattr(kernel, "enable_backward", None) is not None:
        enable_backward = kernel.enable_backward
    extra = tuple(sorted((str(k), repr(v)) for k, v in module.items() if k not in KNOWN_MODULE_OPTIONS))
    return CompileOptions(
        target=target,
        part=part,
        mode=mode if mode is not None else module.get("mode", config.mode),
        max_unroll=int(module.get("max_unroll", config.max_unroll)),
        enable_backward=bool(enable_backward),
        fast_math=bool(module.get("fast_math", False)),
        fuse_fp=bool(module.get("fuse_fp", True)),
        lineinfo=bool(module.get("lineinfo", False)),
        optimization_level=_optimization_level(module),
        # a code generation hint for targets with blocks: kept out of the CPU's options (and cache keys)
        launch_bounds=None if target.max_block_dim is None else launch_bounds_of(
            getattr(kernel, "launch_bounds", None), getattr(kernel, "name", "?")
        ),
        max_registers=None if target.max_block_dim is None else max_registers_of(
            module.get("cuda_max_registers"), getattr(kernel, "name", "?")
        ),
        vector_width=vector_width_of(module.get("cuda_vector_entry", config.cuda_vector_entry), target),
        extra=extra,
    )


#: widths a vector entry may have (``cuda_vector_entry=8``: 8 consecutive indices per thread)
VECTOR_WIDTHS = (2, 4, 8, 16)


def vector_width_of(setting: Any, target: Target) -> int:
    """The vector entry width for a ``cuda_vector_entry`` setting: True means the target's own
    width (:attr:`~warp.targets.base.Target.vector_width`), False or 0 none, an int in
    :data:`VECTOR_WIDTHS` that width; always 0 for targets without a vector entry."""
    if isinstance(setting, bool) or setting is None:
        width = target.vector_width if setting else 0
    elif isinstance(setting, int) and (setting == 0 or setting in VECTOR_WIDTHS):
        width = setting
    else:
        raise ValueError(
            f"cuda_vector_entry must be True, False or one of {VECTOR_WIDTHS} (thread indices per "
            f"thread), got {setting!r}"
        )
    return width if target.vector_width > 1 else 0


def _optimization_level(module: dict[str, Any]) -> int:
    """The module's ``optimization_level``, else ``wp.config``'s; None (Warp's default) means 3."""
    level = module.get("optimization_level", config.optimization_level)
    return 3 if level is None else int(level)


_local = threading.local()


@contextlib.contextmanager
def compiling(options: CompileOptions) -> Iterator[CompileOptions]:
    """Make ``options`` the :func:`active_options` of this thread while a kernel is compiled."""
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    stack.append(options)
    try:
        yield options
    finally:
        stack.pop()


def active_options() -> CompileOptions | None:
    """The options of the kernel being compiled on this thread (None outside a compilation)."""
    stack = getattr(_local, "stack", None)
    return stack[-1] if stack else None


def max_unroll() -> int:
    """The loop unrolling limit in effect: the active compilation's, else ``wp.config.max_unroll``."""
    options = active_options()
    return options.max_unroll if options is not None else config.max_unroll
