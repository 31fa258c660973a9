"""Host-side recording of device work for graph capture (``wp.capture_begin`` ... ``capture_end``).

A :class:`CommandRecorder` holds the :class:`~warp.targets.base.CommandList` of each
active capture, keyed by the capturing thread and the device: while a thread captures on a device,
the target appends the work that thread issues there (launches, copies, memsets, fills) to the
list instead of running it. Work issued by other threads runs as usual. Replaying runs the
recorded commands in order; a graph replayed while another capture is active is recorded into it
as a single command.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from warp.targets.base import Command, CommandList


def _device_key(device: Any) -> str:
    return getattr(device, "alias", str(device))


class CommandRecorder:
    """Active captures by (thread, device); see the module docstring."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        #: (thread id, device alias) -> commands being recorded; empty when nothing is captured
        self.active: dict[tuple[int, str], CommandList] = {}

    def current(self, device: Any) -> CommandList | None:
        """The list the calling thread records into on ``device``, or None."""
        if not self.active:
            return None
        return self.active.get((threading.get_ident(), _device_key(device)))

    def begin(self, device: Any, commands: CommandList | None = None) -> None:
        """Start recording the calling thread's work on ``device`` (into ``commands`` to resume)."""
        key = (threading.get_ident(), _device_key(device))
        with self._lock:
            if key in self.active:
                raise RuntimeError(f"a graph capture is already active on device '{device}' in this thread")
            self.active[key] = commands if commands is not None else CommandList(device)

    def end(self, device: Any) -> CommandList:
        """Stop recording on ``device`` and return the recorded commands."""
        key = (threading.get_ident(), _device_key(device))
        with self._lock:
            commands = self.active.pop(key, None)
        if commands is None:
            raise RuntimeError(f"no graph capture is active on device '{device}' in this thread")
        return commands

    def record(
        self, device: Any, kind: str, run: Callable[[], object], keep: Any = None, description: str = ""
    ) -> bool:
        """Append a command if the calling thread captures on ``device``; False when it does not."""
        commands = self.current(device)
        if commands is None:
            return False
        kept = (keep,) if keep is not None else ()
        commands.commands.append(Command(kind, run, keep=kept, description=description))
        return True

    def replay(self, commands: CommandList) -> None:
        """Run ``commands`` now, or record them as one command into the caller's active capture."""
        if self.record(commands.device, "graph", lambda: self._run(commands), keep=commands):
            return
        self._run(commands)

    @staticmethod
    def _run(commands: CommandList) -> None:
        for command in commands.commands:
            command.run()
