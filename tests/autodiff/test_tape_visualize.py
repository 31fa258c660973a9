"""``Tape.visualize``: the recorded launches as GraphViz DOT text."""

import re

import warp as wp


@wp.kernel
def _dot(x: wp.array(dtype=float), y: wp.array(dtype=float), z: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(z, 0, x[i] * y[i])


@wp.kernel
def _double(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 2.0 * x[i]


def _record():
    x = wp.ones(4, dtype=float, requires_grad=True)
    y = wp.ones(4, dtype=float, requires_grad=True)
    z = wp.zeros(1, dtype=float, requires_grad=True)
    w = wp.zeros(4, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        tape.record_scope_begin("my loop")
        for _ in range(5):
            wp.launch(_dot, dim=4, inputs=[x, y], outputs=[z])
        tape.record_scope_end()
        wp.launch(_double, dim=4, inputs=[x], outputs=[w])
    return tape, (x, y, z, w)


def test_repeated_launches_merge_and_scopes_are_clusters(tmp_path):
    tape, (x, y, z, w) = _record()
    path = tmp_path / "tape.dot"
    dot = tape.visualize(str(path), simplify_graph=True, array_labels={z: "loss"})
    assert path.read_text() == dot
    assert dot.startswith("digraph") and dot.rstrip().endswith("}")
    assert dot.count("_dot") == 1 and "repeated 5x" in dot
    assert 'subgraph cluster_0 {' in dot and 'label="my loop"' in dot
    assert '"loss"' in dot and 'tooltip="array: dtype=float32, shape=(4,)"' in dot
    # four arrays, two launch nodes; x feeds both launches, z and w are written
    assert len(re.findall(r"arr_\d+ \[", dot)) == 4
    assert len(re.findall(r"launch_\d+ \[", dot)) == 2
    assert f"arr_{id(x)} -> launch_0;" in dot and f"arr_{id(x)} -> launch_1;" in dot
    assert f"launch_0 -> arr_{id(z)};" in dot and f"launch_1 -> arr_{id(w)};" in dot


def test_unsimplified_graph_keeps_every_launch_and_can_hide_read_only_arrays():
    tape, (x, y, z, w) = _record()
    dot = tape.visualize(simplify_graph=False, hide_readonly_arrays=True, ignore_graph_scopes=True)
    assert dot.count("_dot") == 5 and "repeated" not in dot and "cluster" not in dot
    assert f"arr_{id(x)} [" not in dot and f"arr_{id(z)} [" in dot
