"""``and`` / ``or`` / chained comparisons / conditional expressions: evaluation order and results.

The right operand of ``and`` / ``or`` runs only when the left one does not decide the result,
checked three ways: an out-of-range read guarded by the left operand in debug mode (bounds
checks raise IndexError when the read happens), a user function with an atomic side effect that
counts its calls, and a chained comparison whose later operands must not run.
"""

import numpy as np
import pytest

import warp as wp


@wp.func
def bump(counter: wp.array(dtype=int), value: int):
    wp.atomic_add(counter, 0, 1)
    return value


@wp.kernel
def guarded_read(a: wp.array(dtype=float), n: int, out: wp.array(dtype=int)):
    i = wp.tid()
    if i < n and a[i] > 0.0:
        out[i] = 1
    if i >= n or a[i] == 0.0:
        out[i] += 10


def test_and_or_guard_out_of_range_reads_in_debug_mode(debug_mode):
    n = 4
    a = wp.array([1.0, 0.0, -2.0, 3.0], dtype=float)
    out = wp.zeros(8, dtype=int)
    wp.launch(guarded_read, dim=8, inputs=[a, n, out])  # threads 4..7 must never read a[i]
    assert out.numpy().tolist() == [1, 10, 0, 1, 10, 10, 10, 10]


def test_and_or_read_without_guard_is_caught_in_debug_mode(debug_mode):
    """Control: with the guard on the wrong side, the read happens and debug mode reports it."""

    @wp.kernel
    def unguarded(a: wp.array(dtype=float), n: int, out: wp.array(dtype=int)):
        i = wp.tid()
        if a[i] > 0.0 and i < n:
            out[i] = 1

    a = wp.array([1.0, 0.0, -2.0, 3.0], dtype=float)
    with pytest.raises(IndexError, match="unguarded"):
        wp.launch(unguarded, dim=8, inputs=[a, 4, wp.zeros(8, dtype=int)])


@wp.kernel
def count_calls(counter: wp.array(dtype=int), case: int, out: wp.array(dtype=int)):
    r = 0
    if case == 0:
        r = int(bump(counter, 0) != 0 and bump(counter, 1) != 0)
    elif case == 1:
        r = int(bump(counter, 1) != 0 or bump(counter, 0) != 0)
    elif case == 2:
        r = int(bump(counter, 1) != 0 and bump(counter, 1) != 0 and bump(counter, 0) != 0
                and bump(counter, 1) != 0)
    elif case == 3:
        r = int(bump(counter, 0) != 0 or bump(counter, 0) != 0 or bump(counter, 1) != 0
                or bump(counter, 1) != 0)
    elif case == 4:
        # mixed: (a and b) or c
        r = int((bump(counter, 1) != 0 and bump(counter, 0) != 0) or bump(counter, 1) != 0)
    elif case == 5:
        # chained comparison 0 < x < y < z stops at the first false link
        r = int(0 < bump(counter, 5) < bump(counter, 3) < bump(counter, 9))
    elif case == 6:
        r = int(0 < bump(counter, 5) < bump(counter, 7) < bump(counter, 9))
    elif case == 7:
        # conditional expression: only the chosen branch runs
        r = bump(counter, 1) if case > 100 else bump(counter, 2) + bump(counter, 3)
    out[0] = r


@pytest.mark.parametrize(
    "case,calls,result",
    [(0, 1, 0), (1, 1, 1), (2, 3, 0), (3, 3, 1), (4, 3, 1), (5, 2, 0), (6, 3, 1), (7, 2, 5)],
)
def test_right_operands_run_only_when_needed(case, calls, result):
    counter = wp.zeros(1, dtype=int)
    out = wp.zeros(1, dtype=int)
    wp.launch(count_calls, dim=1, inputs=[counter, case, out])
    assert counter.numpy()[0] == calls
    assert out.numpy()[0] == result


def test_and_or_not_on_non_bool_operands_give_bools():
    """Operands are tested for non-zero; the result is a bool (not Python's operand value)."""

    @wp.kernel
    def truthiness(xi: wp.array(dtype=int), xf: wp.array(dtype=float), out: wp.array2d(dtype=int)):
        i = wp.tid()
        a = xi[i]
        f = xf[i]
        out[i, 0] = int(a and f)
        out[i, 1] = int(a or f)
        out[i, 2] = int(not a)
        out[i, 3] = int(not f)
        out[i, 4] = int(a and 7)
        out[i, 5] = int(0.0 or f)
        b = a or f
        out[i, 6] = int(b)

    xs, fs = [0, 3, 0, -2], [0.0, 0.0, 0.5, -1.5]
    out = wp.zeros((4, 7), dtype=int)
    wp.launch(truthiness, dim=4, inputs=[wp.array(xs, dtype=int), wp.array(fs, dtype=float), out])
    for i, (a, f) in enumerate(zip(xs, fs)):
        exp = [bool(a and f), bool(a or f), not a, not f, bool(a and 7), bool(0.0 or f), bool(a or f)]
        assert out.numpy()[i].tolist() == [int(e) for e in exp], (a, f)


def test_constant_left_operand_decides_at_compile_time():
    """``False and expr`` never compiles ``expr`` into a read; ``True or expr`` likewise."""

    @wp.kernel
    def const_left(a: wp.array(dtype=int), out: wp.array(dtype=int)):
        if False and a[100] > 0:
            out[0] = 1
        if True or a[100] > 0:
            out[1] = 1
        if True and a[0] > 0:
            out[2] = 1

    a = wp.array([5], dtype=int)
    out = wp.zeros(3, dtype=int)
    wp.launch(const_left, dim=1, inputs=[a, out])
    assert out.numpy().tolist() == [0, 1, 1]


def test_short_circuit_in_while_condition():
    @wp.kernel
    def scan(a: wp.array(dtype=int), out: wp.array(dtype=int)):
        k = int(0)
        while k < a.shape[0] and a[k] != 0:
            k += 1
        out[0] = k

    for data, expected in (([3, 4, 0, 5], 2), ([1, 2, 3], 3), ([0], 0)):
        out = wp.zeros(1, dtype=int)
        wp.launch(scan, dim=1, inputs=[wp.array(data, dtype=int), out])
        assert out.numpy()[0] == expected


def test_chained_comparisons_match_python():
    @wp.kernel
    def chains(x: wp.array(dtype=float), out: wp.array2d(dtype=int)):
        i = wp.tid()
        v = x[i]
        out[i, 0] = int(0.0 <= v < 1.0)
        out[i, 1] = int(-1.0 < v <= 0.0 < 2.0)
        out[i, 2] = int(v == v != 0.5)
        out[i, 3] = int(2.0 > v > -2.0 >= -3.0)

    xs = np.array([-1.5, -1.0, 0.0, 0.5, 0.99, 1.0, 3.0], dtype=np.float32)
    out = wp.zeros((len(xs), 4), dtype=int)
    wp.launch(chains, dim=len(xs), inputs=[wp.array(xs, dtype=float), out])
    for i, v in enumerate(xs.tolist()):
        exp = [0.0 <= v < 1.0, -1.0 < v <= 0.0 < 2.0, v == v != 0.5, 2.0 > v > -2.0 >= -3.0]
        assert out.numpy()[i].tolist() == [int(e) for e in exp], v


def test_conditional_expression_literal_adopts_other_branch_type():
    @wp.kernel
    def pick(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
        i = wp.tid()
        v = x[i]
        out[i] = 1.5 if v > 0.0 else v * 2.0

    out = wp.zeros(3, dtype=wp.float64)
    wp.launch(pick, dim=3, inputs=[wp.array([-1.0, 2.0, 0.0], dtype=wp.float64), out])
    assert out.numpy().tolist() == [-2.0, 1.5, 0.0]


@pytest.mark.needs_plugin("builtins")
def test_in_place_builtin_in_right_operand_updates_state_only_when_run():
    """``wp.randf(state)`` advances ``state``; in a skipped operand it must not advance it."""
    pytest.importorskip("warp_builtins")

    @wp.kernel
    def draws(flags: wp.array(dtype=int), out: wp.array(dtype=float)):
        i = wp.tid()
        state = wp.rand_init(42)
        ok = flags[i] != 0 and wp.randf(state) >= 0.0
        out[i] = wp.randf(state)  # first or second draw depending on whether randf ran above
        if not ok:
            out[i] = -out[i]

    out = wp.zeros(2, dtype=float)
    wp.launch(draws, dim=2, inputs=[wp.array([0, 1], dtype=int), out])

    @wp.kernel
    def reference(out: wp.array(dtype=float)):
        state = wp.rand_init(42)
        out[0] = wp.randf(state)
        out[1] = wp.randf(state)

    ref = wp.zeros(2, dtype=float)
    wp.launch(reference, dim=1, inputs=[ref])
    first, second = ref.numpy().tolist()
    assert first != second
    assert out.numpy().tolist() == [-first, second]


def test_array_truth_value_is_a_null_test():
    # `if arr and arr[i] == 0`: an array argument passed as None is false, so arr[i] never runs
    @wp.kernel
    def guarded(arr: wp.array(dtype=int), result: wp.array(dtype=int)):
        i = wp.tid()
        if arr and arr[i] == 0:
            result[i] = -1
        elif not arr:
            result[i] = 2
        else:
            result[i] = 1

    result = wp.zeros(3, dtype=int)
    wp.launch(guarded, dim=3, inputs=[None, result])
    np.testing.assert_array_equal(result.numpy(), [2, 2, 2])
    wp.launch(guarded, dim=3, inputs=[wp.array([0, 1, 0], dtype=int), result])
    np.testing.assert_array_equal(result.numpy(), [-1, 1, -1])
