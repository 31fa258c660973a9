"""Read-only DLPack producers are refused (BufferError), never aliased by a writable warp array.

The memmap case runs in a child process: a kernel writing to a read-only mapping would kill it.
"""

from __future__ import annotations

import numpy as np
import pytest

import warp as wp
from interop_subprocess import run_python


def test_read_only_numpy_array_is_refused_and_left_intact():
    x = np.arange(4, dtype=np.float32)
    x.flags.writeable = False
    with pytest.raises(BufferError, match="read-only"):
        wp.from_dlpack(x)
    np.testing.assert_array_equal(x, np.arange(4, dtype=np.float32))
    # a writable array still aliases
    y = np.arange(4, dtype=np.float32)
    a = wp.from_dlpack(y)
    a.fill_(3.0)
    np.testing.assert_array_equal(y, np.full(4, 3.0, np.float32))


def test_immutable_bytes_are_refused():
    data = bytes(range(16))
    with pytest.raises(BufferError, match="read-only"):
        wp.from_dlpack(np.frombuffer(data, dtype=np.float32))
    assert data == bytes(range(16))


def test_read_only_memmap_is_refused_in_a_child(tmp_path):
    code = f"""
        import numpy as np
        import warp as wp

        @wp.kernel
        def write(a: wp.array(dtype=float)):
            a[wp.tid()] = 7.0

        path = {str(tmp_path / "data.bin")!r}
        np.zeros(1024, np.float32).tofile(path)
        m = np.memmap(path, dtype=np.float32, mode="r")
        try:
            wp.launch(write, dim=1024, inputs=[wp.from_dlpack(m)])
        except BufferError as exc:
            print("refused:", exc)
        print("sum", float(np.fromfile(path, np.float32).sum()))
    """
    proc = run_python(code, tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "refused: from_dlpack: the DLPack tensor is read-only" in proc.stdout
    assert "sum 0.0" in proc.stdout
