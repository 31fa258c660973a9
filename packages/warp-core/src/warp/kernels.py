"""``wp.Kernel``: a kernel function, its module and options, and its instances if generic.

A kernel whose parameters use placeholders (``typing.Any``, ``wp.array(dtype=Any)``,
``wp.vector(length=Any, dtype=Float)``, ...) is *generic*: a template from which concrete
kernels are made per argument types, implicitly at launch (types inferred from the arguments)
or explicitly with ``wp.overload``. Each instance is itself a concrete :class:`Kernel` with its
own cache entry.
"""

from __future__ import annotations

import functools
import re
from hashlib import sha256
import threading
from typing import Any, Callable, Protocol, Sequence

from warp.compiler.annotations import is_generic, specialize_type
from warp.compiler.callables import UserKernel
from warp.compiler.frontend.code_transformers import transformed_source
from warp.compiler.frontend.compile_time import evaluate_statics
from warp.compiler.options import launch_bounds_of
from warp.functions import FunctionOverload
from warp.types.scalars import type_repr
from warp.modules import module_of
from warp.types.inference import infer_type
from warp.compiler.annotations import resolve_annotation
from warp import config
from warp.runtime.kernel_loader import load_kernel


def default_kernel_key(func: Callable[..., Any]) -> str:
    """Warp's key of a kernel: its qualified name as an identifier (``f``, ``outer__locals__f``).

    Kernels are registered per module, so the key needs no module prefix; tests and tools that
    name things after ``kernel.key`` see the function's own name for module-level kernels.
    """
    return func.__qualname__.replace("<", "").replace(">", "").replace(".", "__")


class CustomAdjoint(Protocol):
    """Runs the adjoint of one launch of a kernel with other launches (:attr:`Kernel.custom_adjoint`).

    Called by ``wp.launch(kernel, ..., adjoint=True)`` (and so by ``wp.Tape.backward``) with the
    launch's dimensions, argument lists and adjoint lists (``None`` for an argument without one),
    device and stream, in place of a generated adjoint kernel.
    """

    def __call__(
        self, dim: Any, inputs: list[Any], outputs: list[Any], adj_inputs: list[Any], adj_outputs: list[Any],
        device: Any, stream: Any,
    ) -> None: ...


class Kernel(UserKernel):
    """A ``@wp.kernel``: compiled on first launch per device, cached on disk.

    ``wp.Kernel(func, key=None, module=None, options=None, code_transformers=None)`` builds one
    directly from a Python function (what ``@wp.kernel`` does); ``options`` holds per-kernel compile
    options such as ``{"enable_backward": False, "max_unroll": 8}``, overriding the module's;
    ``code_transformers`` are ``ast.NodeTransformer`` objects that rewrite the function's syntax
    tree once, at declaration, before it is compiled (see
    :mod:`warp.compiler.frontend.code_transformers`).
    """

    def __init__(
        self,
        func: Callable[..., Any],
        key: str | None = None,
        module: Any = None,
        options: dict[str, Any] | None = None,
        code_transformers: Sequence[Any] | None = None,
        source: str | None = None,
        *,
        enable_backward: bool | None = None,
        launch_bounds: Any = None,
        scope: dict[str, Any] | None = None,
    ):
        if source is not None:
            raise NotImplementedError("wp.Kernel(source=...) is not supported; pass the Python function")
        options = dict(options or {})
        if enable_backward is not None:
            options["enable_backward"] = bool(enable_backward)
        self._setup(
            func,
            key or default_kernel_key(func),
            options,
            launch_bounds,
            module_of(func, module),
            FunctionOverload(func, scope),
            None,
        )
        if code_transformers:
            self.overload.transformed = transformed_source(func, code_transformers)
        else:
            evaluate_statics(func)
        self.module.kernels[self.key] = self

    def _setup(
        self,
        func: Callable[..., Any],
        key: str,
        options: dict[str, Any],
        launch_bounds: Any,
        module: Any,
        overload: FunctionOverload,
        template: Kernel | None,
    ) -> None:
        self.func = func
        self.key = key
        self.name = func.__name__
        self.options: dict[str, Any] = options
        launch_bounds_of(launch_bounds, self.name)  # invalid bounds fail at definition
        self.launch_bounds = launch_bounds
        #: the generic kernel this is an instance of (None for kernels defined by the user)
        self.template = template
        self.module = module
        self.overload = overload
        self.is_generic = self.overload.generic
        #: instances of a generic kernel: concrete argument types -> Kernel
        self.overloads: dict[tuple[Any, ...], Kernel] = {}
        #: launch signature of the generic arguments -> instance (see :meth:`specialize`)
        self._by_signature: dict[tuple[Any, ...], Kernel] = {}
        self._generic_params = [i for i, t in enumerate(self.overload.param_types) if is_generic(t)]
        #: made at launch from argument types (not declared with wp.overload)
        self._implicit = False
        #: computes the adjoint of this kernel's launches with other launches instead of a generated
        #: adjoint kernel (``wp.matmul``'s GEMM kernels set it); None: the generated adjoint
        self.custom_adjoint: CustomAdjoint | None = None
        self._compiled: dict[str, Any] = {}
        self._launchers: dict[Any, Any] = {}
        self._lock = threading.RLock()
        functools.update_wrapper(self, func)

    # -- signature ------------------------------------------------------------------------
    @property
    def arg_names(self) -> list[str]:
        return self.overload.param_names

    @property
    def arg_types(self) -> list[Any]:
        return self.overload.param_types

    @property
    def enable_backward(self) -> bool | None:
        """The kernel's own ``enable_backward`` setting (None: the module's / ``wp.config``'s)."""
        return self.options.get("enable_backward")

    def content_options(self) -> dict[str, Any]:
        """The options that shape this kernel's code, for content hashes: its module's options,
        its own (``enable_backward``, ``module_options``) and its CUDA ``launch_bounds``."""
        options = {**self.module.options.copy(), **self.options}
        if self.launch_bounds is not None:
            options["launch_bounds"] = self.launch_bounds
        return options

    # -- generic kernels ------------------------------------------------------------------
    def infer_argument_types(self, args: Sequence[Any]) -> list[Any]:
        """Concrete parameter types for launch arguments ``args`` (errors name the parameter)."""
        if len(args) != len(self.arg_names):
            raise TypeError(
                f"kernel '{self.name}' takes {len(self.arg_names)} arguments ({', '.join(self.arg_names)}) "
                f"but {len(args)} were given"
            )
        types = list(self.arg_types)
        for i in self._generic_params:
            pattern, value = types[i], args[i]
            actual = infer_type(value)
            concrete = specialize_type(pattern, actual)
            if concrete is None:
                where = f"kernel '{self.name}', argument '{self.arg_names[i]}'"
                if actual is None:
                    raise TypeError(
                        f"{where}: cannot infer a type for generic parameter {type_repr(pattern)} from "
                        f"{type(value).__name__} {_short(value)}; pass a warp value (e.g. wp.float64(1.0), "
                        "wp.vec3(...), a wp.array) or declare the types with wp.overload"
                    )
                raise TypeError(f"{where}: expected {type_repr(pattern)}, got {type_repr(actual)}")
            types[i] = concrete
        return types

    def add_overload(self, arg_types: Sequence[Any] | dict[str, Any]) -> Kernel:
        """The instance of this generic kernel for ``arg_types`` (a list, or a dict by name)."""
        if not self.is_generic:
            raise TypeError(
                f"kernel '{self.name}' is not generic; wp.overload needs a kernel with Any-typed parameters"
            )
        if isinstance(arg_types, dict):
            unknown = [n for n in arg_types if n not in self.arg_names]
            if unknown:
                raise TypeError(f"kernel '{self.name}' has no parameter '{unknown[0]}'")
            given = [arg_types.get(n, t) for n, t in zip(self.arg_names, self.arg_types)]
        else:
            given = list(arg_types)
            if len(given) != len(self.arg_names):
                raise TypeError(
                    f"wp.overload: kernel '{self.name}' has {len(self.arg_names)} parameters "
                    f"({', '.join(self.arg_names)}), got {len(given)} types"
                )
        concrete = []
        for name, pattern, t in zip(self.arg_names, self.arg_types, given):
            t = resolve_annotation(t, {})
            if is_generic(t):
                raise TypeError(
                    f"wp.overload: kernel '{self.name}', parameter '{name}': {type_repr(t)} is not a "
                    "concrete type"
                )
            fitted = specialize_type(pattern, t)
            if fitted is None:
                raise TypeError(
                    f"wp.overload: kernel '{self.name}', parameter '{name}' is {type_repr(pattern)}, "
                    f"which {type_repr(t)} does not match"
                )
            concrete.append(fitted)
        return self.instance(tuple(concrete))

    def get_overload(self, arg_types: Sequence[Any]) -> Kernel | None:
        """The existing instance for these concrete argument types, if any."""
        return self.overloads.get(tuple(arg_types))

    def instance(self, types: tuple[Any, ...], implicit: bool = False) -> Kernel:
        """The concrete kernel for the full tuple of parameter types (made once)."""
        inst = self.overloads.get(types)
        if inst is None:
            with self._lock:
                inst = self.overloads.get(types)
                if inst is None:
                    inst = object.__new__(Kernel)
                    inst._setup(
                        self.func,
                        self.key,
                        self.options,
                        self.launch_bounds,
                        self.module,
                        self.overload.specialized(list(types)),
                        self,
                    )
                    inst._implicit = implicit
                    self.overloads[types] = inst
        if not implicit:
            inst._implicit = False
        return inst

    def specialize(self, args: Sequence[Any]) -> Kernel:
        """The kernel to launch with ``args``: itself if concrete, else the matching instance.

        Instances are remembered by a cheap signature of the generic arguments (an array's
        type, else the Python type of the value), so repeated launches skip type inference.
        """
        if not self.is_generic:
            return self
        try:
            signature = tuple([_signature_of(args[i]) for i in self._generic_params])
            inst = self._by_signature.get(signature)
        except (IndexError, TypeError):  # wrong argument count, unhashable: the full path reports
            signature, inst = None, None
        if inst is not None and self.overloads.get(tuple(inst.arg_types)) is inst:
            return inst
        inst = self.instance(tuple(self.infer_argument_types(args)), implicit=True)
        if signature is not None and None not in signature:
            self._by_signature[signature] = inst
        return inst

    def get_mangled_name(self) -> str:
        """A C-identifier-safe name of this kernel (and its argument types, for instances)."""
        base = re.sub(r"[^0-9A-Za-z_]", "_", self.key)
        if self.template is None:
            return base
        return f"{base}_{sha256(repr([type_repr(t) for t in self.arg_types]).encode()).hexdigest()[:8]}"

    # -- loading --------------------------------------------------------------------------
    def compiled(self, device: Any) -> Any:
        """The loaded machine code of this kernel for ``device`` (compiling or loading from cache)."""
        if self.is_generic:
            raise TypeError(
                f"kernel '{self.name}' is generic: it is compiled per argument types at launch "
                "(or declare instances with wp.overload)"
            )
        key = self._compiled_key(device)
        hit = self._compiled.get(key)
        if hit is not None:
            return hit
        with self._lock:
            hit = self._compiled.get(key)
            if hit is None:
                try:
                    hit = load_kernel(self, device)
                except Exception:
                    if self._implicit and self.template is not None:  # a failed launch's instance: not kept
                        self.template.overloads.pop(tuple(self.arg_types), None)
                    raise
                self._compiled[key] = hit
            return hit

    def _compiled_key(self, device: Any) -> str:
        return f"{device.alias if hasattr(device, 'alias') else device}:{config.mode}"

    def is_loaded(self, device: Any) -> bool:
        """Whether this kernel's code is loaded on ``device`` (for the current ``wp.config.mode``)."""
        return self._compiled_key(device) in self._compiled

    def adopt_compiled(self, device: Any, compiled: Any) -> None:
        """Keep ``compiled`` (from :func:`warp.runtime.kernel_loader.preload_kernels`) as this
        kernel's code on ``device``, unless some was loaded meanwhile."""
        with self._lock:
            self._compiled.setdefault(self._compiled_key(device), compiled)

    def unload(self) -> None:
        """Forget loaded code and launchers; the next launch loads again (from the cache if valid)."""
        with self._lock:
            self._compiled.clear()
            self._launchers.clear()
            for inst in self.overloads.values():
                inst.unload()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            f"kernel '{self.name}' cannot be called directly; "
            f"use wp.launch({self.name}, dim=..., inputs=[...])"
        )

    def __repr__(self) -> str:
        if self.template is not None:
            return f"<warp kernel {self.key}[{', '.join(type_repr(t) for t in self.arg_types)}]>"
        return f"<warp kernel {self.key}>"


def _signature_of(value: Any) -> Any:
    """What determines the inferred type of a launch argument, cheaply: an array's compiler type,
    else the value's Python type; None when the type alone does not tell (NumPy arrays)."""
    array_type = getattr(value, "_array_type", None)
    if array_type is not None:
        return array_type
    t = type(value)
    return None if t.__module__ == "numpy" else t


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
