"""Instrumented launches: kernels compiled in debug mode (an error record for out-of-bounds
accesses and failed ``assert``s, checked after the launch) and kernels that print (output flushed
around the launch), graph capture included (the checks and flushes then run at each replay).
"""

from __future__ import annotations

from typing import Any, Sequence

from warp.compiler.abi import decode_error_record
from warp.errors import SourceLoc
from warp.plugins import manager as _plugins
from warp.runtime.launch_args import ArgumentChecks


class InstrumentedLaunches(ArgumentChecks):
    """Launches with an error record and/or output flushing, and their errors (mixin of ``Launcher``)."""

    target: Any
    part: Any
    #: the part is compiled in debug mode (error record), and/or it prints
    debug: bool
    uses_print: bool
    #: the runners of the part's contiguous (or vector) and strided entries
    run_contiguous: Any
    run_strided: Any

    def launch_instrumented(
        self,
        args: Sequence[Any],
        dims: tuple[int, ...],
        n: int,
        stream: Any = None,
        scratch: int = 0,
        shape: Any = None,
    ) -> None:
        """Launch with an error record (debug mode) and/or output flushing (kernels that print)."""
        target, device = self.target, self.device
        if self.debug:
            _plugins.get_plugin_manager().hook.warp_check_launch(kernel=self.kernel, args=args, device=device)
        record = target.new_error_record(device) if self.debug else None
        buf, contiguous = self.pack_checked(args, dims, record.address if record is not None else 0, scratch)
        if n == 0:
            return
        capturing = target.is_capturing(device, stream)

        def at_replay(fn: Any) -> None:
            try:
                target.capture_host_callback(device, fn, stream)
            except NotImplementedError:  # the target's graphs cannot call Python
                pass

        if self.uses_print:
            target.flush_output(device)
            if capturing:
                at_replay(lambda: target.flush_output(device))
        (self.run_contiguous if contiguous else self.run_strided)(buf, n, stream, (args, record), shape)
        if self.uses_print:
            if capturing:
                at_replay(lambda: target.flush_output(device))
            else:
                target.flush_output(device)
        if record is None:
            return
        if capturing:  # each replay checks (and clears) the record after this launch
            at_replay(lambda: self.check_error_record(record))
            return
        target.synchronize(device)
        self.check_error_record(record)

    def check_error_record(self, record: Any) -> None:
        """Raise the ``IndexError`` (out-of-bounds access) or ``AssertionError`` (failed
        ``assert``) a debug launch recorded, if any (and clear the record)."""
        error = decode_error_record(record.read())
        if error is not None:
            record.reset()
            sites = self.part.sites
            info = sites[error.site] if 0 <= error.site < len(sites) else {}
            if info.get("kind") == "assert":
                raise self.assertion_error(info)
            raise self.index_error(error)

    def assertion_error(self, info: dict[str, Any]) -> AssertionError:
        """The ``AssertionError`` of a failed ``assert`` whose site is ``info``."""
        loc = SourceLoc(info.get("file", "?"), info.get("line", 0), info.get("text", ""))
        message = info.get("message", "")
        return AssertionError(
            f"Assertion failed in kernel '{self.kernel.name}' (function '{info.get('function', '?')}') "
            f"at {loc}: {loc.text}" + (f": {message}" if message else "")
        )

    def index_error(self, error: Any) -> IndexError:
        """The ``IndexError`` describing a decoded error record (:class:`warp.compiler.abi.ErrorRecord`)."""
        sites = self.part.sites
        info = sites[error.site] if 0 <= error.site < len(sites) else {}
        loc = SourceLoc(info.get("file", "?"), info.get("line", 0), info.get("text", ""))
        idx = ", ".join(map(str, error.index))
        return IndexError(
            f"array index out of bounds in kernel '{self.kernel.name}' "
            f"(function '{info.get('function', '?')}') "
            f"at {loc}: index ({idx}) is out of range for array '{info.get('array', '?')}' with shape "
            f"{tuple(error.shape)}\n    {loc.text}"
        )
