"""Public names of NVIDIA Warp 1.19 that warp-suite does not provide, and what to use instead.

One table: ``wp.<name>`` for a name below raises an ``AttributeError`` that says the name is
not provided and what to use instead; ``import warp.<module>`` for a module below raises a
``ModuleNotFoundError`` with the same kind of message. The names come from Warp's runtime
reference, its list of kernel builtins and its documented examples and tests (read as a
specification). ``docs/coming-from-warp.md`` lists the same table.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class NotProvided:
    """Why a group of Warp names is missing here and what to use instead."""

    what: str
    instead: str


_TILES = NotProvided(
    "tiles (block-cooperative kernels) are not implemented",
    "per-thread kernels launched with wp.launch (e.g. one thread per output element, "
    "wp.matmul for dense matrix products)",
)
_ALLOCATORS = NotProvided(
    "CUDA managed memory and the CUDA allocator switch are not provided",
    "wp.set_device_allocator(device, allocator) for custom allocation; wp.ScopedMemoryTracker to track it",
)
_TIMING = NotProvided(
    "activity timing of kernels/memcpys/graphs (CUDA events per operation) is not provided",
    "wp.ScopedTimer(name, synchronize=True) around the code to time",
)
_CUDA_INFO = NotProvided(
    "this CUDA query/control is not provided",
    "wp.get_device('cuda:0') / wp.get_cuda_devices() and the Device's attributes",
)
_GRAPHS = NotProvided(
    "conditional CUDA graph nodes and saving/loading captured graphs are not provided",
    "Python control flow around wp.capture_launch, or recapture the graph",
)
_TEXTURES = NotProvided(
    "hardware textures are not provided",
    "wp.Volume (sampled 3-D grids) or a wp.array read with explicit interpolation in the kernel",
)
_AOT = NotProvided(
    "ahead-of-time module compilation and link-time-optimized (LTO) libraries are not provided",
    "kernels compile on first launch and are cached on disk (wp.config.kernel_cache_dir)",
)
_FABRIC = NotProvided(
    "Omniverse Fabric arrays are not provided",
    "copy the data into a wp.array (e.g. through NumPy or DLPack)",
)
_DENSE = NotProvided(
    "the dense_* kernel builtins (deprecated in Warp) are not provided",
    "vector/matrix types with wp.inverse/wp.svd3/wp.qr3 in kernels, or wp.matmul on arrays",
)
_CODEGEN = NotProvided(
    "code-generation helper builtins are not callable",
    "the ordinary syntax they implement (indexing, assignment, for loops over range/iterators)",
)
_REF = NotProvided(
    "pass-by-reference parameters are not provided",
    "return the new value from the @wp.func (tuples work), or pass an array and write into it",
)

#: ``wp.<name>`` -> why it is missing and what to use instead.
NAMES: dict[str, NotProvided] = {
    **dict.fromkeys([
        "launch_tiled", "tile", "untile", "tile_arange", "tile_argmax", "tile_argmin", "tile_assign",
        "tile_astype", "tile_atomic_add", "tile_atomic_add_indexed", "tile_axpy", "tile_broadcast",
        "tile_bvh_query_aabb", "tile_bvh_query_next", "tile_bvh_query_ray", "tile_cholesky",
        "tile_cholesky_inplace", "tile_cholesky_solve", "tile_cholesky_solve_inplace", "tile_diag_add",
        "tile_dot", "tile_empty", "tile_extract", "tile_fft", "tile_from_thread", "tile_full",
        "tile_ifft", "tile_load", "tile_load_indexed", "tile_lower_solve", "tile_lower_solve_inplace",
        "tile_map", "tile_matmul", "tile_max", "tile_mesh_query_aabb", "tile_mesh_query_aabb_next",
        "tile_min", "tile_ones", "tile_query_valid", "tile_randf", "tile_randi", "tile_reduce",
        "tile_reshape", "tile_scan_exclusive", "tile_scan_inclusive", "tile_scan_max_inclusive",
        "tile_scan_min_inclusive", "tile_scatter_add", "tile_scatter_masked", "tile_sort",
        "tile_squeeze", "tile_stack", "tile_stack_clear", "tile_stack_count", "tile_stack_pop",
        "tile_stack_push", "tile_store", "tile_store_indexed", "tile_sum", "tile_transpose",
        "tile_upper_solve", "tile_upper_solve_inplace", "tile_view", "tile_zeros",
        "bvh_query_aabb_tiled", "bvh_query_next_tiled", "bvh_query_ray_tiled",
        "mesh_query_aabb_tiled", "mesh_query_aabb_next_tiled",
    ], _TILES),
    **dict.fromkeys([
        "set_cuda_allocator", "CudaManagedAllocator", "MemoryKind",
    ], _ALLOCATORS),
    **dict.fromkeys([
        "timing_begin", "timing_end", "TIMING_KERNEL", "TIMING_KERNEL_BUILTIN", "TIMING_MEMCPY",
        "TIMING_MEMSET", "TIMING_GRAPH", "TIMING_ALL", "ScopedCudaProfiler", "cuda_profiler_start",
        "cuda_profiler_stop",
    ], _TIMING),
    **dict.fromkeys([
        "get_cuda_kernel_properties", "get_cuda_max_cluster_dim", "get_suggested_block_size",
        "map_cuda_device", "unmap_cuda_device",
    ], _CUDA_INFO),
    **dict.fromkeys([
        "is_conditional_graph_supported", "capture_if", "capture_while", "capture_save",
        "capture_load", "capture_load_from_bytes", "capture_debug_dot_print", "CaptureMode",
    ], _GRAPHS),
    **dict.fromkeys([
        "Texture1D", "Texture2D", "Texture3D", "TextureAddressMode", "TextureFilterMode",
        "texture_sample",
    ], _TEXTURES),
    **dict.fromkeys(["compile_aot_module", "load_aot_module"], _AOT),
    **dict.fromkeys([
        "fabricarray", "fabricarrayarray", "indexedfabricarray", "indexedfabricarrayarray",
    ], _FABRIC),
    **dict.fromkeys([
        "dense_chol", "dense_chol_batched", "dense_gemm", "dense_gemm_batched", "dense_solve",
        "dense_solve_batched", "dense_subs",
    ], _DENSE),
    **dict.fromkeys([
        "address", "index", "indexref", "iter_next", "load", "store", "slice",
        "transform_add_inplace", "transform_sub_inplace",
    ], _CODEGEN),
    **dict.fromkeys(["ref", "address_of"], _REF),
    **dict.fromkeys(["Logger", "ScopedLogger", "ScopedLogLevel", "get_logger", "set_logger"], NotProvided(
        "Warp's replaceable logger objects are not provided",
        "wp.config.log_level (wp.config.LOG_DEBUG ... LOG_ERROR), wp.config.quiet and wp.config.verbose",
    )),
    "ModuleBuildOptions": NotProvided(
        "extra C++/CUDA preambles for module builds do not exist here (kernels compile through LLVM)",
        "wp.set_module_options({...}) for the options this project has (mode, max_unroll, enable_backward)",
    ),
    "WarpCodegenKeyError": NotProvided(
        "this codegen error subclass is not raised here",
        "catch wp.WarpCodegenError, the base of every kernel compile error",
    ),
    "can_access": NotProvided(
        "unified (managed) memory access queries are not provided",
        "array.device: CPU arrays are reachable from the CPU, CUDA arrays from their device",
    ),
    "clear_jax_callable_graph_cache": NotProvided(
        "jax_callable keeps no cache of captured CUDA graphs here",
        "nothing to clear: warp.jax_experimental.jax_callable launches the function each call",
    ),
    "from_ptr": NotProvided(
        "the deprecated wp.from_ptr is not provided",
        "wp.array(ptr=address, shape=..., dtype=..., device=...)",
    ),
    "transform_expand": NotProvided(
        "the deprecated wp.transform_expand is not provided",
        "wp.transform(p, q) or wp.transform(*values) from seven numbers",
    ),
    "stream_to_paddle": NotProvided(
        "making a Paddle stream from a Warp stream is not provided",
        "wp.stream_from_paddle(paddle_stream) in the other direction, or paddle's current stream",
    ),
    "breakpoint": NotProvided(
        "debugger breakpoints inside kernels are not provided",
        "wp.printf / print in the kernel, or wp.config.mode = 'debug' for bounds checks",
    ),
    "fixedarray": NotProvided(
        "the fixed-size array type is not provided",
        "wp.zeros(shape, dtype=...) inside the kernel (a kernel-local array of constant shape)",
    ),
    "map": NotProvided(
        "wp.map (elementwise application of a @wp.func to arrays) is not provided",
        "a @wp.kernel that calls the function per element, launched over the array's shape",
    ),
    "DeterministicMode": NotProvided(
        "deterministic reductions of floating-point atomics are not provided",
        "wp.config.cpu_threads = 1 (Warp's serial thread order on the CPU)",
    ),
    "WarpDeterminismError": NotProvided(
        "deterministic reductions of floating-point atomics are not provided",
        "wp.config.cpu_threads = 1 (Warp's serial thread order on the CPU)",
    ),
    "build_experimental": NotProvided(
        "native C++ types and functions in kernels are not provided (kernels compile through LLVM, not C++)",
        "@wp.struct and @wp.func, or a plugin registering builtins (docs/plugins.md)",
    ),
    "get_cpu_kernel_cache_key": NotProvided(
        "C++ compiler flags for CPU kernels do not exist here (kernels compile through LLVM)",
        "wp.config.kernel_cache_dir; cache keys cover source, types, options and CPU features",
    ),
    "print_diagnostics": NotProvided(
        "the native-library build report is not provided",
        "wp.__version__, wp.get_devices() and wp.is_cuda_available()",
    ),
}

#: ``warp.<module>`` -> why it is missing and what to use instead.
MODULES: dict[str, NotProvided] = {
    "warp.fem": NotProvided(
        "the finite-element toolkit warp.fem is not provided",
        "assemble the discrete operators with your own kernels over wp.array meshes",
    ),
    "warp.sparse": NotProvided(
        "block-sparse matrices (warp.sparse: bsr_matrix_t, bsr_mv, ...) are not provided",
        "scipy.sparse on the host, or CSR arrays and your own matrix-vector kernel",
    ),
    "warp.tests": NotProvided(
        "NVIDIA Warp's own test suite and its helpers (warp.tests.unittest_utils) are not shipped",
        "this project's tests (python -m pytest tests) and plain assertions in your programs",
    ),
}

_MESH_OPS = NotProvided(
    "triangle-mesh adjacency and Delaunay edge flips are not provided",
    "build the adjacency on the host with NumPy from the index array",
)

#: ``warp.geometry.<name>`` -> why it is missing and what to use instead.
GEOMETRY_NAMES: dict[str, NotProvided] = {
    **dict.fromkeys(["delaunay_edge_flip", "tri_tri_adjacency"], _MESH_OPS),
}

#: Attributes of warp-suite classes that Warp has and warp-suite does not.
ATTRIBUTES: dict[str, NotProvided] = {}


#: Kernel builtins of NVIDIA Warp's reference that no package of this implementation provides
#: (code generation helpers, ``breakpoint``, ``dense_*``): a kernel calling one is told so rather
#: than told to install a package. ``NAMES`` gives some of them a specific message.
KERNEL_BUILTINS = frozenset({
    "address", "breakpoint", "dense_chol", "dense_chol_batched", "dense_gemm", "dense_gemm_batched",
    "dense_solve", "dense_solve_batched", "dense_subs", "index", "indexref", "iter_next", "load",
    "slice", "store", "transform_add_inplace", "transform_sub_inplace",
})


def message(qualified: str, entry: NotProvided) -> str:
    """The error text for ``qualified`` (``wp.tile_load``, ``warp.fem``, ``Tape.visualize``)."""
    return f"{qualified} is not provided by warp-suite ({entry.what}); instead: {entry.instead}"


def missing_name_error(name: str) -> AttributeError | None:
    """The ``AttributeError`` for ``wp.<name>`` if Warp has the name and warp-suite does not."""
    entry = NAMES.get(name)
    if entry is None:
        module = MODULES.get(f"warp.{name}")  # wp.sparse, wp.fem: modules not provided
        if module is None:
            return None
        return AttributeError(message(f"warp.{name}", module), name=name)
    return AttributeError(message(f"wp.{name}", entry), name=name)


def missing_geometry_error(name: str) -> AttributeError:
    """The ``AttributeError`` for ``warp.geometry.<name>``."""
    entry = GEOMETRY_NAMES.get(name)
    if entry is None:
        return AttributeError(f"module 'warp.geometry' has no attribute '{name}'", name=name)
    return AttributeError(message(f"warp.geometry.{name}", entry), name=name)


def missing_module_error(module: str) -> ModuleNotFoundError | None:
    """The ``ModuleNotFoundError`` for ``import warp.<x>`` (or below it) if it is not provided."""
    head = ".".join(module.split(".")[:2])
    entry = MODULES.get(head)
    if entry is None:
        return None
    return ModuleNotFoundError(message(head, entry), name=module)


def attribute_error(owner: str, attribute: str) -> NotImplementedError:
    """The error raised by ``Owner.attribute`` methods that Warp has and warp-suite does not."""
    return NotImplementedError(message(f"{owner}.{attribute}", ATTRIBUTES[f"{owner}.{attribute}"]))
