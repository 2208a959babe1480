"""Check the built reproduction pages for text that Markdown broke: run after `mkdocs build`.

```text
python docs/check_built_pages.py SITE_DIR
```

A generated value's marker (`<!-- gen:KEY -->`) at the start of a line inside a
paragraph or a list item is read by Markdown as the start of an HTML block: the
paragraph ends there, mid-sentence, and the rest of it is printed as raw text (a list
item's dash as a literal dash). The page generator keeps such markers inline
(`schedlib.experiments.pages.fill`); this script checks the result as a reader gets it,
in the HTML of every page under `reproductions/`:

- no text outside a paragraph, list item, table cell, heading or other text element;
- no paragraph that starts with a literal list dash (`- ` or `* `);
- no paragraph that ends mid-sentence right before a generated value.

It prints one line per problem (page, what, the text) and exits 1 if there is any,
0 otherwise; `.ci/run` runs it on the site it builds.
"""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path

TEXT_ELEMENTS = frozenset(
    {"p", "li", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "code", "summary",
     "figcaption", "dt", "dd", "caption", "label", "button", "a", "span", "em", "strong",
     "script", "style", "title", "option", "svg", "math"}
)  # fmt: skip
"""Elements whose text is where text belongs (inline elements count: they sit in one)."""
VOID = frozenset({"br", "hr", "img", "input", "meta", "link", "source", "wbr", "col", "area"})
SENTENCE_ENDS = tuple(".:;?!)]}'\"`>|*")


class _PageParser(HTMLParser):
    """Collects the problems of one page's article."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []  # (tag, holds text legitimately)
        self.in_article = 0
        self.problems: list[str] = []
        self.paragraph: list[str] | None = None
        self.last_paragraph = ""
        self.after_paragraph = False
        self.open_gen: int | None = None  # the depth at which a generated value began

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = dict(attrs).get("class") or ""
        if tag == "article":
            self.in_article += 1
        if tag in VOID:
            return
        legit = (
            tag in TEXT_ELEMENTS
            or "arithmatex" in classes
            or (bool(self.stack) and self.stack[-1][1])
        )
        self.stack.append((tag, legit))
        if tag in ("p", "li"):
            self.paragraph = []
        self.after_paragraph = False

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if self.open_gen is not None and len(self.stack) <= self.open_gen and self.paragraph:
            text = " ".join("".join(self.paragraph).split())
            self.problems.append(
                f"a paragraph ends mid-sentence before a generated value: {text[-80:]!r}"
            )
            self.open_gen = None
        while self.stack:
            open_tag, _ = self.stack.pop()
            if open_tag == tag:
                break
        if tag in ("p", "li") and self.paragraph is not None:
            text = " ".join("".join(self.paragraph).split())
            if self.in_article and tag == "p" and text.startswith(("- ", "* ")):
                self.problems.append(f"a paragraph starts with a literal list dash: {text[:80]!r}")
            self.last_paragraph = text
            self.paragraph = None
            self.after_paragraph = True
        else:
            self.after_paragraph = False
        if tag == "article":
            self.in_article -= 1

    def handle_data(self, data: str) -> None:
        if self.paragraph is not None:
            self.paragraph.append(data)
        if not self.in_article or not data.strip():
            return
        if not (self.stack and self.stack[-1][1]):
            self.problems.append(f"text outside a paragraph: {' '.join(data.split())[:80]!r}")

    def handle_comment(self, data: str) -> None:
        if not self.in_article:
            return
        if data.strip() == "/gen":
            self.open_gen = None
            self.after_paragraph = False
            return
        if not data.strip().startswith("gen:"):
            self.after_paragraph = False
            return
        self.open_gen = len(self.stack)
        if (
            self.after_paragraph
            and self.last_paragraph
            and not self.last_paragraph.endswith(SENTENCE_ENDS)
        ):
            self.problems.append(
                f"a paragraph ends mid-sentence before a generated value: "
                f"{self.last_paragraph[-80:]!r}"
            )
        self.after_paragraph = False


def problems(html: str) -> list[str]:
    """What Markdown broke in one built page (an empty list when nothing).

    Examples
    --------
    >>> problems("<article><p>The gap is about</p>\\n<!-- gen:gap -->1.375<!-- /gen -->"
    ...          " s per job.</article>")  # doctest: +NORMALIZE_WHITESPACE
    ["a paragraph ends mid-sentence before a generated value: 'The gap is about'",
     "text outside a paragraph: '1.375'", "text outside a paragraph: 's per job.'"]
    >>> problems("<article><ul><li>the gap is about\\n<!-- gen:gap --></li></ul>"
    ...          "<p>1.375 s per job.</p></article>")
    ["a paragraph ends mid-sentence before a generated value: 'the gap is about'"]
    >>> problems("<article><p>- **Random starting phases** per replicate.</p></article>")
    ["a paragraph starts with a literal list dash: '- **Random starting phases** per replicate.'"]
    >>> problems("<article><p>The gap is about <!-- gen:gap -->1.375<!-- /gen --> s.</p>"
    ...          "<ul><li>a</li></ul></article>")
    []
    """
    parser = _PageParser()
    parser.feed(html)
    parser.close()
    return parser.problems


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python docs/check_built_pages.py SITE_DIR", file=sys.stderr)
        return 2
    pages = sorted(Path(args[0]).glob("reproductions/**/index.html"))
    if not pages:
        print(f"check_built_pages: no reproduction page under {args[0]}", file=sys.stderr)
        return 2
    found = 0
    for page in pages:
        for problem in problems(page.read_text(encoding="utf-8")):
            print(f"{page.relative_to(args[0])}: {problem}")
            found += 1
    print(f"check_built_pages: {len(pages)} pages, {found} problems", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
