"""The API reference names every public name (docs/api.rst, built by Sphinx in CI
with warnings as errors), and every guide is in the docs site's table of contents."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
pytestmark = pytest.mark.skipif(not (DOCS / "api.rst").exists(),
                                reason="needs the docs folder (the source tree or the sdist)")

PUBLIC = {
    "brett": None, "brett.ai": None, "brett.records": None,
    "brett.records.json": ["iter_json", "json_texts"],  # the rest from brett.records
    "brett.records.sgf": None, "brett.records.ggf": None, "brett.records.wthor": None,
    "brett.records.obf": None, "brett.records.positions": None,
    "brett.records.transcript": None,
    "brett.records.result": ["check_result", "komi", "recorded_result"],
    "brett.render": None,
    "brett.reversi": ["ReversiMove", "ReversiEffects"], "brett.focus": ["FocusMove",
                                                                         "FocusEffects"],
    "brett.phutball": ["PhutballMove", "PhutballEffects"],
    "brett.schuft": ["SchuftMove", "Roll", "SchuftEffects"],
    "brett.frontends.sessions": ["Hub", "Session", "Limits", "LOCAL"],
    "brett.frontends.stdio": None, "brett.frontends.webserver": ["WebServer"],
    "brett.vector": None, "brett.pettingzoo": None, "brett.gymnasium": None,
    "brett.openspiel": None,
}
"""Each module's public names (None: its ``__all__``)."""


def _documented() -> set[str]:
    text = (DOCS / "api.rst").read_text()
    names = set(re.findall(r"^\.\. auto\w+:: ([\w.]+)", text, re.MULTILINE))
    return names | {f"brett.{n}" for n in names if not n.startswith("brett.")}


@pytest.mark.parametrize("module", sorted(PUBLIC))
def test_every_public_name_is_in_the_api_reference(module: str) -> None:
    names = PUBLIC[module] or importlib.import_module(module).__all__
    documented = _documented()
    where = "brett" if module == "brett" else module
    missing = [n for n in names if n != "__version__" and f"{where}.{n}" not in documented
               and f"brett.{n}" not in documented]
    assert missing == [], f"{module}: {missing} are not in docs/api.rst"


def test_every_guide_is_in_the_table_of_contents() -> None:
    index = (DOCS / "index.md").read_text()
    pages = {p.relative_to(DOCS).with_suffix("").as_posix()
             for p in DOCS.rglob("*.md") if p.name != "index.md"}
    listed = set(re.findall(r"^([\w/]+)$", index, re.MULTILINE))
    assert pages <= listed, sorted(pages - listed)


DOCS_SITE = "https://brett.readthedocs.io/en/latest/"
"""Where the docs site is built (.readthedocs.yaml); the README, shown on PyPI, links there."""


def test_the_readmes_links_work_on_pypi() -> None:
    """No relative link (PyPI shows the README alone); every link into the docs site
    names a page the site is built from, and an anchor a heading of that page."""
    readme = (DOCS.parent / "README.md").read_text()
    links = re.findall(r"\]\(([^)]*)\)", readme)
    assert links and all(link.startswith("https://") for link in links), \
        [link for link in links if not link.startswith("https://")]
    for link in links:
        if not link.startswith(DOCS_SITE):
            continue
        path, _, anchor = link[len(DOCS_SITE):].partition("#")
        if path.startswith("_images/"):
            name = path[len("_images/"):]
            assert (DOCS / name).exists() and any(name in p.read_text()
                                                  for p in DOCS.glob("*.md")), link
            continue
        page = DOCS / path.replace(".html", ".md")
        assert page.exists(), link
        if anchor:
            headings = {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-")
                        for h in re.findall(r"^#+ (.+)$", page.read_text(), re.MULTILINE)}
            assert anchor in headings, (link, sorted(headings))
