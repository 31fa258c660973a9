"""``wp.utils.segmented_sort_pairs`` in kernels on the arrays' device (part of the
``warp_device_array_utils`` hook, :class:`warp.plugins.array_utils.DeviceArrayUtils`).

Nothing is read back to the host, so graph capture records it; the segment indices are read on
the device only. The pairs are sorted by (segment, key) with the device radix sort of
:mod:`warp_builtins.device_sort`, then moved back into their segments:

1. every valid segment ``i`` (within ``[0, count]``, not ending before it starts; any other is
   empty, as NVIDIA Warp's CUDA sort treats it) adds
   ``i + 1`` at its start and subtracts it at its end, and adds 1 / subtracts 1 likewise for its
   cover; inclusive scans give every position the sum of the labels and the number of the
   segments covering it. A position covered by exactly one segment gets that segment's label
   ``i + 1``, any other (outside every segment, or in an overlap) label 0;
2. every key becomes an unsigned number ordering as NumPy's sort orders the keys (int32: sign bit
   flipped; float32: -0.0 as +0.0, every NaN as one NaN after +inf, then IEEE order), 0 for pairs
   of label 0 (so those stay in position order);
3. the positions are sorted stably by that number (eight 4-bit passes), then stably by label:
   by (label, key). The positions sorted by label alone list, for every label, its positions in
   increasing order: the ``j``-th pair of the first order moves to the ``j``-th position of the
   second. Label 0 pairs thus keep their place, the pairs of a segment fill its positions in key
   order.

Label bits are those of the number of segments (4 per pass), known on the host.
"""

from __future__ import annotations

from typing import Any

import warp as wp
from warp_builtins import device_sort

#: the int32 sign bit, as a signed value
_SIGN = -(2**31)


@wp.kernel(enable_backward=False)
def _mark_segments(
    starts: wp.array(dtype=wp.int32),
    ends: wp.array(dtype=wp.int32),
    count: int,
    labels: wp.array(dtype=wp.int32),
    cover: wp.array(dtype=wp.int32),
):
    i = wp.tid()
    s = starts[i]
    e = ends[i]
    if s >= 0 and e <= count and s < e:  # an invalid segment is empty
        wp.atomic_add(labels, s, i + 1)
        wp.atomic_add(labels, e, -(i + 1))
        wp.atomic_add(cover, s, 1)
        wp.atomic_add(cover, e, -1)


@wp.kernel(enable_backward=False)
def _sort_keys(
    bits: wp.array(dtype=wp.int32),
    kind: int,
    sign: wp.int32,
    label_sums: wp.array(dtype=wp.int32),
    cover: wp.array(dtype=wp.int32),
    labels: wp.array(dtype=wp.int32),
    ordered: wp.array(dtype=wp.int32),
    positions: wp.array(dtype=wp.int32),
):
    p = wp.tid()
    label = int(0)
    if cover[p] == 1:
        label = label_sums[p]
    m = int(0)
    if label != 0:
        b = bits[p]
        if kind == device_sort.KEY_FLOAT:
            magnitude = b & 2147483647
            if magnitude == 0:
                b = 0  # -0.0 sorts as +0.0
            elif magnitude > 2139095040:
                b = 2143289344  # every NaN as the positive quiet NaN, after +inf
        m = device_sort.radix_key(b, kind, sign)
    labels[p] = label
    ordered[p] = m
    positions[p] = p


@wp.kernel(enable_backward=False)
def _move_pairs(
    keys: wp.array(dtype=wp.int32),
    values: wp.array(dtype=wp.int32),
    sources: wp.array(dtype=wp.int32),
    targets: wp.array(dtype=wp.int32),
    moved_keys: wp.array(dtype=wp.int32),
    moved_values: wp.array(dtype=wp.int32),
):
    j = wp.tid()
    s = sources[j]
    t = targets[j]
    moved_keys[t] = keys[s]
    moved_values[t] = values[s]


@wp.kernel(enable_backward=False)
def _copy_pairs(
    moved_keys: wp.array(dtype=wp.int32),
    moved_values: wp.array(dtype=wp.int32),
    keys: wp.array(dtype=wp.int32),
    values: wp.array(dtype=wp.int32),
):
    i = wp.tid()
    keys[i] = moved_keys[i]
    values[i] = moved_values[i]


def _labels(starts: Any, ends: Any, count: int) -> tuple[Any, Any]:
    """Per position of ``[0, count)``: the sum of the labels (segment index + 1) and the number
    of the segments covering it (two int32 device arrays of ``count + 1`` elements)."""
    device = starts.device
    label_sums = wp.zeros(count + 1, dtype=wp.int32, device=device)
    cover = wp.zeros(count + 1, dtype=wp.int32, device=device)
    inputs = [starts, ends, count, label_sums, cover]
    wp.launch(_mark_segments, dim=starts.size, inputs=inputs, device=device, record_tape=False)
    device_sort.scan(label_sums, label_sums, count, inclusive=True)
    device_sort.scan(cover, cover, count, inclusive=True)
    return label_sums, cover


def segmented_sort_pairs(keys: Any, values: Any, count: int, segment_starts: Any, segment_ends: Any) -> bool:
    """Stable sort of the int32/float32 keys (int32 values) inside every segment, in place, in
    kernels; invalid segments are empty, pairs in overlaps or outside keep their place."""
    if keys.dtype not in (wp.int32, wp.float32) or values.dtype is not wp.int32:
        return False
    segments = segment_starts.size
    if count == 0 or segments == 0:
        return True
    device = keys.device
    label_sums, cover = _labels(segment_starts, segment_ends, count)
    labels, ordered, positions = (wp.empty(count, dtype=wp.int32, device=device) for _ in range(3))
    bits = keys.view(wp.int32)
    kind = device_sort.KEY_FLOAT if keys.dtype is wp.float32 else device_sort.KEY_SIGNED
    inputs = [bits, kind, wp.int32(_SIGN), label_sums, cover, labels, ordered, positions]
    wp.launch(_sort_keys, dim=count, inputs=inputs, device=device, record_tape=False)
    label_bits = segments.bit_length()
    by_key = device_sort.radix_sort_pairs(ordered, positions, count, key_bits=32)[1]
    labels_by_key = wp.empty(count, dtype=wp.int32, device=device)
    device_sort.gather(labels, by_key, labels_by_key, count)
    sources = device_sort.radix_sort_pairs(labels_by_key, by_key, count, key_bits=label_bits)[1]
    targets = device_sort.radix_sort_pairs(labels, positions, count, key_bits=label_bits)[1]
    moved_keys = wp.empty(count, dtype=wp.int32, device=device)
    moved_values = wp.empty(count, dtype=wp.int32, device=device)
    inputs = [bits, values, sources, targets, moved_keys, moved_values]
    wp.launch(_move_pairs, dim=count, inputs=inputs, device=device, record_tape=False)
    inputs = [moved_keys, moved_values, bits, values]
    wp.launch(_copy_pairs, dim=count, inputs=inputs, device=device, record_tape=False)
    return True
