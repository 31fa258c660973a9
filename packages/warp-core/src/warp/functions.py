"""``@wp.func`` objects: user functions callable from kernels, with overloads and specializations."""

from __future__ import annotations

import functools
import inspect
import threading
from typing import Any, Callable

from warp.compiler.annotations import (
    TupleParam,
    is_generic,
    param_annotation,
)
from warp.compiler.callables import UserFunction
from warp.compiler.frontend.compile_time import evaluate_statics
from warp.compiler.source import SourceInfo, capture_source
from warp.errors import SourceLoc, WarpCodegenError, WarpCodegenTypeError
from warp.types.inference import infer_type
from warp.types.scalars import type_repr
from warp.compiler.annotations import is_value_type, return_annotation
from warp.modules import mark_all_modified, module_of
from warp.compiler.annotations import specialize_type
from warp.compiler.frontend.translator import build_function
from warp.compiler.options import max_unroll


class FunctionOverload:
    """One Python definition of a ``@wp.func`` (or kernel) with its resolved parameter types."""

    def __init__(self, pyfunc: Callable[..., Any], scope: dict[str, Any] | None = None):
        self.pyfunc = pyfunc
        capture_source(pyfunc)  # what compiles is what was imported, whatever happens to the file
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
                loc=SourceLoc(pyfunc.__code__.co_filename, pyfunc.__code__.co_firstlineno),
            )
        self.param_types = [self._resolve(pyfunc, n, hints[n], ns) for n in self.param_names]
        ret = hints.get("return", inspect.Parameter.empty)
        self.return_annotation = (
            None if ret is inspect.Parameter.empty else self._resolve(pyfunc, "return", ret, ns)
        )
        self.generic = any(is_generic(t) for t in self.param_types)
        #: the source to compile in place of ``pyfunc``'s own: its tree as rewritten by a kernel's
        #: ``code_transformers`` (see :mod:`warp.compiler.frontend.code_transformers`); None: ``pyfunc``'s
        self.transformed: SourceInfo | None = None

    def specialized(self, param_types: list[Any]) -> FunctionOverload:
        """A copy of this definition with concrete parameter types (a generic kernel's instance)."""
        clone = object.__new__(FunctionOverload)
        clone.__dict__.update(self.__dict__)
        clone.param_types = list(param_types)
        clone.generic = False
        return clone

    @staticmethod
    def _resolve(pyfunc: Callable[..., Any], what: str, annotation: Any, ns: dict[str, Any]) -> Any:
        """Resolve one annotation; failures name the function, the parameter and the location."""
        where = SourceLoc(pyfunc.__code__.co_filename, pyfunc.__code__.co_firstlineno)
        label = "the return type" if what == "return" else f"parameter '{what}'"
        try:
            t = return_annotation(annotation, ns) if what == "return" else param_annotation(annotation, ns)
        except Exception as exc:
            raise WarpCodegenError(
                f"cannot resolve the annotation of {label} ({annotation!r}): {type(exc).__name__}: {exc}",
                function=pyfunc.__qualname__,
                loc=where,
            ) from None
        ok = (
            is_value_type(t)
            or is_generic(t)
            or (what == "return" and (t is type(None) or isinstance(t, tuple)))
        )
        if what == "return" and isinstance(t, tuple):
            ok = all(is_value_type(e) or is_generic(e) for e in t)
        if isinstance(t, TupleParam):
            ok = all(is_value_type(e) or is_generic(e) for e in t.items)
        if not ok:
            raise WarpCodegenTypeError(
                f"{label} is annotated {annotation!r}, which is not a warp type (use a scalar type such as "
                "float or wp.int32, a vector/matrix type, a @wp.struct or wp.array(dtype=...))",
                function=pyfunc.__qualname__,
                loc=where,
            )
        return t


class Function(UserFunction):
    """A ``@wp.func``: callable from kernels, specialized per argument types.

    Several ``@wp.func`` definitions of one name in one namespace become overloads of one
    Function. A call picks the first overload with concrete parameter types that accepts the
    arguments, else the first generic overload that does (in definition order).
    """

    #: How many Functions were made per key: closures made by a factory share their key.
    _key_counts: dict[str, int] = {}
    _count_lock = threading.Lock()

    def __init__(self, pyfunc: Callable[..., Any], scope: dict[str, Any] | None = None, module: Any = None):
        self.key = f"{pyfunc.__module__}.{pyfunc.__qualname__}"
        with Function._count_lock:
            ordinal = Function._key_counts.get(self.key, 0)
            Function._key_counts[self.key] = ordinal + 1
        #: Names this function's code (its compiled symbols): distinct for each closure of a key.
        self.symbol_key = self.key if ordinal == 0 else f"{self.key}#{ordinal}"
        self.name = pyfunc.__name__
        self.module = module_of(pyfunc, module)
        self.overloads: list[FunctionOverload] = [FunctionOverload(pyfunc, scope)]
        #: ``@wp.func_grad`` / ``@wp.func_replay`` definitions: param types -> FunctionOverload
        self.custom_grads: list[FunctionOverload] = []
        self.custom_replays: list[FunctionOverload] = []
        #: C++ snippets of a ``@wp.func_native`` (not compilable here; see docs)
        self.native_snippet: str | None = None
        self.native_adj_snippet: str | None = None
        self.native_replay_snippet: str | None = None
        self._specializations: dict[tuple[Any, ...], Any] = {}
        self._building: set[tuple[Any, ...]] = set()
        self._lock = threading.RLock()
        functools.update_wrapper(self, pyfunc)
        previous = self.module.functions.get(self.key)
        self.module.functions[self.key] = self
        if previous is not None and "<locals>" not in pyfunc.__qualname__:
            mark_all_modified()  # a module-level function redefined (module reloaded): kernels recompile
        evaluate_statics(pyfunc)

    @property
    def func(self) -> Callable[..., Any]:
        return self.overloads[0].pyfunc

    @property
    def is_generic(self) -> bool:
        return any(o.generic for o in self.overloads)

    def add_overload(self, pyfunc: Callable[..., Any], scope: dict[str, Any] | None = None) -> None:
        """Add another definition; one with identical parameter types replaces the older one."""
        new = FunctionOverload(pyfunc, scope)
        self.overloads = [o for o in self.overloads if o.param_types != new.param_types] + [new]
        self._specializations.clear()

    def forget_specializations(self) -> None:
        """Drop the IR built for this function (it may call functions that were redefined)."""
        with self._lock:
            self._specializations.clear()

    def custom_definition(self, kind: str, arg_types: list[Any]) -> FunctionOverload | None:
        """The ``@wp.func_grad`` (``kind="grad"``) or ``@wp.func_replay`` (``"replay"``) definition
        whose leading parameter types accept ``arg_types``, if any (the latest one wins)."""
        candidates = self.custom_grads if kind == "grad" else self.custom_replays
        for ov in reversed(candidates):
            if len(ov.param_types) >= len(arg_types) and all(
                specialize_type(p, a) is not None for p, a in zip(ov.param_types, arg_types)
            ):
                return ov
        return None

    def replay_specialization(self, arg_types: tuple[Any, ...]) -> Any:
        """The IR of the ``@wp.func_replay`` definition for ``arg_types`` (None without one)."""
        replay = self.custom_definition("replay", list(arg_types))
        if replay is None:
            return None
        key = ("replay", id(replay), arg_types)
        with self._lock:
            spec = self._specializations.get(key)
            if spec is None:
                spec = build_function(self, replay, list(arg_types))
                spec.symbol += "_replay"
                self._specializations[key] = spec
            return spec

    def attach(self, kind: str, pyfunc: Callable[..., Any], scope: dict[str, Any] | None) -> FunctionOverload:
        """Register a ``@wp.func_grad`` / ``@wp.func_replay`` definition of this function."""
        definition = FunctionOverload(pyfunc, scope)
        forward = [o for o in self.overloads if len(o.param_types) <= len(definition.param_types)]
        matches = [
            o
            for o in forward
            if definition.param_names[: len(o.param_names)] == o.param_names
            and definition.param_types[: len(o.param_types)] == o.param_types
        ]
        if not matches:
            signatures = "; ".join(
                ", ".join(f"{n}: {type_repr(t)}" for n, t in zip(o.param_names, o.param_types))
                for o in self.overloads
            )
            raise WarpCodegenTypeError(
                f"@wp.func_{kind} '{pyfunc.__qualname__}' must start with the parameters of '{self.name}' "
                f"(same names and types: {signatures})",
                function=pyfunc.__qualname__,
                loc=SourceLoc(pyfunc.__code__.co_filename, pyfunc.__code__.co_firstlineno),
            )
        if kind == "replay" and len(definition.param_types) != len(matches[0].param_types):
            raise WarpCodegenTypeError(
                f"@wp.func_replay '{pyfunc.__qualname__}' must take exactly the parameters of '{self.name}'",
                function=pyfunc.__qualname__,
                loc=SourceLoc(pyfunc.__code__.co_filename, pyfunc.__code__.co_firstlineno),
            )
        (self.custom_grads if kind == "grad" else self.custom_replays).append(definition)
        self._specializations.clear()  # new IR functions: autodiff caches adjoints per IR function
        return definition

    def ordered_overloads(self) -> list[FunctionOverload]:
        """Overloads in resolution order: concrete ones first, then generic ones."""
        return [o for o in self.overloads if not o.generic] + [o for o in self.overloads if o.generic]

    def specialization(self, overload: FunctionOverload, arg_types: tuple[Any, ...]) -> Any:
        """The IR function of ``overload`` for these argument types (built once per code options)."""
        key = (id(overload), arg_types, max_unroll())  # the IR depends on the unrolling limit
        with self._lock:
            spec = self._specializations.get(key)
            if spec is None:
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
        """Python-scope call: runs the Python function of the first overload (in resolution order)
        whose parameter types the arguments have; ``RuntimeError`` if none has them.

        An argument whose warp type cannot be told (a list, a tuple, any Python object) fits any
        parameter; a Python ``float`` is a ``float32`` and an ``int`` an ``int32``, as in launches.
        """
        for overload in self.ordered_overloads():
            if _python_call_fits(overload, args, kwargs):
                return overload.pyfunc(*args, **kwargs)
        raise RuntimeError(f"Error calling function '{self.name}', no overload found for arguments {args!r}")

    def __repr__(self) -> str:
        return f"<warp function {self.key}>"


def _python_call_fits(overload: FunctionOverload, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """True if a Python-scope call with ``args``/``kwargs`` matches the parameters of ``overload``."""
    names = overload.param_names
    if len(args) > len(names) or any(k not in names for k in kwargs):
        return False
    bound = {**dict(zip(names, args)), **kwargs}
    if any(n not in bound and n not in overload.defaults for n in names):
        return False
    for name, pattern in zip(names, overload.param_types):
        if name not in bound or isinstance(pattern, TupleParam):
            continue
        actual = infer_type(bound[name])
        if actual is not None and specialize_type(pattern, actual) is None:
            return False
    return True


def define_function(
    pyfunc: Callable[..., Any],
    namespace: dict[str, Any],
    scope: dict[str, Any] | None,
    module: Any = None,
    inline: bool | None = None,
) -> Function:
    """The Function for a new ``@wp.func`` definition made in ``namespace`` (globals or locals).

    A definition whose name is already bound in the namespace to a Function of the same key
    becomes an overload of it (the same parameter types replace the older definition);
    otherwise a new Function is made, so closures made by repeated calls of a factory
    function stay separate functions. ``inline`` is the inlining hint (an overload's hint,
    when given, becomes the Function's).
    """
    key = f"{pyfunc.__module__}.{pyfunc.__qualname__}"
    existing = namespace.get(pyfunc.__name__)
    if isinstance(existing, Function) and existing.key == key:
        new = FunctionOverload(pyfunc, scope)
        if any(o.param_types != new.param_types for o in existing.overloads):
            existing.add_overload(pyfunc, scope)
            if inline is not None:
                existing.inline = inline
            return existing
    function = Function(pyfunc, scope, module)
    function.inline = inline
    return function
