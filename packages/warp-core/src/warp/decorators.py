"""The decorators user code is written with: ``@wp.kernel``, ``@wp.func``, ``wp.overload``,
``@wp.func_grad``, ``@wp.func_replay``, ``@wp.func_native`` and ``wp.constant``.

The objects they make live in :mod:`warp.kernels` (``Kernel``), :mod:`warp.functions`
(``Function``) and :mod:`warp.modules` (``Module`` and the module API); they are re-exported
here for code that imports them from this module.
"""

from __future__ import annotations

import re
import sys
import types
import typing
import weakref
from typing import Any, Callable, TypeVar

from warp.compiler.hashing import kernel_content_hash
from warp.compiler.options import max_registers_of
from warp.errors import SourceLoc, WarpCodegenError
from warp.functions import Function, FunctionOverload, define_function
from warp.kernels import Kernel
from warp.modules import get_module, get_module_options, set_module_options
from warp.types import helpers as wp_types

_R = TypeVar("_R")

__all__ = [
    "Function",
    "Kernel",
    "constant",
    "func",
    "func_grad",
    "func_native",
    "func_replay",
    "get_module_options",
    "kernel",
    "overload",
    "set_module_options",
]


def _defining_frame() -> types.FrameType:
    """The frame that called the decorator calling this (where the decorated function is defined)."""
    return sys._getframe(2)


def _scope_of(frame: types.FrameType) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(namespace where the decorated name gets bound, locals snapshot or None at module level)."""
    if frame.f_code.co_name == "<module>" or frame.f_locals is frame.f_globals:
        return frame.f_globals, None
    scope = dict(frame.f_locals)
    return scope, scope


# For static checkers: the decorated function keeps its return type. Its parameters are not
# checked (kernel code passes warp scalars to parameters annotated ``float``/``int``).
@typing.overload
def func(pyfunc: Callable[..., _R]) -> Callable[..., _R]: ...


@typing.overload
def func(
    *, module: Any = None, inline: bool | None = None
) -> Callable[[Callable[..., _R]], Callable[..., _R]]: ...


def func(pyfunc: Callable[..., Any] | None = None, *, module: Any = None, inline: bool | None = None) -> Any:
    """Decorator: make a Python function callable from kernels (``@wp.func`` or ``@wp.func(...)``).

    Defining another ``@wp.func`` of the same name in the same namespace with other parameter
    types adds an overload; calls pick the overload matching their argument types. ``module``
    is a module name, a Python module or ``"unique"`` (a module of its own), as for kernels.
    ``inline`` hints code generation: ``False`` keeps the function out of line (one copy of its
    code, called), ``True`` or ``None`` inline its calls (the default here).
    """
    if inline is not None and not isinstance(inline, bool):
        raise TypeError(f"wp.func: inline must be a bool or None, got {inline!r}")
    if pyfunc is None:

        def decorate(f: Callable[..., Any]) -> Function:
            namespace, scope = _scope_of(sys._getframe(1))
            return define_function(f, namespace, scope, module, inline)

        return decorate
    namespace, scope = _scope_of(_defining_frame())
    return define_function(pyfunc, namespace, scope, module, inline)


def kernel(
    f: Callable[..., Any] | None = None,
    *,
    enable_backward: bool | None = None,
    launch_bounds: Any = None,
    module: Any = None,
    name: str | None = None,
    module_options: dict[str, Any] | None = None,
    entry_point_abi: str = "warp",
    cuda_max_registers: int | None = None,
) -> Any:
    """Decorator: compile a Python function as a kernel (``@wp.kernel`` or ``@wp.kernel(...)``).

    ``module`` is a module name, a Python module or ``"unique"`` (a module of its own);
    ``launch_bounds`` is CUDA's ``__launch_bounds__``: an int (max threads per block) or a tuple
    (max threads per block, min blocks per multiprocessor); the CPU ignores it. ``name`` replaces
    the kernel's key (a C++ identifier); ``module_options`` are set on the kernel's module
    (meant for ``module="unique"``). ``entry_point_abi`` is ``"warp"``; Warp's OptiX entry points
    (``"external_constant_params"``) are not provided. ``cuda_max_registers`` caps the registers
    per thread of the CUDA code (PTX ``.maxnreg``); the CPU ignores it.
    """
    _, scope = _scope_of(_defining_frame())
    if name is not None and (not isinstance(name, str) or not _IDENTIFIER.fullmatch(name)):
        raise ValueError(f"wp.kernel(name={name!r}): the name must be a valid C++ identifier")
    _check_entry_point_abi(entry_point_abi, enable_backward)
    options = {"cuda_max_registers": cuda_max_registers} if cuda_max_registers is not None else None

    def make(pyfunc: Callable[..., Any]) -> Kernel:
        max_registers_of(cuda_max_registers, pyfunc.__name__)  # invalid limits fail at definition
        if cuda_max_registers is not None and launch_bounds is not None:
            # CUDA C refuses __maxnreg__ beside __launch_bounds__, and NVIDIA Warp both options
            raise ValueError(
                f"kernel '{pyfunc.__name__}': cuda_max_registers and launch_bounds cannot both be given "
                "(the registers per thread follow from the launch bounds; keep one of them)"
            )
        k = Kernel(
            pyfunc,
            key=name,
            module=module,
            options=options,
            enable_backward=enable_backward,
            launch_bounds=launch_bounds,
            scope=scope,
        )
        if module_options:
            k.module.options.update(module_options)
        if module == "unique":
            return _same_unique_kernel(k)
        return k

    return make if f is None else make(f)


#: kernels declared with ``module="unique"``, by (code object, content hash)
_unique_kernels: weakref.WeakValueDictionary[tuple[Any, str], Kernel] = weakref.WeakValueDictionary()


def _same_unique_kernel(k: Kernel) -> Kernel:
    """An earlier ``module="unique"`` kernel of the same code and content (the same ``wp.static``
    values, captured constants, types and options, launch bounds included) if there is one, else
    ``k``: as in NVIDIA Warp, redeclaring an identical kernel (a factory called again with the
    same values) gives the same kernel, while each different one has a module of its own."""
    try:
        digest = kernel_content_hash(k, k.content_options())
    except Exception:  # noqa: BLE001 - not hashable yet (e.g. a static that fails): compiling reports it
        return k
    key = (k.func.__code__, digest)
    earlier = _unique_kernels.get(key)
    if earlier is not None:
        k.module.kernels.pop(k.key, None)
        return earlier
    _unique_kernels[key] = k
    return k


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _check_entry_point_abi(abi: Any, enable_backward: bool | None) -> None:
    if abi not in ("warp", "external_constant_params"):
        raise ValueError(
            f"wp.kernel(entry_point_abi={abi!r}): it must be 'warp' or 'external_constant_params'"
        )
    if abi == "external_constant_params":
        if enable_backward is not False:
            raise ValueError(
                "wp.kernel(entry_point_abi='external_constant_params') requires enable_backward=False"
            )
        raise NotImplementedError(
            "wp.kernel(entry_point_abi='external_constant_params') (OptiX entry points) is not provided; "
            "launch kernels with wp.launch"
        )


def overload(kernel: Any, arg_types: Any = None) -> Kernel:
    """Declare an instance of a generic kernel with concrete argument types.

    ``wp.overload(k, [wp.array(dtype=float), float])`` or ``wp.overload(k, {"x": ...})`` returns
    the instance. As a decorator on a stub with concrete annotations and the name of a generic
    kernel defined before it (``@wp.overload`` / ``def k(x: wp.array(dtype=float)): ...``), it
    declares that instance and returns the generic kernel, so the name keeps naming it.
    """
    if isinstance(kernel, Kernel):
        if arg_types is None:
            raise TypeError(
                "wp.overload(kernel, arg_types) needs the argument types (a list or a dict by name)"
            )
        return kernel.add_overload(arg_types)
    if callable(kernel) and arg_types is None:
        stub = kernel
        namespace, scope = _scope_of(_defining_frame())
        returns = getattr(stub, "__annotations__", {}).get("return", None)
        if returns not in (None, type(None), "None"):
            raise TypeError(
                f"@wp.overload stub '{stub.__qualname__}' is annotated -> {returns!r}: Return annotations "
                "are not allowed on @wp.overload stubs (kernels return nothing)"
            )
        generic = namespace.get(stub.__name__)
        if not isinstance(generic, Kernel):
            generic = _registered_generic_kernel(stub)
        if not isinstance(generic, Kernel):
            raise WarpCodegenError(
                f"@wp.overload on '{stub.__qualname__}': no generic kernel named '{stub.__name__}' is "
                "defined before it in this scope",
                function=stub.__qualname__,
                loc=SourceLoc(stub.__code__.co_filename, stub.__code__.co_firstlineno),
            )
        declared = FunctionOverload(stub, scope)
        generic.add_overload(dict(zip(declared.param_names, declared.param_types)))
        return generic
    raise TypeError(
        f"wp.overload expects a @wp.kernel (or a stub function as a decorator), got {type(kernel).__name__}"
    )


def _registered_generic_kernel(stub: Callable[..., Any]) -> Kernel | None:
    """The generic kernel of the stub's module defined by a function of the stub's qualified name
    (when the stub's name no longer names it); ``RuntimeError`` if several kernels qualify."""
    found = {
        id(k): k
        for k in get_module(stub.__module__).kernels.values()
        if k.is_generic and getattr(k.func, "__qualname__", None) == stub.__qualname__
    }
    if len(found) > 1:
        keys = ", ".join(sorted(k.key for k in found.values()))
        raise RuntimeError(
            f"Ambiguous kernel lookup for @wp.overload stub '{stub.__qualname__}': kernels {keys} are all "
            "defined by a function of that name; use wp.overload(kernel, arg_types) on the one meant"
        )
    return next(iter(found.values()), None)


def _forward_function(forward: Any, what: str) -> Function:
    if not isinstance(forward, Function):
        raise TypeError(f"@wp.{what}(f) expects a @wp.func f, got {type(forward).__name__}")
    return forward


def _attacher(
    forward: Function, decorator: str, role: str, frame: types.FrameType
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The decorator ``decorator(forward)``: it attaches the function it decorates to ``forward`` as
    its ``role`` ("grad" or "replay"), resolving names in ``frame`` (where it is defined)."""
    target = _forward_function(forward, decorator)
    _, scope = _scope_of(frame)

    def register(pyfunc: Callable[..., Any]) -> Callable[..., Any]:
        target.attach(role, pyfunc, scope)
        return pyfunc

    return register


def func_grad(forward: Function) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: a custom gradient for the ``@wp.func`` ``forward``.

    The decorated function takes the parameters of ``forward`` followed by the adjoint of each
    value it returns, and accumulates into the adjoints of the inputs with
    ``wp.adjoint[x] += ...``. Autodiff then uses it instead of differentiating ``forward``'s body.
    """
    return _attacher(forward, "func_grad", "grad", _defining_frame())


def func_replay(forward: Function) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: what the adjoint pass runs instead of ``forward`` when it replays the forward code.

    The decorated function takes exactly the parameters of ``forward`` and returns the same
    values (e.g. reading back a result that ``forward`` recorded instead of repeating an atomic).
    """
    return _attacher(forward, "func_replay", "replay", _defining_frame())


def func_native(snippet: str, adj_snippet: str | None = None, replay_snippet: str | None = None) -> Any:
    """Decorator for NVIDIA Warp's native C++/CUDA snippet functions.

    The decorated stub declares the signature; its snippets are kept, but this implementation
    compiles kernels through LLVM from Python source and cannot compile C++: a kernel calling
    the function fails to compile with a NotImplementedError naming it (see the docs).
    """
    namespace, scope = _scope_of(_defining_frame())

    def make(pyfunc: Callable[..., Any]) -> Function:
        fn = define_function(pyfunc, namespace, scope)
        fn.native_snippet = snippet
        fn.native_adj_snippet = adj_snippet
        fn.native_replay_snippet = replay_snippet
        return fn

    return make


def constant(x: Any) -> Any:
    """Declare a compile-time constant usable in kernels; returns ``x`` unchanged.

    ``x`` must be a value of a kernel type: a Python or NumPy number or bool, a warp scalar,
    a vector/matrix/quaternion/transform or a ``@wp.struct`` instance (else ``TypeError``).
    """
    if not (wp_types.is_value(x) or wp_types.is_struct(x)):
        raise TypeError(f"Invalid constant type: {type(x)}")
    return x
