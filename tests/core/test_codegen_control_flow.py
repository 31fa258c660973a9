"""Kernel language: if/elif/else, for over range() (constant and dynamic bounds), while, break,
continue, early return, conditional expressions. References are the same code run in Python."""

import numpy as np

import warp as wp


def test_if_elif_else():
    @wp.kernel
    def classify(x: wp.array(dtype=int), out: wp.array2d(dtype=int)):
        i = wp.tid()
        v = x[i]
        c = 0
        if v < 0:
            c = -1
        elif v == 0:
            c = 100
        elif v < 10:
            c = v * 2
        else:
            c = 7
        out[i, 0] = c
        # variable modified in one branch only
        d = v
        if v > 5:
            d = d + 1000
        out[i, 1] = d
        # nested ifs, both sides assign several variables
        p = 0
        q = 1
        if v % 2 == 0:
            if v > 2:
                p = 1
                q = 2
            else:
                p = 2
        else:
            q = 3
            if v < -2:
                p = 4
        out[i, 2] = p
        out[i, 3] = q
        # float variable assigned in the branches
        f = 0.0
        if v >= 3:
            f = 1.5
        else:
            f = -0.5
        out[i, 4] = int(f * 2.0)

    xs = list(range(-5, 15))
    out = wp.zeros((len(xs), 5), dtype=int)
    wp.launch(classify, dim=len(xs), inputs=[wp.array(xs, dtype=int), out])
    for i, v in enumerate(xs):
        c = -1 if v < 0 else 100 if v == 0 else v * 2 if v < 10 else 7
        d = v + 1000 if v > 5 else v
        if v % 2 == 0:
            p, q = (1, 2) if v > 2 else (2, 1)
        else:
            q = 3
            p = 4 if v < -2 else 0
        f = 1.5 if v >= 3 else -0.5
        assert out.numpy()[i].tolist() == [c, d, p, q, int(f * 2.0)], v


def test_conditional_expression():
    @wp.kernel
    def ternary(x: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        v = x[i]
        out[i] = v * 2.0 if v > 0.0 else -v + 1.0

    xs = np.array([-2.0, -0.5, 0.0, 0.5, 3.0], dtype=np.float32)
    out = wp.zeros(5, dtype=float)
    wp.launch(ternary, dim=5, inputs=[wp.array(xs, dtype=float), out])
    np.testing.assert_array_equal(out.numpy(), np.where(xs > 0, xs * 2, -xs + 1))


def test_for_range_constant_bounds():
    """Constant bounds: short loops are unrolled (<= 16 iterations), longer ones are not; same results."""

    @wp.kernel
    def const_loops(out: wp.array(dtype=int)):
        s = 0
        for k in range(5):
            s += k
        out[0] = s
        s = 0
        for k in range(3, 9):
            s += k * k
        out[1] = s
        s = 0
        for k in range(1, 20, 3):
            s += k
        out[2] = s
        s = 0
        for k in range(10, 0, -1):
            s = s * 2 + k
        out[3] = s
        s = 0
        for k in range(10, -10, -3):
            s = s * 3 + k
        out[4] = s
        s = 0
        for k in range(16):
            s = s * 2 + k % 3
        out[5] = s
        s = 0
        for k in range(17):
            s = s * 2 + k % 3
        out[6] = s
        s = 0
        for k in range(1000):
            s += k
        out[7] = s
        s = 0
        for k in range(500, -500, -7):
            s += k
        out[8] = s
        s = 0
        for k in range(0):
            s += 1
        for k in range(5, 5):
            s += 1
        for k in range(5, 10, -1):
            s += 1
        out[9] = s
        # nested constant loops
        s = 0
        for a in range(4):
            for b in range(a, 6):
                s += a * 10 + b
        out[10] = s
        s = 0
        for a in range(30):
            for b in range(20):
                s += a ^ b
        out[11] = s

    def ref():
        r = []
        r.append(sum(range(5)))
        r.append(sum(k * k for k in range(3, 9)))
        r.append(sum(range(1, 20, 3)))
        s = 0
        for k in range(10, 0, -1):
            s = s * 2 + k
        r.append(s)
        s = 0
        for k in range(10, -10, -3):
            s = s * 3 + k
        r.append(s)
        for n in (16, 17):
            s = 0
            for k in range(n):
                s = s * 2 + k % 3
            r.append(s)
        r.append(sum(range(1000)))
        r.append(sum(range(500, -500, -7)))
        r.append(0)
        r.append(sum(a * 10 + b for a in range(4) for b in range(a, 6)))
        r.append(sum(a ^ b for a in range(30) for b in range(20)))
        return r

    out = wp.zeros(12, dtype=int)
    wp.launch(const_loops, dim=1, inputs=[out])
    assert out.numpy().tolist() == ref()


def test_for_range_dynamic_bounds():
    @wp.kernel
    def dyn_loops(starts: wp.array(dtype=int), stops: wp.array(dtype=int), steps: wp.array(dtype=int),
                  out: wp.array2d(dtype=int)):
        i = wp.tid()
        a = starts[i]
        b = stops[i]
        c = steps[i]
        s = 0
        n = 0
        for k in range(b):
            s += k
            n += 1
        out[i, 0] = s
        out[i, 1] = n
        s = 0
        n = 0
        for k in range(a, b):
            s += k * 3
            n += 1
        out[i, 2] = s
        out[i, 3] = n
        s = 0
        n = 0
        last = -12345
        for k in range(a, b, c):
            s += k
            n += 1
            last = k
        out[i, 4] = s
        out[i, 5] = n
        out[i, 6] = last
        # dynamic stop, constant negative step
        s = 0
        for k in range(b, a, -2):
            s = s * 2 + k
        out[i, 7] = s

    cases = [(0, 10, 1), (0, 10, 3), (10, 0, -1), (10, 0, -3), (-5, 5, 2), (5, -5, -4), (3, 3, 1), (5, 2, 1),
             (2, 5, -1), (0, 0, -1), (-7, -1, 5), (-1, -8, -2), (0, 1, 100)]
    n = len(cases)
    out = wp.zeros((n, 8), dtype=int)
    st, sp, stp = (wp.array([c[j] for c in cases], dtype=int) for j in range(3))
    wp.launch(dyn_loops, dim=n, inputs=[st, sp, stp, out])
    for i, (a, b, c) in enumerate(cases):
        r = list(range(a, b, c))
        s = 0
        for k in range(b, a, -2):
            s = s * 2 + k
        exp = [sum(range(b)), len(range(b)), 3 * sum(range(a, b)), len(range(a, b)), sum(r), len(r),
               r[-1] if r else -12345, s]
        assert out.numpy()[i].tolist() == exp, (a, b, c)


def test_for_range_other_integer_types():
    @wp.kernel
    def typed_loops(n64: wp.int64, n8: wp.uint8, out: wp.array(dtype=wp.int64)):
        s = wp.int64(0)
        for k in range(n64):
            s += k
        out[0] = s
        t = wp.int64(0)
        for k in range(n8):
            t += wp.int64(k)
        out[1] = t

    out = wp.zeros(2, dtype=wp.int64)
    wp.launch(typed_loops, dim=1, inputs=[100000, 200, out])
    assert out.numpy().tolist() == [sum(range(100000)), sum(range(200))]


def test_while_break_continue():
    @wp.kernel
    def loops(x: wp.array(dtype=int), out: wp.array2d(dtype=int)):
        i = wp.tid()
        v = x[i]
        # collatz steps (while with dynamic condition)
        steps = 0
        c = v
        while c != 1:
            if c % 2 == 0:
                c = c / 2
            else:
                c = 3 * c + 1
            steps += 1
        out[i, 0] = steps
        # while True with break
        k = 0
        while True:
            k += 1
            if k * k > v:
                break
        out[i, 1] = k
        # continue in a dynamic for loop
        s = 0
        for j in range(v):
            if j % 3 == 0:
                continue
            s += j
        out[i, 2] = s
        # break in a dynamic for loop
        first = -1
        for j in range(2, v + 10):
            if (j * j) % v == 1:
                first = j
                break
        out[i, 3] = first
        # break/continue in a constant-bound loop
        s = 0
        for j in range(10):
            if j == 2:
                continue
            if j == 7:
                break
            s += j * v
        out[i, 4] = s
        # nested loops: break leaves only the inner loop
        total = 0
        for a in range(v):
            for b in range(v):
                if b > a:
                    break
                total += 1
        out[i, 5] = total
        # while with continue
        m = 0
        acc = 0
        while m < v:
            m += 1
            if m % 2 == 1:
                continue
            acc += m
        out[i, 6] = acc

    xs = [1, 2, 3, 6, 7, 11, 27]
    out = wp.zeros((len(xs), 7), dtype=int)
    wp.launch(loops, dim=len(xs), inputs=[wp.array(xs, dtype=int), out])
    for i, v in enumerate(xs):
        steps, c = 0, v
        while c != 1:
            c = c // 2 if c % 2 == 0 else 3 * c + 1
            steps += 1
        k = 0
        while True:
            k += 1
            if k * k > v:
                break
        s2 = sum(j for j in range(v) if j % 3 != 0)
        first = next((j for j in range(2, v + 10) if (j * j) % v == 1), -1)
        s4 = sum(j * v for j in range(7) if j != 2)
        total = sum(min(a + 1, v) for a in range(v))
        acc = sum(m for m in range(1, v + 1) if m % 2 == 0)
        assert out.numpy()[i].tolist() == [steps, k, s2, first, s4, total, acc], v


def test_loop_carried_float_and_multiple_variables():
    @wp.kernel
    def fib(n: int, out: wp.array(dtype=wp.float64), iout: wp.array(dtype=wp.int64)):
        a = wp.int64(0)
        b = wp.int64(1)
        x = wp.float64(1.0)
        for _ in range(n):
            t = a + b
            a = b
            b = t
            x = x * 0.5 + 1.0
        iout[0] = a
        iout[1] = b
        out[0] = x

    out = wp.zeros(1, dtype=wp.float64)
    iout = wp.zeros(2, dtype=wp.int64)
    wp.launch(fib, dim=1, inputs=[50, out, iout])
    a, b, x = 0, 1, 1.0
    for _ in range(50):
        a, b = b, a + b
        x = x * 0.5 + 1.0
    assert iout.numpy().tolist() == [a, b]
    assert out.numpy()[0] == x


def test_early_return_in_kernel():
    @wp.kernel
    def early(x: wp.array(dtype=int), out: wp.array(dtype=int)):
        i = wp.tid()
        if x[i] < 0:
            return
        out[i] = 1
        for k in range(x[i]):
            if k == 5:
                out[i] = 50
                return
            out[i] += 1
        while True:
            out[i] += 1000
            return

    xs = [-3, 0, 3, 5, 6, 20, -1]
    out = wp.full(len(xs), 7, dtype=int)
    wp.launch(early, dim=len(xs), inputs=[wp.array(xs, dtype=int), out])

    def ref(v):
        if v < 0:
            return 7
        r = 1
        for k in range(v):
            if k == 5:
                return 50
            r += 1
        return r + 1000

    assert out.numpy().tolist() == [ref(v) for v in xs]


@wp.func
def first_multiple(start: int, m: int, limit: int):
    for k in range(start, limit):
        if k % m == 0:
            return k
    return -1


@wp.func
def sign_of(x: float):
    if x > 0.0:
        return 1
    elif x < 0.0:
        return -1
    return 0


@wp.func
def while_return(n: int):
    k = 0
    while k < 100:
        if k * k >= n:
            return k
        k += 1
    return 100


def test_early_return_in_funcs():
    @wp.kernel
    def use_funcs(x: wp.array(dtype=int), out: wp.array2d(dtype=int)):
        i = wp.tid()
        v = x[i]
        out[i, 0] = first_multiple(v, 7, v + 5)
        out[i, 1] = sign_of(float(v) - 3.0)
        out[i, 2] = while_return(v * 10)

    xs = [0, 1, 3, 5, 9, 14, 100, 250]
    out = wp.zeros((len(xs), 3), dtype=int)
    wp.launch(use_funcs, dim=len(xs), inputs=[wp.array(xs, dtype=int), out])
    for i, v in enumerate(xs):
        fm = next((k for k in range(v, v + 5) if k % 7 == 0), -1)
        sg = (v > 3) - (v < 3)
        wr = next((k for k in range(100) if k * k >= v * 10), 100)
        assert out.numpy()[i].tolist() == [fm, sg, wr], v


@wp.kernel(enable_backward=False)
def _names_bound_in_loops(gates: wp.array(dtype=int), n: int, out: wp.array(dtype=int)):
    total = int(0)
    for i in range(n):
        total += 7
        d = i * 2
        v = wp.vec2(float(i), 1.0)
        if gates[i] != 0:
            continue
        total += 11
    last = i
    out[0] = total
    out[1] = last
    out[2] = d
    out[3] = int(v[0])
    k = int(0)
    while k < n:
        w = k + 100
        k += 1
    out[4] = w


def _names_bound_in_loops_reference(gates, n):
    total, last, d, v0, w = 0, 0, 0, 0, 0
    for i in range(n):
        total += 7
        d = i * 2
        v0 = i
        last = i
        if gates[i] != 0:
            continue
        total += 11
    for k in range(n):
        w = k + 100
    return [total, last, d, v0, w]


def test_names_bound_in_a_dynamic_loop_are_visible_after_it():
    gates = np.array([0, 1, 0, 1, 1], dtype=np.int32)
    out = wp.zeros(5, dtype=int)
    for n in (5, 3, 0):  # a loop that never runs leaves them zero
        wp.launch(_names_bound_in_loops, 1, inputs=[wp.array(gates, dtype=int), n, out])
        assert out.numpy().tolist() == _names_bound_in_loops_reference(gates, n)


def test_variable_first_assigned_in_one_branch_is_zero_on_the_other_path():
    # as in Python the name stays visible after the if; paths that skip the assignment see zero
    @wp.kernel
    def branch_only(
        flags: wp.array(dtype=wp.bool), out: wp.array(dtype=float), vout: wp.array(dtype=wp.vec3)
    ):
        i = wp.tid()
        if flags[i]:
            x = 123.0
            v = wp.vec3(1.0, 2.0, 3.0)
        out[i] = x
        vout[i] = v

    flags = wp.array([True, False], dtype=wp.bool)
    out, vout = wp.zeros(2, dtype=float), wp.zeros(2, dtype=wp.vec3)
    wp.launch(branch_only, dim=2, inputs=[flags, out, vout])
    np.testing.assert_array_equal(out.numpy(), [123.0, 0.0])
    np.testing.assert_array_equal(vout.numpy(), [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
