"""The examples of docs/python.md: every ```python block, in order, in one namespace
(later blocks use what earlier ones define); each block asserts its own results, and
the printed output of the swizzle table is compared with the ```text block after it."""

from __future__ import annotations

import contextlib
import io
import re

from conftest import REPO

DOC = REPO / "docs" / "python.md"


def blocks() -> list[tuple[str, str]]:
    """(language, code) of every fenced block of the page, in order."""
    return re.findall(r"^```(\w*)\n(.*?)^```", DOC.read_text(), flags=re.S | re.M)


def test_every_python_block_runs_and_prints_what_the_page_shows():
    fenced = blocks()
    assert sum(lang == "python" for lang, _ in fenced) >= 5
    namespace: dict = {"__name__": "docs_python"}
    for i, (lang, code) in enumerate(fenced):
        if lang != "python":
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"{DOC}:block{i}", "exec"), namespace)
        # a block that prints is followed by a ```text block of what it prints
        printed = out.getvalue()
        if printed:
            lang_next, shown = fenced[i + 1]
            assert lang_next == "text", f"block {i} prints but no text block follows"
            assert printed == shown, f"block {i} printed:\n{printed}\nthe page shows:\n{shown}"
