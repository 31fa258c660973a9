"""The stand-in driver's modules, JIT linker, stand-in cubins and kernel launches.

``cuModuleLoadDataEx`` checks the PTX names its entries; the JIT linker (``cuLinkCreate``,
``cuLinkAddData``, ``cuLinkComplete``) makes a checksummed stand-in cubin for the GPU's compute
capability and driver version, which ``cuModuleLoadData`` refuses when damaged or made for
another GPU or a newer driver. ``cuLaunchKernel`` reads the argument buffer passed through
``CU_LAUNCH_PARAM_BUFFER_POINTER``, checks that every array argument points at memory the device
can access, and runs the kernel's CPU build of the same entry over all threads.
"""

from __future__ import annotations

import ctypes
import hashlib
import re
import struct
from typing import Any

from cuda.bindings import driver as real
from fake_driver_base import ERR, OK, FakeDriverBase

from warp.compiler.abi import param_layout
from warp.types.array_type import ADJOINT_RETAIN_MARK, ArrayType

#: The stand-in's cubins: an ELF magic, then ``arch, driver version, entries`` and a checksum.
FAKE_CUBIN_MAGIC = b"\x7fELF-fake-cubin\0"


def make_fake_cubin(arch: int, driver_version: int, entries: list[str]) -> bytes:
    """The image :meth:`FakeDriver.cuLinkComplete` makes for a GPU of compute capability ``arch``."""
    body = FAKE_CUBIN_MAGIC + struct.pack("<II", arch, driver_version) + "\n".join(entries).encode()
    return body + hashlib.sha256(body).digest()


def parse_fake_cubin(image: bytes) -> tuple[int, int, list[str]] | None:
    """``(arch, driver version, entries)`` of an intact fake cubin, else None."""
    head = len(FAKE_CUBIN_MAGIC) + 8
    if len(image) < head + 32 or not image.startswith(FAKE_CUBIN_MAGIC):
        return None
    body, digest = image[:-32], image[-32:]
    if hashlib.sha256(body).digest() != digest:
        return None
    arch, driver_version = struct.unpack_from("<II", body, len(FAKE_CUBIN_MAGIC))
    text = body[head:].decode(errors="replace")
    return arch, driver_version, text.split("\n") if text else []


class ModulesMixin(FakeDriverBase):
    """``cuModule*``, ``cuLink*`` and ``cuLaunchKernel``."""

    @staticmethod
    def _is_ptx(text: str) -> bool:
        return ".version" in text and ".target sm_" in text

    def _new_module(self, entries: list[str]):
        handle = next(self._ids)
        self.modules[handle] = entries
        return (OK, real.CUmodule(handle))

    def cuModuleLoadDataEx(self, image: bytes, count: int, options: list, values: list):
        assert isinstance(image, bytes) and image.endswith(b"\0") and count == len(options) == len(values)
        self._log("cuModuleLoadDataEx")
        text = image[:-1].decode()
        log, log_size = values[0], values[1]
        # cuda-python converts the log buffer to char*: it must be bytes-like (an int raises there)
        assert isinstance(log, (bytes, bytearray)) and isinstance(log_size, int) and log_size <= len(log)
        if not self._is_ptx(text):
            message = b"ptxas fatal: not a PTX module\0"
            log[: len(message)] = message
            return (ERR.CUDA_ERROR_INVALID_PTX, None)
        return self._new_module(re.findall(r"\.entry (\w+)\(", text))

    def cuModuleLoadData(self, image: bytes):
        """A cubin of :meth:`cuLinkComplete` (checked: intact, for this GPU and driver) or PTX."""
        assert isinstance(image, bytes) and self.current_context is not None
        self._log("cuModuleLoadData")
        if not image.startswith(FAKE_CUBIN_MAGIC):
            if not image.endswith(b"\0") or not self._is_ptx(image[:-1].decode(errors="replace")):
                return (ERR.CUDA_ERROR_INVALID_IMAGE, None)
            return self._new_module(re.findall(r"\.entry (\w+)\(", image[:-1].decode()))
        parsed = parse_fake_cubin(image)
        if parsed is None:
            return (ERR.CUDA_ERROR_INVALID_IMAGE, None)
        arch, driver_version, entries = parsed
        if arch != self.arch or driver_version > self.driver_version:
            return (ERR.CUDA_ERROR_NO_BINARY_FOR_GPU, None)
        return self._new_module(entries)

    # the driver's JIT linker: PTX in, a cubin for the current context's GPU out
    def cuLinkCreate(self, count: int, options: list, values: list):
        assert isinstance(count, int) and count == len(options) == len(values)
        assert all(isinstance(o, real.CUjit_option) for o in options)
        if self.current_context is None:
            return (ERR.CUDA_ERROR_INVALID_CONTEXT, None)
        handle = next(self._ids)
        self.links[handle] = {"entries": [], "image": None}
        return (OK, real.CUlinkState(handle))

    def cuLinkAddData(self, state, kind, data, size, name, count, options, values):
        assert isinstance(state, real.CUlinkState) and isinstance(kind, real.CUjitInputType)
        assert isinstance(data, bytes) and size == len(data) and isinstance(name, bytes)
        assert count == len(options) == len(values)
        link = self.links.get(int(state))
        if link is None or link["image"] is not None:
            return (ERR.CUDA_ERROR_INVALID_HANDLE,)
        if kind != real.CUjitInputType.CU_JIT_INPUT_PTX or not data.endswith(b"\0"):
            return (ERR.CUDA_ERROR_INVALID_VALUE,)
        text = data[:-1].decode(errors="replace")
        if not self._is_ptx(text):
            return (ERR.CUDA_ERROR_INVALID_PTX,)
        link["entries"] += re.findall(r"\.entry (\w+)\(", text)
        return (OK,)

    def cuLinkComplete(self, state):
        """``(CUresult, address, size)``: the image lives in the link state until cuLinkDestroy."""
        assert isinstance(state, real.CUlinkState)
        self._log("cuLinkComplete")
        link = self.links.get(int(state))
        if link is None:
            return (ERR.CUDA_ERROR_INVALID_HANDLE, None, None)
        if not link["entries"]:
            return (ERR.CUDA_ERROR_INVALID_VALUE, None, None)
        blob = make_fake_cubin(self.arch, self.driver_version, link["entries"])
        link["image"] = ctypes.create_string_buffer(blob, len(blob))
        return (OK, ctypes.addressof(link["image"]), len(blob))

    def cuLinkDestroy(self, state):
        assert isinstance(state, real.CUlinkState)
        link = self.links.pop(int(state), None)
        if link is None:
            return (ERR.CUDA_ERROR_INVALID_HANDLE,)
        if link["image"] is not None:  # what a late reader of the image would find
            ctypes.memset(link["image"], 0, len(link["image"]))
        return (OK,)

    def cuModuleGetFunction(self, module: Any, name: bytes):
        symbol = name.decode()
        if symbol not in self.modules.get(int(module), []):
            return (ERR.CUDA_ERROR_NOT_FOUND, None)
        handle = next(self._ids)
        self.functions[handle] = symbol
        return (OK, real.CUfunction(handle))

    def cuModuleUnload(self, module: Any):
        if self._capture_unsafe("cuModuleUnload", violation=True):
            return (ERR.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,)
        self.modules.pop(int(module), None)
        return (OK,)

    def cuLaunchKernel(self, f, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        assert isinstance(f, real.CUfunction) and isinstance(stream, real.CUstream)
        assert int(stream) not in self.destroyed_streams, f"launch on destroyed stream {int(stream)}"
        assert params in (0, None) and isinstance(extra, int)
        assert 1 <= gx < 2**31 and gy == gz == 1 and 1 <= bx <= 1024 and by == bz == 1
        words = (ctypes.c_void_p * 5).from_address(extra)
        assert words[0] == 1 and words[2] == 2 and not words[4]  # BUFFER_POINTER, BUFFER_SIZE, END
        size = ctypes.c_size_t.from_address(words[3]).value
        args = ctypes.string_at(words[1], size)
        symbol = self.functions[int(f)]
        dims = [int.from_bytes(args[8 * k : 8 * k + 8], "little", signed=True) for k in range(4)]
        n = dims[0] * dims[1] * dims[2] * dims[3]
        # no block without work; a smaller grid is fine: the entry's grid-stride loop covers the
        # rest on a GPU (tests/cuda/grid_emulator.py runs the entry's code for a given grid)
        assert gx <= max(1, -(-n // bx)), "more blocks than the launch needs"
        self.launches.append({"symbol": symbol, "grid": gx, "block": bx, "n": n, "args": args})
        entry = self.resolve_entry(symbol)
        self._check_arguments(symbol, args)

        def op() -> None:
            with self.arena.opened():
                entry(args, 0, n)

        return self._run(stream, op)

    def _check_arguments(self, symbol: str, args: bytes) -> None:
        """Every array argument's data (and gradient) pointer is null or device-accessible memory:
        a live device allocation or pinned host memory, never pageable host memory (an adjoint
        argument's gradient field may hold the retain mark instead)."""
        params = self.entry_params(symbol) if self.entry_params is not None else None
        if params is None:
            return
        for index, (t, slot) in enumerate(zip(params, param_layout(params))):
            if not isinstance(t, ArrayType):
                continue
            shape = struct.unpack_from(f"<{t.ndim}i", args, slot.offset + 16)
            if 0 in shape:
                continue  # an empty array's pointer is never used
            for what, offset in (("data", 0), ("grad", 8)):
                ptr = int.from_bytes(args[slot.offset + offset : slot.offset + offset + 8], "little")
                if what == "grad" and ptr == ADJOINT_RETAIN_MARK:
                    continue  # an adjoint argument's mark (never dereferenced), not an address
                if ptr and self.allocation_of(ptr) is None:
                    where = "freed device memory" if self.arena.contains(ptr) else "host memory"
                    raise AssertionError(
                        f"kernel {symbol}: array argument {index} has its {what} pointer {ptr:#x} in "
                        f"{where}, which the device cannot access"
                    )
