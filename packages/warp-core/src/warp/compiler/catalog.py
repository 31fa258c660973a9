"""Which distribution provides each builtin, Python-scope name and submodule of ``warp``.

Used only for error messages: a kernel calling a builtin that no installed plugin registered,
code reaching ``wp.Tape`` without warp-autodiff, or ``import warp.jax_experimental`` without
warp-interop, is told which package to install. Kernel builtin names follow the reference list
of kernel builtins; Python-scope names follow NVIDIA Warp's runtime reference.
"""

from __future__ import annotations

_BUILTINS_PACKAGE = frozenset({
    "abs", "acos", "add_inplace", "address", "argmax", "argmin", "array", "array_store", "asin",
    "assign_copy", "assign_inplace", "atan", "atan2", "atomic_and", "atomic_or", "atomic_xor",
    "bfloat16", "bit_and_inplace", "bit_count", "bit_or_inplace", "bit_xor_inplace", "block_dim",
    "breakpoint", "cast", "cbrt", "ceil", "clamp", "copy", "copysign", "cos", "cosh", "cross",
    "curlnoise", "cw_div", "cw_mul", "ddot", "degrees", "dense_chol", "dense_chol_batched",
    "dense_gemm", "dense_gemm_batched", "dense_solve", "dense_solve_batched", "dense_subs",
    "determinant", "diag", "div_approx", "dot", "eig3", "erf", "erfc", "erfcinv", "erfinv", "exp",
    "expect_eq", "expect_near", "expect_neq", "extract", "floor", "frac", "get_diag", "identity",
    "index", "indexref", "inverse", "inverse_approx", "isfinite", "isinf", "isnan", "iter_next",
    "length", "length_sq", "lerp", "load", "log", "log10", "log2", "lower_bound", "matrix",
    "matrix_from_cols", "matrix_from_rows", "max", "min", "noise", "nonzero", "norm_huber",
    "norm_l1", "norm_l2", "norm_pseudo_huber", "normalize", "outer", "pnoise", "poisson", "pow",
    "printf", "qr3", "quat_from_axis_angle", "quat_from_euler", "quat_from_matrix",
    "quat_identity", "quat_inverse", "quat_rotate", "quat_rotate_inv", "quat_rpy", "quat_slerp",
    "quat_to_axis_angle", "quat_to_euler", "quat_to_matrix", "quat_to_rpy", "quat_twist",
    "quat_twist_angle", "quat_twist_angle_signed", "quaternion", "radians", "rand_init", "randf",
    "randi", "randn", "randu", "range", "reversed", "rint", "round", "sample_cdf",
    "sample_triangle", "sample_unit_cube", "sample_unit_disk", "sample_unit_hemisphere",
    "sample_unit_hemisphere_surface", "sample_unit_ring", "sample_unit_sphere",
    "sample_unit_sphere_surface", "sample_unit_square", "select", "sign", "sin", "sinh", "skew",
    "slice", "smooth_normalize", "smoothstep", "spatial_adjoint", "spatial_bottom",
    "spatial_cross", "spatial_cross_dual", "spatial_dot", "spatial_top", "spatial_vector", "sqrt",
    "step", "store", "sub_inplace", "svd2", "svd3", "tan", "tanh", "trace",
    "transform_add_inplace", "transform_compose", "transform_decompose", "transform_from_matrix",
    "transform_get_rotation", "transform_get_translation", "transform_identity",
    "transform_inverse", "transform_multiply", "transform_point", "transform_set_rotation",
    "transform_set_rotation_copy", "transform_set_translation", "transform_set_translation_copy",
    "transform_sub_inplace", "transform_to_matrix", "transform_twist", "transform_vector",
    "transform_wrench", "transformation", "transpose", "trunc", "tuple", "vector",
    "velocity_at_point", "view", "where", "zeros",
})

#: Kernel builtins of NVIDIA Warp's reference that no package of this implementation provides
#: (docs/coming-from-warp.md lists them): code generation helpers, ``breakpoint``, ``dense_*``.
_NOT_PROVIDED = frozenset({
    "address", "breakpoint", "dense_chol", "dense_chol_batched", "dense_gemm", "dense_gemm_batched",
    "dense_solve", "dense_solve_batched", "dense_subs", "index", "indexref", "iter_next", "load",
    "slice", "store", "transform_add_inplace", "transform_sub_inplace",
})

_GEOMETRY_PACKAGE = frozenset({
    "closest_point_edge_edge", "hash_grid_point_id", "hash_grid_query", "hash_grid_query_next",
    "intersect_tri_tri", "mesh_eval_face_normal", "mesh_eval_position", "mesh_eval_velocity",
    "mesh_get", "mesh_get_bvh", "mesh_get_group_root", "mesh_get_index", "mesh_get_point",
    "mesh_get_velocity", "mesh_query_aabb", "mesh_query_aabb_next",
    "mesh_query_furthest_point_no_sign", "mesh_query_next", "mesh_query_point",
    "mesh_query_point_no_sign", "mesh_query_point_sign_normal", "mesh_query_point_sign_parity",
    "mesh_query_point_sign_winding_number", "mesh_query_ray", "mesh_query_ray_anyhit",
    "mesh_query_ray_count_intersections", "mesh_query_sphere", "volume_index_to_world",
    "volume_index_to_world_dir", "volume_lookup", "volume_lookup_f", "volume_lookup_i",
    "volume_lookup_index", "volume_lookup_v", "volume_sample", "volume_sample_f",
    "volume_sample_grad", "volume_sample_grad_f", "volume_sample_grad_index", "volume_sample_i",
    "volume_sample_index", "volume_sample_v", "volume_store", "volume_store_f", "volume_store_i",
    "volume_store_v", "volume_voxel_count", "volume_world_to_index", "volume_world_to_index_dir",
})


#: Python-scope names (``wp.<name>``) that optional packages export, by distribution.
_PYTHON_NAMES: dict[str, frozenset[str]] = {
    "warp-autodiff": frozenset({"Tape", "autograd", "AdjointWarning"}),
    "warp-geometry": frozenset({
        "Mesh", "Bvh", "HashGrid", "Volume", "MeshQueryPoint", "MeshQueryRay", "MeshQueryAABB", "MeshQuery",
        "BvhQuery", "HashGridQuery", "mesh_query_point_t", "mesh_query_ray_t", "mesh_query_aabb_t",
        "bvh_query_t", "hash_grid_query_t",
    }),
    "warp-interop": frozenset({
        "from_torch", "to_torch", "device_from_torch", "device_to_torch", "dtype_from_torch",
        "dtype_to_torch", "stream_from_torch", "stream_to_torch", "from_jax", "to_jax",
        "device_from_jax", "device_to_jax", "dtype_from_jax", "dtype_to_jax", "from_paddle",
        "to_paddle", "device_from_paddle", "device_to_paddle", "dtype_from_paddle", "dtype_to_paddle",
        "stream_from_paddle", "jax_experimental",
    }),
}

#: Submodules of ``warp`` that optional packages provide, by distribution.
_SUBMODULES: dict[str, str] = {
    "warp.autograd": "warp-autodiff",
    "warp.jax_experimental": "warp-interop",
    "warp.jax_experimental.ffi": "warp-interop",
    "warp.torch": "warp-interop",
    "warp.paddle": "warp-interop",
    "warp.dlpack": "warp-interop",
}


def python_name_distribution(name: str) -> str | None:
    """The distribution whose plugin exports ``wp.<name>``, or None if no known package does."""
    for dist, names in _PYTHON_NAMES.items():
        if name in names:
            return dist
    return None


def submodule_distribution(module: str) -> str | None:
    """The distribution that provides the submodule ``module`` (e.g. ``"warp.autograd"``)."""
    return _SUBMODULES.get(module)


def not_provided(name: str) -> bool:
    """Whether ``name`` is a kernel builtin of NVIDIA Warp that no package here provides."""
    return name in _NOT_PROVIDED


def providing_distribution(name: str) -> str | None:
    """The distribution that provides builtin ``name``, or None if no known package does."""
    if name in _BUILTINS_PACKAGE:
        return "warp-builtins"
    if name in _GEOMETRY_PACKAGE or name.startswith(("mesh_", "hash_grid_", "volume_", "bvh_")):
        return "warp-geometry"
    return None
