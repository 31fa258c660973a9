"""One launch recorded by ``wp.Tape``, in the layout of NVIDIA Warp's ``Tape.launches``."""

from __future__ import annotations


class TapeLaunch(list):
    """A recorded launch, laid out as in NVIDIA Warp's ``Tape.launches``:
    ``[kernel, dim, max_blocks, inputs, outputs, device, block_dim, metadata]``. The adjoint runs
    with the entry's launch shape (``max_blocks``, ``block_dim``), so changing them changes it."""

    kernel = property(lambda self: self[0])
    dim = property(lambda self: self[1])
    max_blocks = property(lambda self: self[2])
    inputs = property(lambda self: self[3])
    outputs = property(lambda self: self[4])
    device = property(lambda self: self[5])
    block_dim = property(lambda self: self[6])
    metadata = property(lambda self: self[7])
