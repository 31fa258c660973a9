"""Live aliases between warp and the frameworks at interpreter exit must not crash or complain."""

from __future__ import annotations

import pytest

from interop_subprocess import run_python


def check_clean_exit(result) -> None:
    assert result.returncode == 0, f"exit status {result.returncode}\n{result.stderr}"
    assert "Exception ignored" not in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert result.stdout.strip().endswith("done"), result.stdout


def test_numpy_and_capsule_aliases_at_exit(tmp_path, real_device):
    """On the cpu a NumPy view of warp memory; on each cuda:N the capsules alone (NumPy reads only
    host memory: a copy there). The device is named: the default is cuda:0 on a GPU host."""
    result = run_python(
        f"""
        import numpy as np
        import warp as wp
        device = {str(real_device)!r}
        a = wp.array(np.arange(8, dtype=np.float32), device=device)
        n = np.from_dlpack(a) if device == "cpu" else a.numpy()  # numpy view of warp memory (cpu)
        loose = a.__dlpack__()                # never consumed
        loose_v = a.__dlpack__(max_version=(1, 0))
        src = np.arange(4, dtype=np.float64)
        w = wp.from_dlpack(src)               # warp view of numpy memory
        cycle = [a, n]
        cycle.append(cycle)
        del a
        print("done")
        """,
        tmp_path,
    )
    check_clean_exit(result)


@pytest.mark.slow
def test_torch_aliases_at_exit(tmp_path):
    pytest.importorskip("torch")
    result = run_python(
        """
        import numpy as np
        import torch
        import warp as wp

        @wp.kernel
        def inc(x: wp.array(dtype=float)):
            i = wp.tid()
            x[i] = x[i] + 1.0

        w = wp.array(np.zeros(16, dtype=np.float32), requires_grad=True)
        t1 = wp.to_torch(w)                   # tensor over warp memory (grad aliased too)
        t2 = torch.from_dlpack(w)             # via a DLPack capsule
        t3 = torch.utils.dlpack.from_dlpack(wp.to_dlpack(w))
        src = torch.ones(16, requires_grad=True)
        a = wp.from_torch(src)                # warp over torch memory
        b = wp.from_dlpack(torch.arange(4.0))
        d = wp.from_torch(torch.zeros(3), return_ctype=True)
        wp.launch(inc, dim=16, inputs=[t1])
        assert t2[0].item() == 1.0 and t3[0].item() == 1.0
        holder = {"w": w, "tensors": [t1, t2, t3], "a": a}
        holder["self"] = holder
        del w, src
        print("done")
        """,
        tmp_path,
    )
    check_clean_exit(result)


@pytest.mark.slow
def test_paddle_aliases_at_exit(tmp_path):
    pytest.importorskip("paddle")
    result = run_python(
        """
        import numpy as np
        import paddle
        import warp as wp

        w = wp.array(np.zeros(8, dtype=np.float32), requires_grad=True)
        t = wp.to_paddle(w)                   # shares data and gradient
        t2 = paddle.utils.dlpack.from_dlpack(wp.to_dlpack(w))
        x = paddle.ones([8])
        x.stop_gradient = False
        a = wp.from_paddle(x)                 # warp over paddle memory, with gradient
        b = wp.from_dlpack(paddle.arange(4, dtype=paddle.float32))
        d = wp.from_paddle(paddle.zeros([3]), return_ctype=True)
        del w, x
        print("done")
        """,
        tmp_path,
    )
    check_clean_exit(result)


@pytest.mark.slow
def test_jax_aliases_at_exit(tmp_path):
    pytest.importorskip("jax")
    result = run_python(
        """
        import numpy as np
        import jax
        import jax.numpy as jnp
        import warp as wp
        from warp.jax_experimental import jax_kernel

        @wp.kernel
        def double(x: wp.array(dtype=float), y: wp.array(dtype=float)):
            i = wp.tid()
            y[i] = 2.0 * x[i]

        w = wp.array(np.arange(8, dtype=np.float32))
        j = wp.to_jax(w)                      # JAX array over warp memory
        x = jnp.arange(8, dtype=jnp.float32)
        a = wp.from_jax(x)                    # warp array over a JAX buffer
        k = jax_kernel(double)
        (y,) = jax.jit(k)(j)                  # FFI target alive at exit
        assert y.tolist() == [2.0 * i for i in range(8)]
        del w, x
        print("done")
        """,
        tmp_path,
    )
    check_clean_exit(result)
