"""Compile errors (strict typing, undefined names, unsupported syntax, bad calls, missing return)
and debug-mode bounds checks. Errors are checked by type and message."""

import re

import numpy as np
import pytest

import warp as wp


def line_of(text):
    """Line number of the unique line of this file containing ``text``."""
    with open(__file__) as f:
        hits = [n for n, line in enumerate(f, 1) if text in line]
    assert len(hits) == 1, (text, hits)
    return hits[0]


def launch1(kernel, *inputs):
    wp.launch(kernel, dim=1, inputs=list(inputs))


# -- strict typing ---------------------------------------------------------------------------------

def test_float_plus_int_is_a_type_error_with_location():
    @wp.kernel
    def mixed_add(out: wp.array(dtype=float)):
        x = float(0.0) + int(4)  # MIXED-ADD-MARKER
        out[0] = x

    with pytest.raises(wp.WarpCodegenTypeError) as info:
        launch1(mixed_add, wp.zeros(1, dtype=float))
    err = info.value
    assert isinstance(err, TypeError)
    assert isinstance(err, wp.WarpCodegenError)
    msg = str(err)
    assert "mixed_add" in msg
    assert f"{__file__}:{line_of('# MIXED-ADD-' + 'MARKER')}" in msg
    assert "x = float(0.0) + int(4)" in msg


@pytest.mark.parametrize("body", [
    "int_plus_float",
    "f32_plus_f64",
    "i32_plus_i64",
    "u32_plus_i32",
    "float_literal_with_int",
    "assign_float_to_int_var",
    "store_float_in_int_array",
    "float_index",
    "bitwise_on_float",
])
def test_strict_typing_errors(body):
    @wp.kernel
    def int_plus_float(a: wp.array(dtype=int), f: wp.array(dtype=float)):
        i = wp.tid()
        a[0] = a[i] + f[i]

    @wp.kernel
    def f32_plus_f64(f: wp.array(dtype=float), d: wp.array(dtype=wp.float64)):
        i = wp.tid()
        f[0] = f[i] + d[i]

    @wp.kernel
    def i32_plus_i64(a: wp.array(dtype=int), b: wp.array(dtype=wp.int64)):
        i = wp.tid()
        x = a[i] + b[i]
        b[0] = x

    @wp.kernel
    def u32_plus_i32(a: wp.array(dtype=int), b: wp.array(dtype=wp.uint32)):
        i = wp.tid()
        b[0] = b[i] + a[i]

    @wp.kernel
    def float_literal_with_int(a: wp.array(dtype=int)):
        i = wp.tid()
        a[0] = a[i] * 0.5

    @wp.kernel
    def assign_float_to_int_var(a: wp.array(dtype=int), f: wp.array(dtype=float)):
        i = wp.tid()
        x = a[i]
        x = f[i]
        a[0] = x

    @wp.kernel
    def store_float_in_int_array(a: wp.array(dtype=int), f: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = f[i]

    @wp.kernel
    def float_index(a: wp.array(dtype=int), f: wp.array(dtype=float)):
        a[0] = a[f[0]]

    @wp.kernel
    def bitwise_on_float(a: wp.array(dtype=int), f: wp.array(dtype=float)):
        f[0] = f[0] & f[1]

    kernels = {
        k.name: k
        for k in (
            int_plus_float,
            f32_plus_f64,
            i32_plus_i64,
            u32_plus_i32,
            float_literal_with_int,
            assign_float_to_int_var,
            store_float_in_int_array,
            float_index,
            bitwise_on_float,
        )
    }
    kernel = kernels[body]
    args = []
    for t in kernel.arg_types:
        args.append(wp.zeros(2, dtype=t.dtype))
    with pytest.raises(wp.WarpCodegenTypeError, match=body):
        wp.launch(kernel, dim=1, inputs=args)


# -- names, attributes, unsupported syntax ------------------------------------------------------------

def test_undefined_name():
    @wp.kernel
    def undefined(out: wp.array(dtype=float)):
        out[0] = not_defined_anywhere + 1.0  # noqa: F821

    with pytest.raises(wp.WarpCodegenNameError, match="not_defined_anywhere") as info:
        launch1(undefined, wp.zeros(1, dtype=float))
    assert isinstance(info.value, NameError)
    assert "undefined" in str(info.value)


def test_undefined_attribute_of_wp_module():
    @wp.kernel
    def bad_attr(out: wp.array(dtype=float)):
        out[0] = wp.no_such_builtin_xyz(1.0)

    with pytest.raises((AttributeError, NameError, wp.WarpCodegenError), match="no_such_builtin_xyz"):
        launch1(bad_attr, wp.zeros(1, dtype=float))


def test_unknown_array_attribute():
    @wp.kernel
    def array_attr(out: wp.array(dtype=float)):
        out[0] = float(out.no_such_attribute)

    with pytest.raises(wp.WarpCodegenAttributeError, match="no_such_attribute"):
        launch1(array_attr, wp.zeros(1, dtype=float))


def test_unsupported_statements():
    @wp.kernel
    def uses_try(out: wp.array(dtype=float)):
        try:
            out[0] = 1.0
        except Exception:
            pass

    @wp.kernel
    def uses_with(out: wp.array(dtype=float)):
        with open("x"):
            out[0] = 1.0

    @wp.kernel
    def uses_lambda(out: wp.array(dtype=float)):
        f = lambda x: x  # noqa: E731
        out[0] = 1.0

    @wp.kernel
    def uses_import(out: wp.array(dtype=float)):
        import math  # noqa: F401

        out[0] = 1.0

    for kernel, word in ((uses_try, "try"), (uses_with, "with"), (uses_lambda, "lambda"),
                         (uses_import, "import")):
        with pytest.raises(wp.WarpCodegenError) as info:
            launch1(kernel, wp.zeros(1, dtype=float))
        msg = str(info.value)
        assert re.search(word, msg, re.IGNORECASE), msg
        assert kernel.name in msg, msg


def test_collection_literals_are_rejected_with_a_hint():
    def uses_list(out: wp.array(dtype=float)):
        x = [1.0, 2.0, 3.0]
        out[0] = x[0]

    def uses_dict(out: wp.array(dtype=float)):
        x = {"a": 1.0}
        out[0] = x["a"]

    def uses_set(out: wp.array(dtype=float)):
        x = {1.0}
        out[0] = 1.0

    cases = (
        (uses_list, "x = [1.0, 2.0, 3.0]", wp.WarpCodegenTypeError,
         "List constructs are not supported in kernels. Use vectors like `wp.vec3()` for small fixed-size "
         "collections, or `wp.zeros(shape=N, dtype=...)` for stack-allocated arrays."),
        (uses_dict, 'x = {"a": 1.0}', wp.WarpCodegenError, "Construct `ast.Dict` not supported in kernels."),
        (uses_set, "x = {1.0}", wp.WarpCodegenError, "Construct `ast.Set` not supported in kernels."),
    )
    for fn, code, cls, message in cases:
        kernel = wp.Kernel(fn, module="unique")
        with pytest.raises(cls) as info:
            launch1(kernel, wp.zeros(1, dtype=float))
        text = str(info.value)
        assert text.endswith(message), text
        assert f"test_codegen_errors.py:{line_of('    ' + code)}" in text, text


_GLOBAL_VALUES = wp.array([1.0, 2.0, 3.0], dtype=float)


@pytest.mark.needs_plugin("builtins")  # wp.lower_bound
def test_arrays_from_outside_the_kernel_are_rejected():
    """A module global or closure array read in a kernel would be frozen at compile time."""
    local_values = wp.array([4.0, 5.0], dtype=float)

    def reads_global(out: wp.array(dtype=float)):
        out[0] = _GLOBAL_VALUES[0]

    def searches_closure(out: wp.array(dtype=float)):
        out[0] = float(wp.lower_bound(local_values, 4.5))

    def static_shape_is_fine(out: wp.array(dtype=float)):
        out[0] = float(wp.static(_GLOBAL_VALUES.shape[0]))

    for fn, name in ((reads_global, "_GLOBAL_VALUES"), (searches_closure, "local_values")):
        with pytest.raises(TypeError) as info:
            launch1(wp.Kernel(fn, module="unique"), wp.zeros(1, dtype=float))
        assert isinstance(info.value, wp.WarpCodegenTypeError)
        text = str(info.value)
        assert f"in '{fn.__name__}' at " in text and "Invalid external reference type: <class " in text, text
        assert f"'{name}' is an array defined outside the kernel" in text, text
        assert text.endswith("pass it as a kernel argument"), text
    out = wp.zeros(1, dtype=float)
    launch1(wp.Kernel(static_shape_is_fine, module="unique"), out)
    assert out.numpy()[0] == 3.0


def test_kernel_cannot_return_a_value():
    @wp.kernel
    def returns_value(out: wp.array(dtype=float)):
        out[0] = 1.0
        return 1.0

    with pytest.raises(wp.WarpCodegenError, match="returns_value"):
        launch1(returns_value, wp.zeros(1, dtype=float))

    message = r"Warp kernels cannot return values\. Write results to output arguments"

    @wp.kernel
    def returns_none(out: wp.array(dtype=float)):
        out[0] = 1.0
        return None  # a value-returning statement all the same

    with pytest.raises(wp.WarpCodegenTypeError, match=message):
        launch1(returns_none, wp.zeros(1, dtype=float))

    @wp.kernel
    def annotated(out: wp.array(dtype=float)) -> float:  # refused when compiled, not when defined
        out[0] = 1.0

    with pytest.raises(wp.WarpCodegenTypeError, match=message):
        launch1(annotated, wp.zeros(1, dtype=float))

    @wp.kernel
    def bare_return(out: wp.array(dtype=float)) -> None:
        out[0] = 2.0
        return

    out = wp.zeros(1, dtype=float)
    launch1(bare_return, out)
    assert out.numpy()[0] == 2.0


# -- calls of user functions ---------------------------------------------------------------------------

@wp.func
def takes_float(x: float):
    return x * 2.0


@wp.func
def takes_two(x: float, y: int = 3):
    return x * float(y)


@wp.func
def takes_1d(a: wp.array(dtype=float)):
    return a[0]


def test_wrong_argument_type_to_func():
    @wp.kernel
    def call_int(out: wp.array(dtype=float)):
        i = wp.tid()
        out[0] = takes_float(i)

    with pytest.raises(wp.WarpCodegenTypeError, match="takes_float"):
        launch1(call_int, wp.zeros(1, dtype=float))


def test_wrong_array_argument_to_func():
    @wp.kernel
    def call_2d(m: wp.array2d(dtype=float), out: wp.array(dtype=float)):
        out[0] = takes_1d(m)

    @wp.kernel
    def call_int_array(m: wp.array(dtype=int), out: wp.array(dtype=float)):
        out[0] = takes_1d(m)

    with pytest.raises(wp.WarpCodegenTypeError, match="takes_1d"):
        wp.launch(call_2d, dim=1, inputs=[wp.zeros((2, 2), dtype=float), wp.zeros(1, dtype=float)])
    with pytest.raises(wp.WarpCodegenTypeError, match="takes_1d"):
        wp.launch(call_int_array, dim=1, inputs=[wp.zeros(2, dtype=int), wp.zeros(1, dtype=float)])


def test_wrong_argument_count_and_keywords_to_func():
    @wp.kernel
    def too_many(out: wp.array(dtype=float)):
        out[0] = takes_two(1.0, 2, 3)

    @wp.kernel
    def too_few(out: wp.array(dtype=float)):
        out[0] = takes_two()

    @wp.kernel
    def bad_keyword(out: wp.array(dtype=float)):
        out[0] = takes_two(1.0, z=2)

    @wp.kernel
    def duplicate_keyword(out: wp.array(dtype=float)):
        out[0] = takes_two(1.0, x=2.0)

    for kernel in (too_many, too_few, bad_keyword, duplicate_keyword):
        with pytest.raises(TypeError, match="takes_two"):
            launch1(kernel, wp.zeros(1, dtype=float))


@wp.struct
class Pair:
    a: float
    b: float


def test_mapping_unpacking_in_calls_is_a_clear_error():
    @wp.kernel
    def func_mapping(out: wp.array(dtype=float)):
        out[0] = takes_two(**{"x": 1.0, "y": 2})  # FUNC-MAPPING-MARKER

    @wp.kernel
    def struct_mapping(out: wp.array(dtype=float)):
        p = Pair(**{"a": 1.0})  # STRUCT-MAPPING-MARKER
        out[0] = p.a

    with pytest.raises(wp.WarpCodegenTypeError, match=r"cannot call 'takes_two' with \*\*mapping") as info:
        launch1(func_mapping, wp.zeros(1, dtype=float))
    assert f"{__file__}:{line_of('# FUNC-MAPPING-' + 'MARKER')}" in str(info.value)
    with pytest.raises(wp.WarpCodegenTypeError, match=r"struct Pair\(\) takes field=value arguments") as info:
        launch1(struct_mapping, wp.zeros(1, dtype=float))
    assert f"{__file__}:{line_of('# STRUCT-MAPPING-' + 'MARKER')}" in str(info.value)


def test_missing_return():
    @wp.func
    def annotated_no_return(x: float) -> float:
        y = x * 2.0  # noqa: F841

    @wp.func
    def returns_on_one_path(x: float):
        if x > 0.0:
            return x

    @wp.kernel
    def call_annotated(out: wp.array(dtype=float)):
        out[0] = annotated_no_return(1.0)

    @wp.kernel
    def call_partial(out: wp.array(dtype=float)):
        out[0] = returns_on_one_path(out[1])

    with pytest.raises(wp.WarpCodegenError, match="annotated_no_return"):
        launch1(call_annotated, wp.zeros(2, dtype=float))
    with pytest.raises(wp.WarpCodegenError, match="returns_on_one_path"):
        launch1(call_partial, wp.zeros(2, dtype=float))


def test_inconsistent_return_types():
    @wp.func
    def two_types(x: float):
        if x > 0.0:
            return x
        return 1

    @wp.kernel
    def call_two_types(out: wp.array(dtype=float)):
        out[0] = two_types(out[1])

    with pytest.raises(wp.WarpCodegenTypeError, match="two_types"):
        launch1(call_two_types, wp.zeros(2, dtype=float))


def test_error_is_raised_again_on_relaunch():
    @wp.kernel
    def still_broken(out: wp.array(dtype=float)):
        out[0] = float(1.0) + int(2)

    for _ in range(2):
        with pytest.raises(wp.WarpCodegenTypeError, match="still_broken"):
            launch1(still_broken, wp.zeros(1, dtype=float))


# -- debug mode bounds checks ----------------------------------------------------------------------

@wp.kernel
def read_at(a: wp.array(dtype=float), idx: int, out: wp.array(dtype=float)):
    out[0] = a[idx]


@wp.kernel
def write_2d(grid: wp.array2d(dtype=int), i: int, j: int):
    grid[i, j] = 1


@wp.func
def read_row(row: wp.array(dtype=float), k: int):
    return row[k]


@wp.kernel
def read_slice(m: wp.array2d(dtype=float), i: int, k: int, out: wp.array(dtype=float)):
    out[0] = read_row(m[i], k)


@wp.kernel
def parallel_oob(a: wp.array(dtype=int)):
    i = wp.tid()
    a[i + 1] = i


def test_debug_mode_out_of_bounds_read(debug_mode):
    a = wp.array(np.arange(5, dtype=np.float32), dtype=float)
    out = wp.zeros(1, dtype=float)
    wp.launch(read_at, dim=1, inputs=[a, 4, out])  # in range: fine
    assert out.numpy()[0] == 4.0
    with pytest.raises(IndexError) as info:
        wp.launch(read_at, dim=1, inputs=[a, 5, out])
    msg = str(info.value)
    assert "read_at" in msg
    assert "'a'" in msg
    assert re.search(r"\b5\b", msg)
    assert re.search(r"[(\[]5,?[)\]]", msg), msg  # the shape
    wp.launch(read_at, dim=1, inputs=[a, -5, out])  # negative indices count from the end
    assert out.numpy()[0] == 0.0
    with pytest.raises(IndexError, match=r"read_at[\s\S]*\(-6\)"):
        wp.launch(read_at, dim=1, inputs=[a, -6, out])


def test_debug_mode_out_of_bounds_write_2d(debug_mode):
    grid = wp.zeros((3, 4), dtype=int)
    with pytest.raises(IndexError) as info:
        wp.launch(write_2d, dim=1, inputs=[grid, 1, 7])
    msg = str(info.value)
    assert "write_2d" in msg and "'grid'" in msg
    assert re.search(r"[(\[]1, 7[)\]]", msg), msg
    assert re.search(r"[(\[]3, 4[)\]]", msg), msg
    with pytest.raises(IndexError, match="write_2d"):
        wp.launch(write_2d, dim=1, inputs=[grid, 3, 0])
    assert grid.numpy().sum() == 0


def test_debug_mode_out_of_bounds_in_func_on_row_slice(debug_mode):
    m = wp.zeros((2, 3), dtype=float)
    out = wp.zeros(1, dtype=float)
    wp.launch(read_slice, dim=1, inputs=[m, 1, 2, out])
    with pytest.raises(IndexError, match="read_slice"):
        wp.launch(read_slice, dim=1, inputs=[m, 1, 3, out])
    with pytest.raises(IndexError, match="read_slice"):
        wp.launch(read_slice, dim=1, inputs=[m, 2, 0, out])


def test_debug_mode_out_of_bounds_parallel(debug_mode, force_parallel):
    a = wp.zeros(100_000, dtype=int)
    with pytest.raises(IndexError, match="parallel_oob"):
        wp.launch(parallel_oob, dim=100_000, inputs=[a])


def test_release_mode_restored_after_debug():
    assert wp.config.mode == "release"
    a = wp.array(np.arange(5, dtype=np.float32), dtype=float)
    out = wp.zeros(1, dtype=float)
    wp.launch(read_at, dim=1, inputs=[a, 3, out])
    assert out.numpy()[0] == 3.0


def test_unsupported_parameter_annotation_is_rejected_at_definition():
    with pytest.raises(
        wp.WarpCodegenTypeError, match=r"parameter 'x' is annotated <class 'list'>, which is not a warp type"
    ) as info:

        @wp.kernel
        def k(x: list):
            pass

    assert "in 'test_unsupported_parameter_annotation_is_rejected_at_definition.<locals>.k' at" in str(
        info.value
    )


def test_unresolvable_string_annotation_names_the_parameter():
    with pytest.raises(
        wp.WarpCodegenError, match=r"cannot resolve the annotation of parameter 'x' \('no_such_type'\)"
    ):

        @wp.func
        def f(x: "no_such_type"):  # noqa: F821
            return x


def test_located_errors_put_the_location_first_and_end_with_the_message():
    @wp.kernel(module="unique")
    def bad(a: wp.array(dtype=float)):
        a[0] = undefined_name_here  # noqa: F821

    with pytest.raises(wp.WarpCodegenNameError) as info:
        wp.launch(bad, dim=1, inputs=[wp.zeros(1, dtype=float)])
    text = str(info.value)
    first, source, *rest = text.splitlines()
    assert first.startswith("in 'bad' at ")
    assert first.endswith(f"{__file__}:{bad.func.__code__.co_firstlineno + 2}:")
    assert source.strip() == "a[0] = undefined_name_here  # noqa: F821"
    assert text.endswith(info.value.raw_message) and "undefined_name_here" in info.value.raw_message


def test_store_with_wrong_index_count_into_array_view():
    @wp.kernel
    def assign_view(out: wp.array2d(dtype=wp.mat44)):
        out[0][2, 2] = 6.0

    m = wp.zeros((1, 1), dtype=wp.mat44, device="cpu")
    expected = r"Incorrect number of indices specified for array indexing: a store into a 1-d array needs 1"
    with pytest.raises(wp.WarpCodegenError, match=expected):
        wp.launch(assign_view, dim=[1, 1], inputs=[m], device="cpu")
def test_mixed_operand_types_are_named():
    @wp.kernel
    def mixed(out: wp.array(dtype=float)):
        out[0] = float(1 * 1.0)

    message = r"Input types must be the same, got \['int32', 'float32'\]"
    with pytest.raises(wp.WarpCodegenTypeError, match=message):
        launch1(mixed, wp.zeros(1, dtype=float))


@wp.func
def _annotated_int16(x: wp.int32) -> wp.int16:
    return wp.int8(x)


@wp.func
def _annotated_pair(x: int) -> tuple[int, int]:
    return (x, 1.23)


@wp.func
def _annotated_triple(x: int) -> tuple[int, int, int]:
    return (x + x, x * x)


def test_returns_not_matching_the_annotation_are_named():
    @wp.kernel
    def single(out: wp.array(dtype=int)):
        out[0] = int(_annotated_int16(123))

    @wp.kernel
    def pair(out: wp.array(dtype=int)):
        a, b = _annotated_pair(1)
        out[0] = a

    @wp.kernel
    def triple(out: wp.array(dtype=int)):
        a, b, c = _annotated_triple(1)
        out[0] = a

    out = wp.zeros(1, dtype=int)
    head = "The function `_annotated_{}` has its return type annotated as "
    cases = [
        (single, head.format("int16") + "`int16` but the code returns a value of type `int8`."),
        (pair, head.format("pair") + r"`tuple\[int, int\]` but the code returns a tuple with types "
         r"`\(int32, float32\)`"),
        (triple, head.format("triple") + "a tuple of 3 elements but the code returns 2 values."),
    ]
    for kernel, message in cases:
        with pytest.raises(wp.WarpCodegenTypeError, match=message):
            launch1(kernel, out)


_CAPTURED_VEC = wp.vec3(1.0, 2.0, 3.0)


def test_unknown_names_and_attributes_in_kernels():
    @wp.kernel
    def through_unknown_namespace():
        wp.foo.bar.tid()

    @wp.kernel
    def unknown_function_of_a_module():
        wp.types.tid()

    @wp.kernel
    def unknown_warp_function():
        wp.nonexistent_func()

    @wp.kernel
    def unknown_attribute_of_a_value(out: wp.array(dtype=float)):
        out[0] = _CAPTURED_VEC.foo

    @wp.kernel
    def undefined_symbol(out: wp.array(dtype=float)):
        out[0] = missing_symbol  # noqa: F821

    out = wp.zeros(1, dtype=float)
    cases = [
        (through_unknown_namespace, AttributeError, "`foo` is not an attribute of 'warp'"),
        (unknown_function_of_a_module, AttributeError, "Could not find function wp.types.tid"),
        (unknown_warp_function, AttributeError, "Could not find function wp.nonexistent_func"),
        (unknown_attribute_of_a_value, AttributeError, "`foo` is not an attribute of 'vec3f' values"),
        (undefined_symbol, KeyError, "Referencing undefined symbol: missing_symbol"),
    ]
    for kernel, error, message in cases:
        with pytest.raises(error, match=message) as info:
            wp.launch(kernel, dim=1, inputs=[out] if kernel.arg_names else [])
        assert isinstance(info.value, wp.WarpCodegenError)
    with pytest.raises(wp.WarpCodegenNameError, match=r"name 'missing_symbol' is not defined\)$"):
        wp.launch(undefined_symbol, dim=1, inputs=[out])


def test_return_annotation_resolved_at_definition_is_checked_despite_the_cache():
    # two kernels with the same source whose `-> Ret` means different things: the second one
    # must not reuse the first one's compiled code (the annotation is part of its cache key)
    Ret = None

    @wp.kernel(module="unique")
    def aliased(x: float) -> Ret:
        return

    wp.launch(aliased, dim=1, inputs=[3.0])
    Ret = float  # noqa: F841 (read by the annotation below)

    @wp.kernel(module="unique")
    def aliased(x: float) -> Ret:  # noqa: F811
        return

    with pytest.raises(wp.WarpCodegenTypeError, match="Warp kernels cannot return values"):
        wp.launch(aliased, dim=1, inputs=[3.0])
