"""wp.config.cpu_threads = 1 runs a CPU launch in NVIDIA Warp's serial order (thread i before i + 1)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import warp as wp

wp.config.quiet = True


@wp.kernel
def running_sum(a: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i > 0:
        a[i] = a[i] + a[i - 1]  # reads what thread i - 1 wrote: only correct in serial order


@wp.kernel
def ticket(counter: wp.array(dtype=wp.int32), order: wp.array(dtype=wp.int32)):
    i = wp.tid()
    order[i] = wp.atomic_add(counter, 0, 1)


@wp.kernel
def ticket_2d(counter: wp.array(dtype=wp.int32), order: wp.array2d(dtype=wp.int32)):
    i, j = wp.tid()
    order[i, j] = wp.atomic_add(counter, 0, 1)


@pytest.fixture
def serial():
    saved = wp.config.cpu_threads, wp.config.cpu_parallel_min_dim
    wp.config.cpu_threads = 1
    wp.config.cpu_parallel_min_dim = 1  # even large launches would otherwise be split by work
    yield
    wp.config.cpu_threads, wp.config.cpu_parallel_min_dim = saved


@pytest.mark.parametrize("n", [1000, 300_000])
def test_threads_run_in_index_order(serial, n):
    a = wp.array(np.ones(n, dtype=np.float32))
    wp.launch(running_sum, dim=n, inputs=[a])
    np.testing.assert_array_equal(a.numpy(), np.arange(1, n + 1, dtype=np.float32))


@pytest.mark.parametrize("n", [1000, 300_000])
def test_atomics_happen_in_index_order(serial, n):
    counter = wp.zeros(1, dtype=wp.int32)
    order = wp.zeros(n, dtype=wp.int32)
    wp.launch(ticket, dim=n, inputs=[counter, order])
    np.testing.assert_array_equal(order.numpy(), np.arange(n))
    counter.zero_()
    grid = wp.zeros((300, 700), dtype=wp.int32)
    wp.launch(ticket_2d, dim=(300, 700), inputs=[counter, grid])
    np.testing.assert_array_equal(grid.numpy().reshape(-1), np.arange(300 * 700))  # row-major


def test_prints_come_in_thread_order(tmp_path):
    script = tmp_path / "prints.py"
    script.write_text(textwrap.dedent(
        """
        import warp as wp
        wp.config.quiet = True
        wp.config.cpu_threads = 1

        @wp.kernel
        def say(n: int):
            i = wp.tid()
            print(i)
            wp.printf("p%d\\n", i * n)

        wp.launch(say, dim=40000, inputs=[2], device="cpu")  # cuda:0 is the default on a GPU host
        """
    ))
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.split()
    expected = [item for i in range(40000) for item in (str(i), f"p{2 * i}")]
    assert lines == expected
