"""JAX's CUDA platform: warp's FFI targets are registered for it, decode XLA's stream and device
ordinal, and run on that device and stream with the buffers where XLA put them.

Without a GPU the handler side runs on the stand-in driver's ``cuda:0``: the call is decoded
from a hand-made XLA call frame and the launch goes to device memory the host cannot touch (a
host round trip would fault). With a GPU, ``test_jax_kernel_on_the_gpu`` runs the real thing.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

import warp as wp

jax = pytest.importorskip("jax")

from warp.jax_experimental import jax_callable, jax_kernel  # noqa: E402
from warp_interop.jax_experimental import xla_ffi  # noqa: E402


@wp.kernel
def scale_add(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a * x[i] + y[i]


def _jax_gpus() -> list:
    try:
        return jax.devices("gpu")
    except RuntimeError:
        return []


def test_targets_are_registered_for_cpu_and_cuda() -> None:
    k = jax_kernel(scale_add)
    out = k(jax.numpy.ones(4, jax.numpy.float32), jax.numpy.ones(4, jax.numpy.float32), 2.0)
    np.testing.assert_allclose(np.asarray(out[0]), 3.0)
    assert {(k.target, "cpu"), (k.target, "CUDA")} <= set(xla_ffi._registered)
    g = jax_kernel(scale_add, enable_backward=True)
    g(jax.numpy.ones(2, jax.numpy.float32), jax.numpy.ones(2, jax.numpy.float32), 1.0)
    assert (g.target + "_adjoint", "CUDA") in xla_ffi._registered


def test_registering_a_name_twice_for_a_platform_fails() -> None:
    xla_ffi.register_handler("warp_test_twice", lambda call: None, platform="CUDA")
    with pytest.raises(ValueError, match="already registered for CUDA"):
        xla_ffi.register_handler("warp_test_twice", lambda call: None, platform="CUDA")


# -- a hand-made XLA call frame ------------------------------------------------------------------


class _Frame:
    """An XLA_FFI_CallFrame for ``buffers`` (inputs then outputs) with an API table whose
    Stream_Get and DeviceOrdinal_Get answer ``stream`` and ``ordinal``."""

    def __init__(self, inputs: list, outputs: list, attrs: dict, stream: int, ordinal: int):
        self.keep: list = []
        api = (ctypes.c_void_p * 24)()
        ctypes.c_size_t.from_address(ctypes.addressof(api)).value = ctypes.sizeof(api)

        def stream_get(args):
            args.contents.stream = stream
            return None

        def ordinal_get(args):
            args.contents.device_ordinal = ordinal
            return None

        for offset, proto, fn in (
            (xla_ffi._API_STREAM_GET, xla_ffi._StreamGet, stream_get),
            (xla_ffi._API_DEVICE_ORDINAL_GET, xla_ffi._DeviceOrdinalGet, ordinal_get),
        ):
            cb = proto(fn)
            self.keep.append(cb)
            api[offset // 8] = ctypes.cast(cb, ctypes.c_void_p).value
        frame = xla_ffi.CallFrame()
        frame.api = ctypes.addressof(api)
        frame.ctx = 0x1234
        frame.stage = xla_ffi.STAGE_EXECUTE
        frame.args = self._operands(inputs)
        frame.rets = self._operands(outputs)
        frame.attrs = self._attrs(attrs)
        self.keep += [api]
        self.frame = frame

    def _operands(self, buffers: list) -> xla_ffi._Operands:
        structs = []
        for ptr, shape in buffers:
            dims = (ctypes.c_int64 * len(shape))(*shape)
            structs.append(xla_ffi.Buffer(ctypes.sizeof(xla_ffi.Buffer), None, 11, ptr, len(shape), dims))
            self.keep.append(dims)
        self.keep += structs
        values = (ctypes.c_void_p * max(1, len(structs)))(*[ctypes.addressof(s) for s in structs])
        types = (ctypes.c_int * max(1, len(structs)))()
        self.keep += [values, types]
        return xla_ffi._Operands(0, None, len(structs), types, values)

    def _attrs(self, attrs: dict) -> xla_ffi._Attrs:
        n = len(attrs)
        names = (ctypes.POINTER(xla_ffi.ByteSpan) * n)()
        values = (ctypes.c_void_p * n)()
        types = (ctypes.c_int * n)()
        for i, (name, value) in enumerate(attrs.items()):
            raw = name.encode()
            span = xla_ffi.ByteSpan(ctypes.cast(ctypes.c_char_p(raw), ctypes.c_void_p), len(raw))
            names[i] = ctypes.pointer(span)
            data = np.array(value)  # 0-d for scalars
            dtype = {np.dtype(np.float32): 11, np.dtype(np.int64): 5}[data.dtype]
            if data.ndim == 0:
                payload = xla_ffi._Scalar(dtype, data.ctypes.data)
                types[i] = xla_ffi.ATTR_SCALAR
            else:
                payload = xla_ffi._Array(dtype, data.size, data.ctypes.data)
                types[i] = xla_ffi.ATTR_ARRAY
            values[i] = ctypes.addressof(payload)
            self.keep += [raw, span, data, payload]
        self.keep += [names, values, types]
        return xla_ffi._Attrs(0, None, n, types, names, values)


def test_gpu_call_frames_carry_the_stream_and_the_device_ordinal() -> None:
    made = _Frame([(0x1000, (4,))], [(0x2000, (4,))], {}, stream=0xABC, ordinal=1)  # keeps its memory
    frame = made.frame
    call = xla_ffi.decode(frame, on_gpu=True)
    assert call.ctx.stream == 0xABC and call.ctx.device_ordinal == 1
    assert call.inputs[0].on_gpu and call.inputs[0].__cuda_array_interface__["data"] == (0x1000, False)
    with pytest.raises(AttributeError):
        getattr(call.inputs[0], "__array_interface__")  # noqa: B009
    cpu = xla_ffi.decode(frame, on_gpu=False)
    assert cpu.ctx.stream is None and cpu.ctx.device_ordinal == 0


def test_jax_kernel_target_runs_on_the_device_and_stream_of_the_call(fake_cuda) -> None:
    k = jax_kernel(scale_add)
    x = wp.array(np.arange(6, dtype=np.float32), device="cuda:1")
    y = wp.array(np.full(6, 10.0, np.float32), device="cuda:1")
    out = wp.array(np.full(6, 99.0, np.float32), device="cuda:1")  # XLA's outputs are uninitialized
    stream = wp.Stream("cuda:1")
    attrs = {"a": np.float32(3.0), "warp_launch_dims": np.array([6], np.int64)}
    frame = _Frame([(x.ptr, (6,)), (y.ptr, (6,))], [(out.ptr, (6,))], attrs, stream.cuda_stream, 1)
    fake_cuda.launches.clear()
    k.run(xla_ffi.decode(frame.frame, on_gpu=True))
    np.testing.assert_allclose(out.numpy(), 3.0 * np.arange(6) + 10.0)
    assert [launch["symbol"] for launch in fake_cuda.launches] and len(fake_cuda.launches) == 1


def test_jax_callable_runs_with_the_call_device_as_default(fake_cuda) -> None:
    seen = []

    def double(x: wp.array(dtype=float), out: wp.array(dtype=float)):
        seen.append((x.device, wp.get_device()))
        wp.copy(out, x)

    c = jax_callable(double)
    x = wp.array(np.arange(3, dtype=np.float32), device="cuda:0")
    out = wp.zeros(3, dtype=float, device="cuda:0")
    stream = wp.Stream("cuda:0")
    frame = _Frame([(x.ptr, (3,))], [(out.ptr, (3,))], {}, stream.cuda_stream, 0)
    c.run(xla_ffi.decode(frame.frame, on_gpu=True))
    assert seen == [(wp.get_device("cuda:0"), wp.get_device("cuda:0"))]
    np.testing.assert_array_equal(out.numpy(), np.arange(3))


@pytest.mark.skipif(not _jax_gpus(), reason="needs JAX with a CUDA device")
def test_jax_kernel_on_the_gpu() -> None:
    gpu = _jax_gpus()[0]
    k = jax_kernel(scale_add, enable_backward=True)
    x = jax.device_put(jax.numpy.arange(1000, dtype=jax.numpy.float32), gpu)
    y = jax.device_put(jax.numpy.ones(1000, dtype=jax.numpy.float32), gpu)

    @jax.jit
    def f(x, y):
        return k(x, y, 2.0)[0]

    out = f(x, y)
    assert out.devices() == {gpu}
    np.testing.assert_allclose(np.asarray(out), 2.0 * np.arange(1000) + 1.0)
    grad = jax.grad(lambda x: jax.numpy.sum(k(x, y, 2.0)[0]))(x)
    np.testing.assert_allclose(np.asarray(grad), 2.0)
    batched = jax.jit(jax.vmap(lambda x: k(x, y, 2.0)[0]))(jax.numpy.stack([x, 2 * x]))
    np.testing.assert_allclose(np.asarray(batched[1]), 4.0 * np.arange(1000) + 1.0)


def test_jax_callable_warp_graph_modes_capture_once_then_replay(fake_cuda) -> None:
    from warp.jax_experimental import GraphMode

    ran = []

    def double(x: wp.array(dtype=float), out: wp.array(dtype=float)):
        ran.append(x.device)
        wp.launch(scale_add, dim=x.shape, inputs=[x, x, 1.0], outputs=[out])

    stream = wp.Stream("cuda:0")
    for mode in (GraphMode.WARP, GraphMode.WARP_STAGED, GraphMode.WARP_STAGED_EX):
        c = jax_callable(double, graph_mode=mode)
        x = wp.array(np.arange(4, dtype=np.float32), device="cuda:0")
        out = wp.full(4, 99.0, dtype=float, device="cuda:0")  # XLA's outputs are uninitialized
        frame = _Frame([(x.ptr, (4,))], [(out.ptr, (4,))], {}, stream.cuda_stream, 0)
        ran.clear()
        c.run(xla_ffi.decode(frame.frame, on_gpu=True))  # captured, then launched
        wp.synchronize()
        assert ran == [wp.get_device("cuda:0")]
        np.testing.assert_array_equal(out.numpy(), 2.0 * np.arange(4))
        # the same buffers: the graph runs again (reading the inputs' new values), not the function
        wp.copy(x, wp.array(10.0 * np.arange(4, dtype=np.float32), device="cuda:0"))
        out.fill_(99.0)
        c.run(xla_ffi.decode(frame.frame, on_gpu=True))
        wp.synchronize()
        assert len(ran) == 1
        np.testing.assert_array_equal(out.numpy(), 20.0 * np.arange(4))
        # other buffers: a new capture
        other = wp.full(4, 99.0, dtype=float, device="cuda:0")
        frame2 = _Frame([(x.ptr, (4,))], [(other.ptr, (4,))], {}, stream.cuda_stream, 0)
        c.run(xla_ffi.decode(frame2.frame, on_gpu=True))
        wp.synchronize()
        assert len(ran) == 2
        np.testing.assert_array_equal(other.numpy(), 20.0 * np.arange(4))
        # the CPU has no Warp CUDA graphs
        message = f"graph_mode {mode.name} captures a Warp CUDA graph and is not supported on the CPU"
        with pytest.raises(RuntimeError, match=message):
            c.run(xla_ffi.decode(frame.frame, on_gpu=False))
