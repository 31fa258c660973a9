"""Hook specifications: the contract between warp-core and the packages that extend it.

Every feature beyond the bare core, including core's own standard pieces, is contributed by a
*plugin*: a module registered with pluggy under the project name ``warp``. A distribution makes
its plugin known by declaring an entry point in the ``warp`` group of its ``pyproject.toml``::

    [project.entry-points.warp]
    my_plugin = "my_package.warp_plugin"

The named module implements any subset of the hooks below, each decorated with
``warp.extending.hookimpl`` (:mod:`warp.extending` holds everything else a plugin needs from
warp-core). Hooks are called once per process, when ``warp`` loads its plugins (at ``import
warp``), in no particular order: implementations must not depend on each other's
order. A plugin module that fails to import, or whose hook raises, is reported with a
``RuntimeWarning`` naming it and is skipped; ``import warp`` still succeeds.

Setting the environment variable ``WARP_DISABLE_PLUGINS`` to a comma-separated list of entry
point names (for example ``builtins``) skips those plugins; ``WARP_DISABLE_PLUGINS=all`` skips
every entry-point plugin, which is how core-only embedding is exercised.

Example: a third-party package adding a kernel builtin::

    import llvmlite.ir as ir
    import warp as wp
    from warp.extending import hookimpl

    @hookimpl
    def warp_register_builtins(registry):
        registry.add(
            "smooth_relu",
            params={"x": wp.float32},
            result=wp.float32,
            lower=lambda ctx, args, types: ...,  # an llvmlite value
            doc="Softplus-like smooth rectifier.",
        )

Kernel-visible types need no hook: a plugin exports the class (``warp_exports``) and the class
implements the protocol documented in :mod:`warp.types.protocol` (storage, launch packing,
field access, constructors, iteration, cache hashing); builtins then use it in their
signatures like any warp type.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:  # the hooks' argument types only
    from warp.compiler import ir
    from warp.compiler.callables import UserKernel
    from warp.compiler.registry import BuiltinRegistry
    from warp.plugins.array_utils import DeviceArrayUtils
    from warp.plugins.indexed_ops import DeviceIndexedOps
    from warp.runtime.devices import Device

PROJECT_NAME = "warp"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def warp_register_builtins(registry: BuiltinRegistry) -> None:
    """Add kernel builtins to ``registry`` (a :class:`warp.compiler.registry.BuiltinRegistry`).

    Each builtin is a name plus one or more overloads. An overload gives parameter types
    (concrete types or the generic placeholders ``Scalar``, ``Float``, ``Int``, ``Any`` and
    type variables), a result type (or a function computing it from the argument types) and
    either a ``lower`` function that emits LLVM IR through llvmlite or a ``func`` written in
    the kernel language. The same name may receive overloads from several plugins.
    """


@hookspec
def warp_exports() -> dict[str, Any]:  # type: ignore[empty-body]  # a spec: never run
    """Return Python-scope names to publish on the ``warp`` module (e.g. ``{"Tape": Tape}``).

    A name exported by two plugins is an error reported as a warning; the first one stays.
    """


@hookspec
def warp_module_exports() -> dict[str, dict[str, Any]]:  # type: ignore[empty-body]  # a spec: never run
    """Return Python-scope names to publish on warp-core's own submodules, as ``{module: {name: obj}}``.

    For example ``{"warp.geometry": {"swept_volume_mesh": swept_volume_mesh}}`` makes
    ``warp.geometry.swept_volume_mesh`` that function: a plugin extends a documented module of
    warp-core (``warp.geometry``) with functions that need its own builtins. The module must look
    the names up (:func:`warp.plugins.manager.module_exports`); ``warp.geometry`` does. A name
    exported twice is an error reported as a warning; the first one stays.
    """


@hookspec(firstresult=True)
def warp_adjoint_function(function: ir.Function) -> ir.Function | None:
    """Return the adjoint (reverse-mode derivative) of a kernel, or None if not provided.

    ``function`` is the kernel's typed IR (:class:`warp.compiler.ir.Function`). The result is
    an IR function taking the forward parameters followed by one adjoint parameter per forward
    parameter, of the same type (the gradient arrays and scalar adjoints passed as
    ``adj_inputs``/``adj_outputs`` of ``wp.launch(..., adjoint=True)``). An adjoint array passed
    as ``None`` arrives as an array with a null data pointer and must be skipped. Core compiles
    and launches it like any kernel; it is generated only when backward code is enabled
    (``wp.config.enable_backward``, ``@wp.kernel(enable_backward=...)``, module options).
    """


@hookspec(firstresult=True)
def warp_function_gradient(function: ir.Function) -> ir.Function | None:
    """Return the gradient of a user function for ``wp.grad(f)(...)`` in kernel code, or None.

    ``function`` is the typed IR of one specialization of a ``@wp.func`` with one differentiable
    result. The returned IR function takes the forward parameters followed by the adjoint of
    the result (``1.0`` at the call site) and returns the adjoint of every parameter, in order.
    Raise ``ValueError`` with the reason when the gradient cannot be formed (e.g. the function
    takes arrays); the kernel's compile error carries the message.
    """


@hookspec
def warp_check_launch(kernel: UserKernel, args: Any, device: Device) -> None:
    """Check a launch in debug mode (``wp.config.mode == "debug"``) before it runs; raise to refuse it.

    ``kernel`` is the kernel that runs (a generic kernel's instance), ``args`` its argument
    values in parameter order (as passed to ``wp.launch``), ``device`` the launch device. Checks
    that are too costly for every launch belong here (warp-geometry checks that ``uint64``
    arguments used as object ids are ids of live objects). The error should name the kernel, the
    argument and the source line concerned.
    """


@hookspec
def warp_record_launch(
    kernel: UserKernel,
    dim: Any,
    inputs: list[Any],
    outputs: list[Any],
    device: Device,
    block_dim: int,
    max_blocks: int,
) -> None:
    """Told of a forward kernel launch about to run (``wp.launch(..., record_tape=True)``, the default);
    may return a callable, called without arguments if the launch is then refused before it runs.

    ``kernel`` is the ``wp.Kernel``, ``dim`` the launch dimensions as given, ``inputs`` and
    ``outputs`` the argument lists, ``device`` the resolved ``wp.Device``, ``block_dim`` and
    ``max_blocks`` the launch shape (for the adjoint to run with). Meant for objects
    registered with the plugin manager while they record, not for entry-point plugins: a
    ``wp.Tape`` used as a context manager registers one on entry and unregisters it on exit
    (``get_plugin_manager().register(recorder)``), so launches made while nothing records cost
    nothing more (:func:`warp.plugins.manager.records_launches`).
    """


@hookspec(firstresult=True)
def warp_convert_array(obj: Any, dtype: Any, device: Any) -> Any:
    """Convert a foreign array object (a framework tensor, ...) to a ``wp.array``, or return None.

    Called when a launch argument or ``wp.array(data)`` receives an object warp does not know.
    The first plugin that returns a non-None value wins.
    """


@hookspec
def warp_submodules() -> dict[str, str]:  # type: ignore[empty-body]  # a spec: never run
    """Return documented submodules of ``warp`` that this plugin provides, as ``{name: module}``.

    For example ``{"jax_experimental": "my_package.jax_experimental"}`` makes
    ``import warp.jax_experimental`` (and ``from warp.jax_experimental.ffi import ...``) import
    ``my_package.jax_experimental`` (and its ``ffi`` submodule): the module is one object under
    both names, imported on first use, never at ``import warp`` (so a submodule may import a
    heavy framework). A name claimed by two plugins is reported as a warning; the first one
    stays. A documented submodule that no installed plugin provides raises
    ``ModuleNotFoundError`` naming the distribution to install when the distribution declares it
    in its ``warp_provides.json`` (:mod:`warp.plugins.declarations`).
    """


@hookspec
def warp_array_copied(dest: Any, src: Any, dest_offset: int, src_offset: int, count: int) -> None:
    """Told of each array-to-array copy (``wp.copy``, ``wp.clone``, ``array.assign(array)``) just
    before it overwrites ``dest``.

    ``dest[dest_offset : dest_offset + count] = src[src_offset : src_offset + count]``, offsets and
    count in elements (of the flattened arrays when they are contiguous, of 1-d views otherwise).
    warp-autodiff records it on a recording ``wp.Tape``, whose backward pass then moves the
    gradient of the destination window to the source window.
    """


@hookspec(firstresult=True)
def warp_array_matmul(a: Any, b: Any) -> Any:
    """``a @ b`` where ``a`` is a ``wp.array``: the product as a new array, or None when this
    implementation does not handle the operands (then ``@`` raises ``TypeError``, as Python does
    for unsupported operands).

    warp-core's ``warp.gemm`` (``wp.matmul``, a core plugin) multiplies two 2-D arrays.
    """


@hookspec(firstresult=True)
def warp_device_array_utils(device: Device) -> DeviceArrayUtils | None:
    """Return the implementation of ``warp.utils`` functions computed in kernels on ``device`` (a
    device other than the CPU), or None when this plugin has none for it.

    The result provides ``radix_sort_pairs``, ``array_scan``, ``runlength_encode`` and
    ``array_inner`` as described by :class:`warp.plugins.array_utils.DeviceArrayUtils` (a module
    defining those functions will do); each returns False for arguments it does not handle.
    ``warp.utils`` checks the arguments before calling them and computes on the host (staging
    through host memory) when no plugin provides an implementation or it declines: that path
    cannot be recorded by graph capture. warp-builtins implements it for CUDA devices.
    """


@hookspec(firstresult=True)
def warp_device_indexed_ops(device: Device) -> DeviceIndexedOps | None:
    """Return the implementation of indexed-array gathers and scatters computed in kernels on
    ``device`` (a device other than the CPU), or None when this plugin has none for it.

    The result provides ``fill`` and ``copy`` as described by
    :class:`warp.plugins.indexed_ops.DeviceIndexedOps`; each returns False for arguments it does
    not handle. ``wp.indexedarray`` (``fill_``, ``zero_``, ``assign``, ``contiguous``, ``numpy``)
    and ``wp.copy`` of indexed arrays use it for data on such a device, so graph capture records
    them; without it they stage through host memory, which graph capture refuses. warp-core's
    ``warp.indexed_kernels`` (a core plugin) implements it for every device but the CPU.
    """
