r"""Sites and heterogeneity: homogeneous clusters whose speed depends on the job's class.

A *site* is a homogeneous cluster of $P_s$ processors. Sites differ in speed, and
not uniformly: "no machine is the fastest on all applications" (Sabin et al.
2003, §4). The model is a matrix of runtime factors $f_{c,s}$, one per job class
$c$ and site $s$: a job of class $c$ whose runtime (and requested time) is $r$ on
the reference machine runs for $r \cdot f_{c,s}$ at site $s$.

The default matrix is the paper's Table 1, the NAS Parallel Benchmarks (Class B)
measured on four machines, normalised to the IBM SP (P2SC 160 MHz) column as
the paper does ("the run times of the various machines were normalized with
respect to IBM SP (P2SC 160 MHz) for each benchmark", §3):

| class | SGI Origin 2000 | IBM SP (WN/66) | Cray T3E 900 | IBM SP (P2SC 160 MHz) |
|---|---|---|---|---|
| IS, 8 nodes | 23.3 | 22.6 | **16.3** | 17.7 |
| MG, 8 nodes | 35.5 | 34.3 | 25.3 | **17.2** |
| MG, 256 nodes | 1.3147 | 2.2724 | 1.8 | **1.1** |
| LU, 256 nodes | **20.328** | 94.893 | 35.6 | 24.2 |

(seconds; the fastest machine of each row in bold). Interpretation: §3 names four
benchmarks (LU, MG, CG, IS) but Table 1 gives these four rows and no CG; the job
classes are the rows of Table 1, each job drawn uniformly among them with an
explicit seed.

Examples
--------
>>> sites = paper_sites(128)
>>> [s.name for s in sites]
['SGI Origin 2000', 'IBM SP (WN/66)', 'Cray T3E 900', 'IBM SP (P2SC 160 MHz)']
>>> matrix = RuntimeMatrix.paper()
>>> round(matrix.factor(3, 0), 3), matrix.factor(3, 3), matrix.best_site(3)
(0.84, 1.0, 0)
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

import attrs

from schedlib.errors import InvalidValueError
from schedlib.validation import at_least

__all__ = [
    "PAPER_CLASSES",
    "PAPER_MACHINES",
    "PAPER_RUNTIMES",
    "RuntimeMatrix",
    "Site",
    "assign_classes",
    "paper_sites",
]

PAPER_MACHINES: tuple[str, ...] = (
    "SGI Origin 2000",
    "IBM SP (WN/66)",
    "Cray T3E 900",
    "IBM SP (P2SC 160 MHz)",
)
"""The four machines of Table 1, the sites of the paper's experiments, in order."""

PAPER_CLASSES: tuple[str, ...] = ("IS-8", "MG-8", "MG-256", "LU-256")
"""The job classes: the rows of Table 1 (benchmark and node count)."""

PAPER_RUNTIMES: tuple[tuple[float, ...], ...] = (
    (23.3, 22.6, 16.3, 17.7),
    (35.5, 34.3, 25.3, 17.2),
    (1.3147, 2.2724, 1.8, 1.1),
    (20.328, 94.893, 35.6, 24.2),
)
"""Table 1 of Sabin et al. (2003): measured runtimes in seconds, class by machine."""


@attrs.frozen(slots=True)
class Site:
    """One site: a homogeneous cluster.

    Attributes
    ----------
    name
        A label (the machine it models).
    processors
        Its size, `>= 1`.

    Examples
    --------
    >>> Site("Cray T3E 900", 430)
    Site(name='Cray T3E 900', processors=430)
    """

    name: str
    processors: int = attrs.field(validator=at_least(1))


def paper_sites(processors: int) -> tuple[Site, ...]:
    """The paper's four sites, each as large as the trace's machine (§3).

    Parameters
    ----------
    processors
        Processors of every site (430 for CTC-SP2, 128 for SDSC-SP2 in the paper).

    Examples
    --------
    >>> paper_sites(430)[2]
    Site(name='Cray T3E 900', processors=430)
    """
    return tuple(Site(name, processors) for name in PAPER_MACHINES)


def _names(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


def _rows(value: Iterable[Iterable[float]]) -> tuple[tuple[float, ...], ...]:
    return tuple(tuple(float(f) for f in row) for row in value)


@attrs.frozen(slots=True)
class RuntimeMatrix:
    """Runtime factor $f_{c,s}$ of each job class $c$ at each site $s$.

    Attributes
    ----------
    factors
        One row per class, one column per site; every factor finite and `> 0`.
    classes
        A name per class (row).

    Raises
    ------
    InvalidValueError
        For an empty matrix, ragged rows, a factor that is not a finite
        positive number, or a name count that does not match.

    Examples
    --------
    >>> RuntimeMatrix(((1.0, 2.0),), ("only",)).factor(0, 1)
    2.0
    >>> RuntimeMatrix(((1.0, 0.0),), ("bad",))
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: RuntimeMatrix.factors[0][1] = 0.0: must be a finite ...
    """

    factors: tuple[tuple[float, ...], ...] = attrs.field(converter=_rows)
    classes: tuple[str, ...] = attrs.field(converter=_names)

    def __attrs_post_init__(self) -> None:
        if not self.factors or not self.factors[0]:
            raise InvalidValueError("RuntimeMatrix.factors", self.factors, "must not be empty")
        width = len(self.factors[0])
        for c, row in enumerate(self.factors):
            if len(row) != width:
                raise InvalidValueError(
                    f"RuntimeMatrix.factors[{c}]", row, f"has {len(row)} sites, not {width}"
                )
            for s, f in enumerate(row):
                if not (f > 0 and f != float("inf")):
                    raise InvalidValueError(
                        f"RuntimeMatrix.factors[{c}][{s}]", f, "must be a finite number > 0"
                    )
        if len(self.classes) != len(self.factors):
            raise InvalidValueError(
                "RuntimeMatrix.classes", self.classes, f"must name the {len(self.factors)} rows"
            )

    @classmethod
    def paper(cls) -> RuntimeMatrix:
        """Table 1 normalised to the IBM SP (P2SC 160 MHz) column (the default).

        Notes
        -----
        $f_{c,s} = T_{c,s} / T_{c,\\text{P2SC}}$ for the measured runtimes $T$.

        Examples
        --------
        >>> [round(f, 3) for f in RuntimeMatrix.paper().factors[0]]
        [1.316, 1.277, 0.921, 1.0]
        """
        return cls(tuple(tuple(t / row[-1] for t in row) for row in PAPER_RUNTIMES), PAPER_CLASSES)

    @property
    def sites(self) -> int:
        """Number of sites (columns)."""
        return len(self.factors[0])

    def factor(self, job_class: int, site: int) -> float:
        """$f_{c,s}$: how much longer class `job_class` runs at `site` than on the reference."""
        return self.factors[job_class][site]

    def best_site(self, job_class: int, among: Sequence[int] | None = None) -> int:
        """The site (among `among`, default all) where the class runs fastest; ties: lowest."""
        candidates = range(self.sites) if among is None else among
        return min(candidates, key=lambda s: (self.factors[job_class][s], s))


def assign_classes(count: int, matrix: RuntimeMatrix, rng: random.Random) -> tuple[int, ...]:
    """Draw a class for each of `count` jobs, uniformly among the matrix's rows.

    "Each job was randomly chosen to represent one of the NAS benchmarks"
    (Sabin et al. 2003, §3); the draw uses only `rng`.

    Examples
    --------
    >>> assign_classes(6, RuntimeMatrix.paper(), random.Random(1))
    (1, 0, 2, 0, 3, 3)
    """
    rows = len(matrix.factors)
    return tuple(rng.randrange(rows) for _ in range(count))
