"""``wp.static(...)`` expressions, loops over static ranges (unrolled, with ``reversed()`` and
negative steps), dynamic ranges with negative or runtime steps, and kernel closures (factories
whose kernels capture local values, each with its own cache entry)."""

import numpy as np
import pytest

import warp as wp
from warp.compiler.hashing import kernel_hash
from warp.compiler.options import resolve_options
from warp.targets import target_for_kind


def cache_key(k):
    """The kernel's cache key for the CPU (as the loader computes it, minus the device fingerprint)."""
    return kernel_hash(k, resolve_options(k, target=target_for_kind("cpu")), "test-device")


@wp.func
def do_add(a: float, b: float):
    return a + b


@wp.func
def do_sub(a: float, b: float):
    return a - b


@wp.func
def do_mul(a: float, b: float):
    return a * b


op_handlers = [do_add, do_sub, do_mul]
coefficients = np.array([0.5, -1.0, 2.0, 4.0])
SCALE = 3


def test_static_function_table_in_an_unrolled_loop():
    @wp.kernel
    def apply_all(x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array2d(dtype=float)):
        i = wp.tid()
        for j in range(wp.static(len(op_handlers))):
            out[i, j] = wp.static(op_handlers[j])(x[i], y[i])

    x = np.array([1.0, 2.0, -3.0], dtype=np.float32)
    y = np.array([3.0, 5.0, 0.5], dtype=np.float32)
    out = wp.zeros((3, 3), dtype=float)
    wp.launch(apply_all, dim=3, inputs=[wp.array(x), wp.array(y), out])
    np.testing.assert_array_equal(out.numpy(), np.stack([x + y, x - y, x * y], axis=1))


def test_static_values_types_and_strings():
    @wp.kernel
    def k(out: wp.array(dtype=float), ints: wp.array(dtype=int)):
        out[0] = wp.static(float(coefficients.sum()))
        for j in range(wp.static(len(coefficients))):
            out[1 + j] = wp.static(float(coefficients[j] * 2.0))
        ints[0] = wp.static(SCALE * 7)
        v = wp.static(wp.vec3(1.0, 2.0, 3.0))
        out[5] = v[2]
        t = wp.static(wp.float64)
        out[6] = float(t(2.5) * t(2.0))
        if wp.static(SCALE > 2):
            ints[1] = 1
        else:
            ints[1] = 2
        a, b = wp.static((4, 5))
        ints[2] = a * 10 + b

    out = wp.zeros(7, dtype=float)
    ints = wp.zeros(3, dtype=int)
    wp.launch(k, dim=1, inputs=[out, ints])
    np.testing.assert_allclose(out.numpy(), [5.5, 1.0, -2.0, 4.0, 8.0, 3.0, 5.0])
    assert ints.numpy().tolist() == [21, 1, 45]


def test_static_expression_errors():
    @wp.kernel
    def uses_runtime(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = wp.static(i * 2.0)

    with pytest.raises(
        wp.WarpCodegenError,
        match=r"Error evaluating static expression: name 'i' is not defined\. Make sure all variables used "
        r"in the static expression are constant\. \('i \* 2.0' is evaluated in Python",
    ):
        wp.launch(uses_runtime, dim=1, inputs=[wp.zeros(1, dtype=float)])

    @wp.kernel
    def raises(a: wp.array(dtype=float)):
        a[0] = wp.static(op_handlers[7])

    pattern = "Error evaluating static expression: list index out of range .*raised IndexError"
    with pytest.raises(wp.WarpCodegenError, match=pattern) as info:
        wp.launch(raises, dim=1, inputs=[wp.zeros(1, dtype=float)])
    assert "test_static.py" in str(info.value) and "wp.static(op_handlers[7])" in str(info.value)

    @wp.kernel
    def none_value(a: wp.array(dtype=float)):
        a[0] = wp.static(None)

    with pytest.raises(wp.WarpCodegenValueError, match="unsupported value: None is returned"):
        wp.launch(none_value, dim=1, inputs=[wp.zeros(1, dtype=float)])

    @wp.kernel
    def dynamic_static_loop(a: wp.array(dtype=float), n: int):
        for j in range(n):
            a[j] = wp.static(op_handlers[j])(1.0, 2.0)

    with pytest.raises(wp.WarpCodegenValueError, match="loop variable 'j' is used in wp.static"):
        wp.launch(dynamic_static_loop, dim=1, inputs=[wp.zeros(3, dtype=float), 3])


def test_static_loops_unroll_beyond_max_unroll_when_static_needs_it():
    table = list(range(40))

    @wp.kernel
    def k(out: wp.array(dtype=int)):
        for j in range(wp.static(len(table))):
            out[j] = wp.static(table[j] * table[j])

    out = wp.zeros(40, dtype=int)
    wp.launch(k, dim=1, inputs=[out])
    assert out.numpy().tolist() == [j * j for j in range(40)]


@pytest.mark.parametrize(
    "start,stop,step",
    [(0, 10, 1), (10, 0, -1), (10, 0, -3), (-5, 7, 4), (3, 3, 1), (9, -9, -5), (0, 10, -2), (5, 1, 3)],
)
def test_static_and_dynamic_ranges_with_any_step(start, stop, step):
    @wp.kernel
    def k(out: wp.array(dtype=int), a: int, b: int, c: int):
        # constant bounds (unrolled when short), reversed(), and runtime bounds and step
        s = int(0)
        for i in range(wp.static(start), wp.static(stop), wp.static(step)):
            s = s * 3 + i
        out[0] = s
        r = int(0)
        for i in reversed(range(wp.static(start), wp.static(stop), wp.static(step))):
            r = r * 3 + i
        out[1] = r
        d = int(0)
        for i in range(a, b, c):
            d = d * 3 + i
        out[2] = d
        n = int(0)
        for _i in range(a, b, c):
            n += 1
        out[3] = n
        e = int(0)
        for i in reversed(range(a, b, c)):  # runtime step of either sign
            e = e * 3 + i
        out[4] = e

    def fold(seq):
        acc = 0
        for i in seq:
            acc = (acc * 3 + i + 2**31) % 2**32 - 2**31  # int32 wrap-around
        return acc

    out = wp.zeros(5, dtype=int)
    wp.launch(k, dim=1, inputs=[out, start, stop, step])
    r = range(start, stop, step)
    assert out.numpy().tolist() == [fold(r), fold(reversed(r)), fold(r), len(r), fold(reversed(r))]


def test_dynamic_reversed_range_with_runtime_bounds():
    @wp.kernel
    def k(out: wp.array(dtype=int), n: int):
        s = int(0)
        for i in reversed(range(1, n, 3)):
            s = s * 10 + i
        out[0] = s
        t = int(0)
        for i in reversed(range(n, -2, -2)):
            t = t * 10 + i
        out[1] = t

    for n in (0, 1, 2, 7, 9):
        out = wp.zeros(2, dtype=int)
        wp.launch(k, dim=1, inputs=[out, n])
        s = 0
        for i in reversed(range(1, n, 3)):
            s = s * 10 + i
        t = 0
        for i in reversed(range(n, -2, -2)):
            t = t * 10 + i
        assert out.numpy().tolist() == [s, t], n


def make_offset_kernel(offset):
    @wp.kernel
    def add_offset(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = a[i] + offset

    return add_offset


def make_op_kernel(ops, j):
    @wp.kernel
    def apply(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = wp.static(ops[j])(a[i], 2.0)

    return apply


def make_typed_kernel(dtype, vec):
    @wp.func
    def bump(x: dtype):
        return x + dtype(1)

    @wp.kernel
    def k(a: wp.array(dtype=dtype), v: wp.array(dtype=type(vec))):
        i = wp.tid()
        a[i] = bump(a[i])
        v[i] = vec

    return k


def test_kernel_closures_capture_values_with_distinct_cache_keys():
    k17, k42, k17b = make_offset_kernel(17.0), make_offset_kernel(42.0), make_offset_kernel(17.0)
    for kern, off in ((k17, 17.0), (k42, 42.0), (k17b, 17.0)):
        a = wp.array([1.0, 2.0], dtype=float)
        wp.launch(kern, dim=2, inputs=[a])
        np.testing.assert_array_equal(a.numpy(), [1.0 + off, 2.0 + off])
    assert cache_key(k17) != cache_key(k42)
    assert cache_key(k17) == cache_key(k17b)

    # a captured list of functions indexed by wp.static: the selected function is in the key
    kernels = [make_op_kernel(op_handlers, j) for j in range(3)]
    hashes = {cache_key(kern) for kern in kernels}
    assert len(hashes) == 3
    assert cache_key(make_op_kernel(op_handlers, 1)) == cache_key(kernels[1])
    for kern, expect in zip(kernels, ([3.0, 5.0], [-1.0, 1.0], [2.0, 6.0])):
        a = wp.array([1.0, 3.0], dtype=float)
        wp.launch(kern, dim=2, inputs=[a])
        np.testing.assert_array_equal(a.numpy(), expect)

    # captured types and composite values, and a function closure per factory call
    kf = make_typed_kernel(wp.float64, wp.vec2(1.0, 2.0))
    ki = make_typed_kernel(wp.int16, wp.vec3i(1, 2, 3))
    a = wp.array([1.5, 2.5], dtype=wp.float64)
    v = wp.zeros(2, dtype=wp.vec2)
    wp.launch(kf, dim=2, inputs=[a, v])
    np.testing.assert_array_equal(a.numpy(), [2.5, 3.5])
    np.testing.assert_array_equal(v.numpy(), [[1.0, 2.0], [1.0, 2.0]])
    b = wp.array([7, -1], dtype=wp.int16)
    w = wp.zeros(2, dtype=wp.vec3i)
    wp.launch(ki, dim=2, inputs=[b, w])
    np.testing.assert_array_equal(b.numpy(), [8, 0])
    np.testing.assert_array_equal(w.numpy(), [[1, 2, 3], [1, 2, 3]])
    assert cache_key(make_typed_kernel(wp.float64, wp.vec2(1.0, 2.0))) == cache_key(kf)
    assert cache_key(make_typed_kernel(wp.float64, wp.vec2(1.0, 3.0))) != cache_key(kf)


def test_static_in_python_scope_returns_its_argument():
    assert wp.static(3) == 3
    assert wp.static(do_add) is do_add


def test_loops_over_static_sequences_are_unrolled():
    weights = [0.5, 2.0, -1.0]

    @wp.kernel
    def k(a: wp.array(dtype=int), f: wp.array(dtype=float)):
        for i in wp.static(range(3)):
            a[i] = wp.static(i * 10)
        for j in wp.static([5, 7]):
            a[3] += j
        s = float(0.0)
        for w in wp.static(weights):
            s = s * 10.0 + w
        f[0] = s

    a = wp.zeros(4, dtype=int)
    f = wp.zeros(1, dtype=float)
    wp.launch(k, dim=1, inputs=[a, f])
    assert a.numpy().tolist() == [0, 10, 20, 12]
    assert f.numpy()[0] == np.float32((0.5 * 10.0 + 2.0) * 10.0 - 1.0)


def make_apply_kernel(f):
    @wp.kernel(module="unique")
    def apply(a: wp.array(dtype=float)):
        tid = wp.tid()
        a[tid] = f(a[tid])  # a captured @wp.func is callable without wp.static

    return apply


def make_unary(fn):
    @wp.func
    def unary(x: float):
        return fn(x, 2.0)

    return unary


def test_closures_capture_functions():
    # same name and source each time, different captured function: both must compile separately
    for fn, expect in ((do_add, [3.0, 4.0]), (do_mul, [2.0, 4.0])):
        a = wp.array([1.0, 2.0], dtype=float)
        wp.launch(make_apply_kernel(make_unary(fn)), dim=2, inputs=[a])
        np.testing.assert_array_equal(a.numpy(), expect)


@wp.struct
class _StaticInner:
    m: wp.mat22
    v: wp.vec3
    i: int
    flag: bool


@wp.struct
class _StaticOuter:
    inner: _StaticInner
    x: wp.float64
    data: wp.array(dtype=float)


@wp.func
def _make_inner(a: float, i: int) -> _StaticInner:
    s = _StaticInner()
    s.m = wp.mat22(a, 2.0 * a, 3.0 * a, 4.0 * a)
    s.v = wp.vec3(a, -a, 0.5)
    s.i = i
    s.flag = True
    return s


def _make_outer(a: float) -> _StaticOuter:
    o = _StaticOuter()
    o.inner = _make_inner(a, 7)
    o.x = a * 10.0
    return o


@wp.kernel
def _static_struct_values(out: wp.array(dtype=_StaticInner), xs: wp.array(dtype=wp.float64)):
    out[0] = wp.static(_make_inner(1.5, 3))
    outer = wp.static(_make_outer(2.0))
    out[1] = outer.inner
    xs[0] = outer.x


def test_static_struct_values_become_constants():
    out = wp.zeros(2, dtype=_StaticInner)
    xs = wp.zeros(1, dtype=wp.float64)
    wp.launch(_static_struct_values, dim=1, inputs=[out, xs])
    got = out.numpy()
    for row, (a, i) in zip(got, [(1.5, 3), (2.0, 7)]):
        np.testing.assert_array_equal(row["m"], a * np.array([[1.0, 2.0], [3.0, 4.0]]))
        np.testing.assert_array_equal(row["v"], [a, -a, 0.5])
        assert row["i"] == i and bool(row["flag"])
    assert xs.numpy()[0] == 20.0


class _PlainPythonObject:
    pass


def _outer_holding_array() -> _StaticOuter:
    o = _make_outer(1.0)
    o.data = wp.zeros(2, dtype=float)
    return o


def test_static_unsupported_results_say_why():
    @wp.kernel(module="unique")
    def divides(a: wp.array(dtype=float)):
        a[0] = wp.static(1.0 / 0.0)

    @wp.kernel(module="unique")
    def array_result(a: wp.array(dtype=float)):
        wp.static(wp.zeros(3))

    @wp.kernel(module="unique")
    def struct_with_array(a: wp.array(dtype=float)):
        wp.static(_outer_holding_array())

    @wp.kernel(module="unique")
    def plain_object(a: wp.array(dtype=float)):
        wp.static(_PlainPythonObject())

    cases = [
        (divides, r"Error evaluating static expression: (float )?division by zero"),
        (array_result, r"unsupported value: a Warp array cannot be created inside Warp kernels"),
        (struct_with_array, r"cannot be created inside Warp kernels at _StaticOuter\.data$"),
        (plain_object, r"unsupported value: value of type .*_PlainPythonObject"),
    ]
    for kernel, pattern in cases:
        with pytest.raises(wp.WarpCodegenError, match=pattern):
            wp.launch(kernel, dim=1, inputs=[wp.zeros(1, dtype=float)])


@wp.kernel
def _static_len_of_runtime_values(v1: wp.vec2, out: wp.array(dtype=float), n: wp.array(dtype=int)):
    v2 = wp.vec3()
    m = wp.identity(n=wp.static(len(v1) + len(v2) + 1), dtype=float)
    out[0] = wp.ddot(m, m)
    t = wp.transform_identity(float)
    q = wp.quat_identity(float)
    n[0] = wp.static(len(t) * 10 + len(q))


@pytest.mark.needs_plugin("builtins")
def test_static_len_of_runtime_composites_comes_from_their_type():
    out = wp.zeros(1, dtype=float)
    n = wp.zeros(1, dtype=int)
    wp.launch(_static_len_of_runtime_values, dim=1, inputs=[wp.vec2(), out, n])
    assert out.numpy()[0] == np.trace(np.eye(6)) and n.numpy()[0] == 74

    @wp.kernel(module="unique")
    def reads_runtime(v1: wp.vec2, out: wp.array(dtype=float)):
        out[0] = wp.static(v1[0])

    with pytest.raises(wp.WarpCodegenError, match=r"'v1' is a runtime value \(vec2f\); in wp.static"):
        wp.launch(reads_runtime, dim=1, inputs=[wp.vec2(), out])


def test_static_bools_count_as_zero_or_one_in_range():
    @wp.kernel(module="unique")
    def k(out: wp.array(dtype=wp.int32)):
        count = int(0)
        for _ in range(wp.static(True)):
            count += 1
        for _ in range(wp.static(False)):
            count += 10
        for _ in range(wp.static(True), 3):
            count += 100
        out[0] = count

    out = wp.zeros(1, dtype=wp.int32)
    wp.launch(k, dim=1, inputs=[out])
    assert out.numpy()[0] == len(range(True)) + 10 * len(range(False)) + 100 * len(range(True, 3))


class _OneShot:
    def __init__(self) -> None:
        self.reads = 0

    @property
    def value(self) -> int:
        self.reads += 1
        if self.reads > 1:
            raise RuntimeError("read more than once")
        return 3


def test_static_expressions_are_evaluated_once_at_declaration():
    calls: list[float] = []

    def bump() -> float:
        calls.append(1.0)
        return float(len(calls))

    box = _OneShot()

    @wp.kernel(module="unique")
    def k(out: wp.array(dtype=float), ints: wp.array(dtype=wp.int32)):
        x = wp.static(bump())
        y = wp.static(bump())
        out[0] = x * 10.0 + y + wp.static(1.0 + wp.static(bump()))
        ints[0] = wp.static(box.value)

    assert len(calls) == 3 and box.reads == 1  # evaluated when declared, nested ones once
    out = wp.zeros(1, dtype=float)
    ints = wp.zeros(1, dtype=wp.int32)
    wp.launch(k, dim=1, inputs=[out, ints])
    wp.launch(k, dim=1, inputs=[out, ints], device="cpu")
    assert len(calls) == 3 and box.reads == 1
    assert out.numpy()[0] == 1.0 * 10.0 + 2.0 + (1.0 + 3.0) and ints.numpy()[0] == 3


def test_static_expression_naming_a_later_global_is_evaluated_at_compile():
    @wp.kernel(module="unique")
    def k(out: wp.array(dtype=float)):
        out[0] = wp.static(_DEFINED_AFTER_THE_KERNEL * 2.0)  # noqa: F821 - assigned below

    globals()["_DEFINED_AFTER_THE_KERNEL"] = 1.25
    out = wp.zeros(1, dtype=float)
    wp.launch(k, dim=1, inputs=[out])
    assert out.numpy()[0] == 2.5


_static_alias = wp.static


def test_static_through_an_alias_keeps_its_declaration_value():
    global _static_alias

    @wp.kernel(module="unique")
    def k(out: wp.array(dtype=wp.int32)):
        out[0] = _static_alias(7)

    def replacement(value):
        return value

    _static_alias = replacement
    try:
        out = wp.zeros(1, dtype=wp.int32, device="cpu")
        wp.launch(k, dim=1, inputs=[out], device="cpu")
        assert out.numpy()[0] == 7
    finally:
        _static_alias = wp.static
def test_compile_time_break_and_continue_in_unrolled_loops():
    # the loop variable is read by wp.static, so the loop is unrolled; continue/break under
    # wp.static conditions drop iterations at compile time
    @wp.kernel
    def odd_terms(x: wp.array(dtype=float), out: wp.array(dtype=float)):
        tid = wp.tid()
        value = float(0.0)
        for i in range(20):
            if wp.static(i % 2 == 0):
                continue
            if wp.static(i > 15):
                break
            value += float(i) * x[tid]
        out[tid] = value

    x = wp.full(2, 2.0, dtype=float)
    out = wp.zeros(2, dtype=float)
    wp.launch(odd_terms, dim=2, inputs=[x, out])
    np.testing.assert_allclose(out.numpy(), [2.0 * sum(range(1, 16, 2))] * 2)

    @wp.kernel
    def runtime_continue(x: wp.array(dtype=float), out: wp.array(dtype=float)):
        value = float(0.0)
        for i in range(4):
            if x[0] > wp.static(float(i)):
                continue
            value += x[0]
        out[0] = value

    with pytest.raises(wp.WarpCodegenError, match="must depend on compile-time conditions only"):
        wp.launch(runtime_continue, dim=1, inputs=[x, out])
