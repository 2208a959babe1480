"""Build the site and screenshot every reproduction page and figure, as a reader sees them.

```text
python docs/screenshots.py [--out DIR] [--width 1400] [--pages NAME ...]
```

Builds the documentation (`mkdocs build --strict`) into a temporary folder, serves it on
a local port, and takes with a headless Chromium (Debian's `chromium`, or `$CHROMIUM`):

- `NAME-first-screen.png`: the first screen of each reproduction page, `--width` by
  900 px (what a reader sees before scrolling: it must say which claims hold);
- `NAME-page.png`: the whole page, `--width` px wide (cut at `--height`, 16,000 px);
- `figure-FILE.png`: each figure of `docs/reproductions/` alone, at the width the page
  shows it;
- a line per table wider than the text column at `--width` (with every collapsible block
  open), with its header: a table a reader must scroll sideways to read. It exits 1 if
  there is one.

Look at them (any image viewer) before regenerating a page, and after. Without a
Chromium it says so and exits 2; nothing here runs in CI.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import html
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = ("index", "pgs", "preemptive", "deferment", "frequency", "multisite")
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--hide-scrollbars", "--force-device-scale-factor=1",
)  # fmt: skip


def _chromium() -> str | None:
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


@contextlib.contextmanager
def _served(folder: Path) -> Iterator[str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            return

    handler = functools.partial(Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def _shot(chromium: str, url: str, target: Path, width: int, height: int, profile: Path) -> None:
    subprocess.run(
        [
            chromium,
            *FLAGS,
            f"--user-data-dir={profile}",
            f"--window-size={width},{height}",
            f"--screenshot={target}",
            url,
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )


WIDE_TABLES = """<script>
window.addEventListener("load", function () {
  document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  setTimeout(function () {
    var wide = [];
    document.querySelectorAll("article table").forEach(function (t) {
      var box = t.closest(".md-typeset__scrollwrap") || t.parentElement;
      if (t.scrollWidth > box.clientWidth + 2) {
        var head = Array.from(t.querySelectorAll("th")).map(function (x) {
          return x.textContent.trim(); }).join(" | ");
        wide.push(t.scrollWidth + " px in " + box.clientWidth + " px: " + head);
      }
    });
    var out = document.createElement("pre");
    out.id = "wide-tables";
    out.textContent = JSON.stringify(wide);
    document.body.appendChild(out);
  }, 300);
});
</script></body>"""


def wide_tables(
    chromium: str, site: Path, base: str, name: str, width: int, profile: Path
) -> list[str]:
    """The tables of a built page wider than their column at `width` px (every
    collapsible block open), each as `"W px in C px: header | header ..."`."""  # fmt: skip
    page = site / "reproductions" / name / "index.html"
    probe = page.with_name("wide-tables.html")
    probe.write_text(page.read_text().replace("</body>", WIDE_TABLES))
    dom = subprocess.run(
        [chromium, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},900",
         "--virtual-time-budget=5000", "--dump-dom",
         f"{base}/reproductions/{name}/{probe.name}"],
        check=True, capture_output=True, text=True, timeout=120,
    ).stdout  # fmt: skip
    found = re.search(r'<pre id="wide-tables">(.*?)</pre>', dom, re.S)
    if found is None:
        raise RuntimeError(f"{name}: the table probe did not run")
    return list(json.loads(html.unescape(found.group(1))))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="screenshots", help="folder of the PNGs")
    parser.add_argument("--width", type=int, default=1400, help="window width in px")
    parser.add_argument("--height", type=int, default=16000, help="whole-page height in px")
    parser.add_argument("--pages", nargs="*", default=list(PAGES), choices=PAGES)
    args = parser.parse_args(argv)
    chromium = _chromium()
    if chromium is None:
        print("screenshots: no Chromium found (apt install chromium, or set $CHROMIUM)",
              file=sys.stderr)  # fmt: skip
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        site, profile = Path(work) / "site", Path(work) / "profile"
        subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir",
             str(site)], cwd=ROOT, check=True,
        )  # fmt: skip
        wide = []
        with _served(site) as base:
            for name in args.pages:
                url = f"{base}/reproductions/{'' if name == 'index' else name + '/'}"
                _shot(chromium, url, out / f"{name}-first-screen.png", args.width, 900, profile)
                _shot(chromium, url, out / f"{name}-page.png", args.width, args.height, profile)
                print(f"{name}: {out / name}-first-screen.png, -page.png", file=sys.stderr)
                if name != "index":
                    found = wide_tables(chromium, site, base, name, args.width, profile)
                    wide += [f"{name}: table {t}" for t in found]
            for figure in sorted((ROOT / "docs" / "reproductions").glob("*.png")):
                frame = Path(work) / "site" / f"figure-{figure.stem}.html"
                shutil.copy(figure, site / figure.name)
                frame.write_text(
                    f'<body style="margin:0"><img src="{figure.name}" style="width:690px"></body>'
                )
                target = out / f"figure-{figure.stem}.png"
                _shot(chromium, f"{base}/{frame.name}", target, 690, 1200, profile)
                print(f"figure: {target}", file=sys.stderr)
    for line in wide:
        print(line)
    print(f"tables wider than the column at {args.width} px: {len(wide)}", file=sys.stderr)
    return 1 if wide else 0


if __name__ == "__main__":
    sys.exit(main())
