"""``@wp.kernel``, ``@wp.func`` and ``wp.constant``: the objects user code is turned into."""

from __future__ import annotations

import functools
import inspect
import threading
from typing import Any, Callable

from warp.compiler.annotations import is_generic, resolve_annotation
from warp.errors import WarpCodegenError, WarpCodegenTypeError
from warp.types.scalars import type_repr


class FunctionOverload:
    """One Python definition of a ``@wp.func`` with its resolved parameter types."""

    def __init__(self, pyfunc: Callable[..., Any], scope: dict[str, Any] | None = None):
        self.pyfunc = pyfunc
        sig = inspect.signature(pyfunc)
        self.param_names = list(sig.parameters)
        self.defaults = {
            n: p.default for n, p in sig.parameters.items() if p.default is not inspect.Parameter.empty
        }
        ns = dict(pyfunc.__globals__)
        ns.update(scope or {})  # locals of the defining function (postponed annotations name them)
        if pyfunc.__closure__:  # string annotations may name variables of an enclosing function
            for name, cell in zip(pyfunc.__code__.co_freevars, pyfunc.__closure__):
                try:
                    ns[name] = cell.cell_contents
                except ValueError:
                    pass
        hints = pyfunc.__annotations__
        missing = [n for n in self.param_names if n not in hints]
        if missing:
            raise WarpCodegenError(
                f"parameter '{missing[0]}' of '{pyfunc.__qualname__}' needs a type annotation",
                function=pyfunc.__qualname__,
            )
        self.param_types = [self._resolve(pyfunc, n, hints[n], ns) for n in self.param_names]
        ret = hints.get("return", inspect.Parameter.empty)
        self.return_annotation = None if ret is inspect.Parameter.empty else self._resolve(pyfunc, "return", ret, ns)
        self.generic = any(is_generic(t) for t in self.param_types)


    @staticmethod
    def _resolve(pyfunc: Callable[..., Any], what: str, annotation: Any, ns: dict[str, Any]) -> Any:
        """Resolve one annotation; failures name the function, the parameter and the location."""
        from warp.compiler.annotations import is_value_type
        from warp.errors import SourceLoc

        where = SourceLoc(pyfunc.__code__.co_filename, pyfunc.__code__.co_firstlineno)
        label = "the return type" if what == "return" else f"parameter '{what}'"
        try:
            t = resolve_annotation(annotation, ns)
        except Exception as exc:
            raise WarpCodegenError(
                f"cannot resolve the annotation of {label} ({annotation!r}): {type(exc).__name__}: {exc}",
                function=pyfunc.__qualname__,
                loc=where,
            ) from None
        ok = is_value_type(t) or is_generic(t) or (what == "return" and (t is type(None) or isinstance(t, tuple)))
        if not ok:
            raise WarpCodegenTypeError(
                f"{label} is annotated {annotation!r}, which is not a warp type (use a scalar type such as "
                "float or wp.int32, a vector/matrix type, a @wp.struct or wp.array(dtype=...))",
                function=pyfunc.__qualname__,
                loc=where,
            )
        return t


class Function:
    """A ``@wp.func``: callable from kernels, specialized per argument types.

    Several ``@wp.func`` definitions sharing a name in one module become overloads of one
    Function; a call picks the first overload whose parameter types match.
    """

    def __init__(self, pyfunc: Callable[..., Any], scope: dict[str, Any] | None = None):
        self.key = f"{pyfunc.__module__}.{pyfunc.__qualname__}"
        self.name = pyfunc.__name__
        self.module = pyfunc.__module__
        self.overloads: list[FunctionOverload] = [FunctionOverload(pyfunc, scope)]
        self._specializations: dict[tuple[Any, ...], Any] = {}
        self._building: set[tuple[Any, ...]] = set()
        self._lock = threading.RLock()
        functools.update_wrapper(self, pyfunc)

    @property
    def func(self) -> Callable[..., Any]:
        return self.overloads[0].pyfunc

    def add_overload(self, pyfunc: Callable[..., Any], scope: dict[str, Any] | None = None) -> None:
        """Add another definition; one with identical parameter types replaces the older one."""
        new = FunctionOverload(pyfunc, scope)
        self.overloads = [o for o in self.overloads if o.param_types != new.param_types] + [new]
        self._specializations.clear()

    def specialization(self, overload: FunctionOverload, arg_types: tuple[Any, ...]) -> Any:
        """The IR function of ``overload`` for these argument types (built once)."""
        key = (id(overload), arg_types)
        with self._lock:
            spec = self._specializations.get(key)
            if spec is None:
                from warp.compiler.frontend import build_function

                if key in self._building:
                    raise WarpCodegenError(
                        f"'{self.name}' calls itself (directly or through other functions); recursive "
                        "@wp.func calls are not supported in kernels",
                        function=self.name,
                    )
                self._building.add(key)
                try:
                    spec = build_function(self, overload, list(arg_types))
                finally:
                    self._building.discard(key)
                self._specializations[key] = spec
            return spec

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Python-scope call: runs the original Python function (useful for testing)."""
        return self.func(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<warp function {self.key}>"


_function_table: dict[str, Function] = {}
_table_lock = threading.Lock()


def func(pyfunc: Callable[..., Any]) -> Function:
    """Decorator: make a Python function callable from kernels (``@wp.func``)."""
    key = f"{pyfunc.__module__}.{pyfunc.__qualname__}"
    scope = _defining_scope()
    with _table_lock:
        existing = _function_table.get(key)
        new_overload = FunctionOverload(pyfunc, scope)
        if existing is not None and any(
            o.param_types != new_overload.param_types for o in existing.overloads
        ):
            existing.add_overload(pyfunc, scope)
            return existing
        fn = Function(pyfunc, scope)
        _function_table[key] = fn
        return fn


class Kernel:
    """A ``@wp.kernel``: compiled on first launch per device, cached on disk."""

    def __init__(
        self,
        pyfunc: Callable[..., Any],
        *,
        enable_backward: bool | None = None,
        module: str | None = None,
        scope: dict[str, Any] | None = None,
    ):
        self.func = pyfunc
        self.key = f"{pyfunc.__module__}.{pyfunc.__qualname__}"
        self.name = pyfunc.__name__
        self.module = module or pyfunc.__module__
        self.enable_backward = enable_backward
        self.overload = FunctionOverload(pyfunc, scope)
        if self.overload.return_annotation not in (None, type(None)):
            raise WarpCodegenTypeError(
                f"kernel '{self.name}' must not return a value (annotated -> "
                f"{type_repr(self.overload.return_annotation)})",
                function=self.name,
            )
        self._compiled: dict[str, Any] = {}
        self._launchers: dict[Any, Any] = {}
        self._lock = threading.RLock()
        functools.update_wrapper(self, pyfunc)

    @property
    def arg_names(self) -> list[str]:
        return self.overload.param_names

    @property
    def arg_types(self) -> list[Any]:
        return self.overload.param_types

    def compiled(self, device: Any) -> Any:
        """The loaded machine code of this kernel for ``device`` (compiling or loading from cache)."""
        from warp import config

        key = f"{device.alias if hasattr(device, 'alias') else device}:{config.mode}"
        hit = self._compiled.get(key)
        if hit is not None:
            return hit
        with self._lock:
            hit = self._compiled.get(key)
            if hit is None:
                from warp.runtime.kernel_loader import load_kernel

                hit = load_kernel(self, device)
                self._compiled[key] = hit
            return hit

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"kernel '{self.name}' cannot be called directly; use wp.launch({self.name}, dim=..., inputs=[...])")

    def __repr__(self) -> str:
        return f"<warp kernel {self.key}>"


def kernel(f: Callable[..., Any] | None = None, *, enable_backward: bool | None = None, module: str | None = None) -> Any:
    """Decorator: compile a Python function as a kernel (``@wp.kernel`` or ``@wp.kernel(...)``)."""
    scope = _defining_scope()
    if f is None:
        return lambda pyfunc: Kernel(pyfunc, enable_backward=enable_backward, module=module, scope=scope)
    return Kernel(f, enable_backward=enable_backward, module=module, scope=scope)


def _defining_scope() -> dict[str, Any] | None:
    """Locals of the function in which a decorated kernel/func is defined (None at module level)."""
    import sys

    frame = sys._getframe(2)
    if frame.f_code.co_name == "<module>":
        return None
    return dict(frame.f_locals)


def constant(x: Any) -> Any:
    """Declare a compile-time constant usable in kernels; returns ``x`` unchanged."""
    return x


_module_options: dict[str, dict[str, Any]] = {}


def set_module_options(options: dict[str, Any], module: Any = None) -> None:
    """Set compile options (e.g. ``{"enable_backward": False}``) for the kernels of a Python module.

    ``module`` is a module object or name; by default the caller's module.
    """
    import sys

    if module is None:
        name = sys._getframe(1).f_globals.get("__name__", "__main__")
    else:
        name = module if isinstance(module, str) else module.__name__
    _module_options.setdefault(name, {}).update(options)


def get_module_options(module: Any = None) -> dict[str, Any]:
    """The options set with :func:`set_module_options` for a module (by default the caller's)."""
    import sys

    if module is None:
        name = sys._getframe(1).f_globals.get("__name__", "__main__")
    else:
        name = module if isinstance(module, str) else module.__name__
    return dict(_module_options.get(name, {}))
