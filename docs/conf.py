"""Sphinx: the guides of docs/ (Markdown, through MyST) and the API reference from
the docstrings (autodoc).  Build: ``sphinx-build -W -b html docs build/docs`` (the
``docs`` extra; .ci/run builds it with warnings as errors)."""

import brett

project = "brett"
author = "The brett developers"
copyright = "the brett developers, MIT license"
version = release = brett.__version__

extensions = ["myst_parser", "sphinx.ext.autodoc"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
root_doc = "index"

html_theme = "furo"
html_title = f"brett {release}"

autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_typehints = "description"
myst_heading_anchors = 3   # links such as protocol.md#security-of-a-local-server
