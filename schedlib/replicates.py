r"""Independent random streams: one rule, for every experiment, sweep and reproduction.

A run is named by its **seed** $s$ (the `--seed` of a command, a sweep's
`seeds = [...]`) and, inside it, by a **replicate** $r = 0, 1, \dots$
(`--runs`, `--seeds`, `--trials`, `--replicates`: the independent repetitions a
verdict rests on). Each (seed, replicate, purpose) gets its own stream, whose
seed is derived by a hash, so that:

- two different pairs $(s, r) \ne (s', r')$ never share a stream (the pairs are
  hashed, not added: under the old rule "replicate $r$ of seed $s$ uses seed
  $s + r$", `--seed 0 --runs 2` and `--seed 1 --runs 2` shared stream 1);
- the purposes of one replicate (say the workload and the restart delays) are
  independent of each other;
- the derivation is the same on every platform and Python version, and does not
  depend on `PYTHONHASHSEED` or on the order in which streams are asked for.

Notes
-----
The stream seed is the first 8 bytes (big-endian) of

$$ \mathrm{SHA256}(\texttt{"schedlib/replicate/v1:"}\ s\ \texttt{":"}\ r\ \texttt{":"}\ p) $$

with $s$ and $r$ written in decimal and $p$ the purpose (UTF-8). Two pairs
collide only if SHA-256 truncated to 64 bits does, which for the $10^6$ pairs of
a very large study has probability about $2.7 \times 10^{-8}$; `tests/test_replicates.py`
checks that no two pairs of a $200 \times 200$ grid share a seed or a first draw.
A `random.Random` seeded with an int is reproducible across platforms and
Python versions (the Mersenne Twister's integer seeding is specified).
Complexity: $O(1)$ per stream.

Examples
--------
>>> stream_seed(0, 0)
12204875026550598035
>>> stream_seed(0, 1) != stream_seed(1, 0)
True
>>> rng = stream(3, 2, "workload")
>>> round(rng.random(), 6) == round(stream(3, 2, "workload").random(), 6)
True
>>> replicate_seeds(5, 3)
((5, 0), (5, 1), (5, 2))
"""

from __future__ import annotations

import hashlib
import random

from schedlib.errors import InvalidValueError

__all__ = ["replicate_seeds", "stream", "stream_seed"]

_PREFIX = "schedlib/replicate/v1:"


def _non_negative_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidValueError(name, value, "must be an integer >= 0")
    return value


def stream_seed(seed: int, replicate: int, purpose: str = "") -> int:
    r"""The integer seed of one (seed, replicate, purpose) stream.

    Parameters
    ----------
    seed
        The run's seed $s \ge 0$ (a command's `--seed`).
    replicate
        The replicate $r \ge 0$ inside the run.
    purpose
        What the stream draws (`"workload"`, `"restarts"`, ...): different
        purposes of one replicate get independent streams.

    Returns
    -------
    int
        A 64-bit seed, $0 \le$ seed $< 2^{64}$.

    Raises
    ------
    InvalidValueError
        If `seed` or `replicate` is not an integer >= 0.

    Notes
    -----
    $\mathrm{seed} = \lfloor \mathrm{SHA256}(\texttt{"schedlib/replicate/v1:"}\,s\,\texttt{":"}\,r
    \,\texttt{":"}\,p) / 2^{192} \rfloor$ (the module notes say why). $O(1)$.

    Examples
    --------
    >>> stream_seed(0, 0) == stream_seed(0, 0, "")
    True
    >>> len({stream_seed(s, r) for s in range(10) for r in range(10)})
    100
    >>> stream_seed(-1, 0)
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: seed = -1: must be an integer >= 0
    """
    _non_negative_int(seed, "seed")
    _non_negative_int(replicate, "replicate")
    if not isinstance(purpose, str):
        raise InvalidValueError("purpose", purpose, "must be a string")
    text = f"{_PREFIX}{seed}:{replicate}:{purpose}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big")


def stream(seed: int, replicate: int, purpose: str = "") -> random.Random:
    """A fresh `random.Random` for one (seed, replicate, purpose).

    Parameters
    ----------
    seed, replicate, purpose
        As for [`stream_seed`][schedlib.replicates.stream_seed].

    Returns
    -------
    random.Random
        Seeded with `stream_seed(seed, replicate, purpose)`; the caller owns it.

    Examples
    --------
    >>> stream(0, 0).random() == stream(0, 0).random()
    True
    >>> stream(0, 0).random() == stream(0, 1).random()
    False
    """
    return random.Random(stream_seed(seed, replicate, purpose))


def replicate_seeds(seed: int, replicates: int) -> tuple[tuple[int, int], ...]:
    """The (seed, replicate) pairs of a run with `replicates` replicates: `(seed, 0..R-1)`.

    Examples
    --------
    >>> replicate_seeds(2, 2)
    ((2, 0), (2, 1))
    >>> replicate_seeds(0, 0)
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: replicates = 0: must be an integer >= 1
    """
    _non_negative_int(seed, "seed")
    if isinstance(replicates, bool) or not isinstance(replicates, int) or replicates < 1:
        raise InvalidValueError("replicates", replicates, "must be an integer >= 1")
    return tuple((seed, r) for r in range(replicates))
