"""The user documentation agrees with the repository: every example is in the gallery with its
picture, and no page tells users to install a package under a name no index has."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GALLERY = ROOT / "docs" / "examples.md"


def test_every_example_is_in_the_gallery_with_its_picture():
    text = GALLERY.read_text(encoding="utf-8")
    examples = sorted(p.stem for p in (ROOT / "examples").glob("*.py") if p.stem != "png")
    assert examples, "no examples found"
    for name in examples:
        assert f"python examples/{name}.py" in text, f"docs/examples.md lacks the command of {name}.py"
        assert f"](images/{name}.png)" in text, f"docs/examples.md lacks the picture of {name}.py"
    for image in re.findall(r"\]\((images/[^)]+)\)", text):
        path = ROOT / "docs" / image
        assert path.is_file(), f"docs/examples.md shows {image}, which does not exist"
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert path.stat().st_size < 100_000, f"{image} is large; render it smaller"


#: ``pip install`` of a name that exists only in this checkout (these are not on a package index)
_INDEX_ONLY = re.compile(
    r"pip install\s+(?:-{1,2}\S+\s+)*[\"']?warp-(?:core|builtins|autodiff|geometry|interop|suite)\b"
)


def test_no_page_installs_a_package_from_an_index_that_does_not_have_it():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    pages += sorted(ROOT.glob("packages/*/README.md"))
    offenders = []
    for page in pages:
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if _INDEX_ONLY.search(line):
                offenders.append(f"{page.relative_to(ROOT)}:{number}: {line.strip()}")
    how = 'install from the checkout instead (pip install ".[extra]" or "./packages/NAME")'
    assert not offenders, how + ":\n" + "\n".join(offenders)
