"""Which trace a run used: its path, its sha256, and whether that is the file it claims to be.

A run's results depend on every byte of its trace, so `schedlib run` and
`compare` print the trace's path and sha256 and check them against what is
known of the file:

- the sha256 of the Parallel Workloads Archive's own files that schedlib knows
  ([`KNOWN_TRACES`][schedlib.workloads.provenance.KNOWN_TRACES]: the cleaned
  logs, compressed and not), and of the slices embedded in the package;
- a provenance file beside the trace (a `README.md` in its folder, like the
  one of this project's `traces/` folder) whose line naming the file gives its
  sha256.

A file whose name is known but whose bytes are not is reported as such (a
modified or different version: results will not match published ones); a file
nothing is known about gets its sha256 printed and no verdict.

Examples
--------
>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> trace = folder / "KTH-SP2-1996-2.1-cln.swf"
>>> _ = trace.write_text("; a different file\\n")
>>> found = identify(trace)
>>> found.verdict, found.warning() is not None
('differs', True)
>>> print(found.line().split(": ", 1)[1])
differs from the known Parallel Workloads Archive file KTH-SP2-1996-2.1-cln.swf (sha256 fba36494...)
>>> mine = folder / "mine.swf"
>>> _ = mine.write_text("; mine\\n")
>>> identify(mine).verdict
'unknown'
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

import attrs

__all__ = ["KNOWN_TRACES", "TraceIdentity", "identify", "sha256_of"]

_PWA = "the known Parallel Workloads Archive file"

KNOWN_TRACES: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "CTC-SP2-1996-3.1-cln.swf": (
            "9fa28ac16c4386fb81b72a91d8bd8888281df2948a9d912769d387c5ee285bb4",
            "8e33a9b597e1ddda2d2164347bac08c9444e1a2620a7947df52f0a1622ec4cde",
        ),
        "SDSC-SP2-1998-4.2-cln.swf": (
            "e03fe48be50c4ab04d6bb2285296d9c3399e9c1f27ee79b754ad32a14abd9bac",
            "2bb635f4b5793f52bd49ccb8fd913d95f9c5be6346925162cadcaf0117e28cf2",
        ),
        "KTH-SP2-1996-2.1-cln.swf": (
            "3e152f201fd2e96808a735bced6ea6eb0bb07fdc447689cafb0750d87b264c0b",
            "fba36494c4e4257f72182e8b629ebb0bcb054b3b82851ef957445bd627adcc87",
        ),
        "LANL-CM5-1994-4.1-cln.swf": (
            "71ff3dfa301b3ee1bd30ebc63c5363b5e8ec488e75f1f9398aa46d485ef23c3c",
            "4766a62dabcc7403ec0a55534aff297203e692ddbf6637bd40100a3800f6354a",
        ),
        "SDSC-BLUE-2000-4.2-cln.swf": (
            "9aab21f3cfa108f3ecefa52391b384d996dcf4216f920186f47a734646b2c658",
            "13892839f430583231a14bb811fd50a31b5b529eb37faacdbbefb71e73390e3e",
        ),
        "HPC2N-2002-2.2-cln.swf": (
            "3c534857d6065cfd9cc35aac8d064c9c17172be7acf336de835006f43a626e64",
            "77b8993c73ae438385f6c0015708251f52dc316267b03ac19a406fbea2802afa",
        ),
        "NASA-iPSC-1993-3.1-cln.swf": (
            "5589ae9b2fb78e3bf92de097497cf33a91607de1ad54563e43533f7827597f29",
            "9d997a2c20a7f7b0b6d81638d756ce8b2c524c4f2e9ec78da36001743ca33d76",
        ),
        "SDSC-Par-1996-3.1-cln.swf": (
            "cb1aab02b5e3c34659d1c1d6f73c002d415229c59f40c03fab4e20331abdaff7",
            "fcb46fa6462b7ac460963025749f604f28b2e813101edd082a720842e80a7aa8",
        ),
        "OSC-Clust-2000-3.1-cln.swf": (
            "f2d762130a55ab26cfedc37a9f4ab55923dd07bf185912ded67628f14dbf09ab",
            "0ed54b81ccb10b11fbead557af8a37dd135e07e27756f1016c80ebceb7c8f79a",
        ),
        "LLNL-Atlas-2006-2.1-cln.swf": (
            "48cc83b7a0490252aa1ae41a4b03dd598bc0683e146be94047febee36e7e0b36",
            "8b3aaab739fa0bda8abaccc37c207d0b19d9d147b19e7f47a1641133a56fd07f",
        ),
        "Sandia-Ross-2001-1.1-cln.swf": (
            "08b390c160c41c5d3a70d66c48884b5bb68aa277506988ccdc408913342b38df",
            "acee6b96aa76f815d9a6a81ee6d3e3026f462b6e0c340f9f4ef465e05b3c22b3",
        ),
        "SDSC-DS-2004-2.1-cln.swf": (
            "0ddb885a96a7f5ee9009d8a36ef350b1d1c451044c205811938995aac80fcc36",
            "76814a412fa415e68ffb8cc0ae801c870988e5577e60275588050332f6b1e690",
        ),
        "LLNL-Thunder-2007-1.1-cln.swf": (
            "00d9bce501efd3a23cd0713bbae591516b7a69217d5f4b851725f601f3b75247",
            "aad5a3120a6adf0342d46fb4830e022121cdfbd3de9ecdd9cf10145b8864b6a5",
        ),
        "CEA-Curie-2011-2.1-cln.swf": (
            "2a0fdbd40837590b491bbbac7d4cfe521de1f0b14c0dc39bbf82c4e49ea75bce",
            "b732a04aea71e2f154c8feee580be549d0bba1462bc91ec581944cb3dd6d442d",
        ),
        "SDSC-SP2-1998-4.2-cln-first5000.swf": (
            "19ce7947a0d35bba6e5516c7125a16fdee88e861684fbd7ca6c64d74ffa4b6b0",
            "cf9073f2fd5f1af2089f67f972d50f8e07f5b56bf1b5e1529e5ef87a284bd1b2",
        ),
        "CTC-SP2-1996-3.1-cln-first5000.swf": (
            "fa80ef75c1a03fac465b05ca505593acee89d792f22b67f50b4ffeea2e99169a",
            "f64ed76afb6d566217164c5fa71bfa6422ea401f29312765461a8be302417db0",
        ),
    }
)
"""Trace file name (without `.gz`) -> sha256 of its `.swf.gz` and of its uncompressed
`.swf`: the cleaned logs of the Parallel Workloads Archive (the `.gz` hashes of CTC-SP2,
SDSC-SP2 and HPC2N equal the archive downloads' recorded elsewhere), and the two slices
of their first 5000 jobs embedded in the package (`schedlib/data/PROVENANCE.md`)."""

_HEX = re.compile(r"\b[0-9a-f]{64}\b")


def sha256_of(path: str | os.PathLike[str]) -> str:
    """The sha256 of a file's bytes, read in 1 MiB blocks (flat memory)."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        while block := stream.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


@attrs.frozen
class TraceIdentity:
    """What is known of a trace file.

    Attributes
    ----------
    path
        The file, as given.
    sha256
        The sha256 of its bytes.
    verdict
        `"matches"` (its bytes are a known file's), `"differs"` (its name is a
        known file's, its bytes are not) or `"unknown"` (nothing to compare).
    known
        What it matches or should have matched (e.g. "the Parallel Workloads
        Archive's KTH-SP2-1996-2.1-cln.swf.gz"), or `None`.
    expected
        The sha256 it should have had, for `"differs"`.
    """

    path: str
    sha256: str
    verdict: str
    known: str | None = None
    expected: str | None = None

    def line(self) -> str:
        """One line for standard error: the path, the sha256 and the verdict."""
        short = f"sha256 {self.sha256[:8]}..."
        if self.verdict == "matches":
            return f"{self.path} ({short}): matches {self.known}"
        if self.verdict == "differs":
            return (
                f"{self.path} ({short}): differs from {self.known} "
                f"(sha256 {str(self.expected)[:8]}...)"
            )
        return f"{self.path} ({short}): no known checksum to compare with"

    def warning(self) -> str | None:
        """A warning when the file is not the known one it is named after, else `None`."""
        if self.verdict != "differs":
            return None
        return (
            f"{self.path} differs from {self.known} (sha256 {self.sha256}, expected "
            f"{self.expected}): a modified or different version; results will not match "
            "those published on the original"
        )


def _owner(name: str) -> str:
    """Whose file a known trace is: the archive's, or one of schedlib's embedded slices."""
    if "-first5000." in name:
        return f"schedlib's embedded slice {name}"
    return f"{_PWA} {name}"


def _beside(path: Path, sha: str) -> tuple[str, str | None, str | None] | None:
    """What a `README.md` beside the trace says of it: its line naming the file, and whether
    one of the sha256 on that line is the file's."""
    readme = path.parent / "README.md"
    if not readme.is_file():
        return None
    try:
        lines = readme.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        if path.name in line and (hashes := _HEX.findall(line)):
            where = f"the checksum in {readme}"
            if sha in hashes:
                return "matches", where, None
            return "differs", where, hashes[-1] if path.suffix == ".gz" else hashes[0]
    return None


def identify(path: str | os.PathLike[str]) -> TraceIdentity:
    """The path, sha256 and provenance verdict of a trace file.

    Checked, in order: the sha256 against every known trace (whatever the file's name),
    a `README.md` beside the file that names it with its sha256, and the known trace of
    the same name.

    Raises
    ------
    OSError
        If the file cannot be read.
    """
    source = Path(path)
    sha = sha256_of(source)
    for name, (packed, plain) in KNOWN_TRACES.items():
        if sha == packed:
            return TraceIdentity(str(path), sha, "matches", _owner(f"{name}.gz"))
        if sha == plain:
            return TraceIdentity(str(path), sha, "matches", _owner(name))
    beside = _beside(source, sha)
    if beside is not None:
        verdict, where, expected = beside
        return TraceIdentity(str(path), sha, verdict, where, expected)
    name = source.name.removesuffix(".gz")
    if name in KNOWN_TRACES:
        packed, plain = KNOWN_TRACES[name]
        gz = source.name.endswith(".gz")
        return TraceIdentity(
            str(path), sha, "differs", _owner(source.name), packed if gz else plain
        )
    return TraceIdentity(str(path), sha, "unknown")
