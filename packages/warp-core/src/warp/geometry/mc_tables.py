"""Marching-cubes lookup tables, derived here from the cube's topology rather than typed in.

Corners are numbered as in the classic tables: 0 (0,0,0), 1 (1,0,0), 2 (1,1,0), 3 (0,1,0), 4 (0,0,1),
5 (1,0,1), 6 (1,1,1), 7 (0,1,1); edge ``e`` joins the corners ``EDGE_TO_CORNERS[e]``. Bit ``c`` of a
cell's case is set when corner ``c`` is *inside* (its value is below the threshold).

For each case, the surface crosses every edge joining an inside and an outside corner. On each
face of the cube the crossings are joined in pairs by segments that cut the face's inside corners
off from its outside ones; a face with two diagonal inside corners (the ambiguous face) cuts each
inside corner off on its own. That choice depends only on the face's four corners, so the two
cells sharing a face agree on it and the surface is closed. The segments form closed loops on the
cube's surface; each loop is a polygon, triangulated as a fan. Segments are directed so that every
triangle's normal (right-handed) points from the inside to the outside.
"""

from __future__ import annotations

CUBE_CORNER_OFFSETS: tuple[tuple[int, int, int], ...] = (
    (0, 0, 0),
    (1, 0, 0),
    (1, 1, 0),
    (0, 1, 0),
    (0, 0, 1),
    (1, 0, 1),
    (1, 1, 1),
    (0, 1, 1),
)
EDGE_TO_CORNERS: tuple[tuple[int, int], ...] = (
    (0, 1),
    (1, 2),
    (2, 3),
    (3, 0),
    (4, 5),
    (5, 6),
    (6, 7),
    (7, 4),
    (0, 4),
    (1, 5),
    (2, 6),
    (3, 7),
)


def _faces() -> list[tuple[int, int, int, int]]:
    """The 6 faces as corner cycles ordered counter-clockwise seen from outside the cube."""
    faces = []
    for axis in range(3):
        for side in (0, 1):
            corners = [c for c, o in enumerate(CUBE_CORNER_OFFSETS) if o[axis] == side]
            u, v = (axis + 1) % 3, (axis + 2) % 3
            # counter-clockwise in the (u, v) plane, whose normal is +axis
            ring = sorted(
                corners,
                key=lambda c: {(0, 0): 0, (1, 0): 1, (1, 1): 2, (0, 1): 3}[
                    (CUBE_CORNER_OFFSETS[c][u], CUBE_CORNER_OFFSETS[c][v])
                ],
            )
            faces.append(tuple(ring if side == 1 else ring[::-1]))
    return faces  # type: ignore[return-value]


def _edge(a: int, b: int) -> int:
    return EDGE_TO_CORNERS.index((a, b)) if (a, b) in EDGE_TO_CORNERS else EDGE_TO_CORNERS.index((b, a))


def case_polygons(case: int) -> list[list[int]]:
    """The surface polygons (cycles of edge numbers, oriented inside -> outside) of one case."""
    inside = [(case >> c) & 1 == 1 for c in range(8)]
    succ: dict[int, int] = {}
    for ring in _faces():
        crossings = []  # (position along the ring, edge, entering the inside region?)
        for k in range(4):
            a, b = ring[k], ring[(k + 1) % 4]
            if inside[a] != inside[b]:
                crossings.append((k, _edge(a, b), inside[b]))
        # going counter-clockwise, each inside arc runs from an entering crossing to the next
        # leaving one; the segment closing it goes from the leaving crossing back to the entering
        for i, (_, edge, entering) in enumerate(crossings):
            if entering:
                leaving = crossings[(i + 1) % len(crossings)][1]
                succ[edge] = leaving
    polygons = []
    seen: set[int] = set()
    for start in sorted(succ):
        if start in seen:
            continue
        loop = [start]
        seen.add(start)
        nxt = succ[start]
        while nxt != start:
            loop.append(nxt)
            seen.add(nxt)
            nxt = succ[nxt]
        polygons.append(loop)
    return polygons


def _build() -> tuple[tuple[int, ...], tuple[int, ...]]:
    ranges = [0]
    indices: list[int] = []
    for case in range(256):
        for loop in case_polygons(case):
            for k in range(1, len(loop) - 1):
                indices.extend((loop[0], loop[k], loop[k + 1]))
        ranges.append(len(indices) // 3)
    return tuple(ranges), tuple(indices)


#: triangles of case ``c`` are ``CASE_TO_TRI_RANGE[c]`` to ``CASE_TO_TRI_RANGE[c + 1]`` (exclusive)
#: in ``TRI_LOCAL_INDICES``, which holds three edge numbers per triangle
CASE_TO_TRI_RANGE, TRI_LOCAL_INDICES = _build()
