"""The experiments a sweep can run, by name: `run` and every `reproduce NAME`.

`schedlib sweep CONFIG.toml` names one of them; each is a module-level
function of plain parameters (`seed` included) that returns result rows, so it
runs in any worker process, local or on a cluster.

Examples
--------
>>> experiment_names()[:2]
['run', 'reproduce pgs']
>>> rows = reproduction_rows("pgs", runs=1, readings="none", seed=0)
>>> sorted({r["scheduler"] for r in rows})
['fcfs', 'pgs']
"""

from __future__ import annotations

import argparse
import contextlib
import io
from collections.abc import Callable, Mapping
from typing import Any

from schedlib.errors import InvalidValueError
from schedlib.experiments import REPRODUCTIONS, reproduction
from schedlib.experiments.backfilling import summary

__all__ = [
    "draws_at_random",
    "experiment",
    "experiment_names",
    "parse_options",
    "reproduction_rows",
    "validate_parameters",
]


def experiment_names() -> list[str]:
    """`run` and `reproduce NAME` for every reproduction."""
    return ["run", *(f"reproduce {name}" for name in REPRODUCTIONS)]


def _unknown(name: str) -> InvalidValueError:
    return InvalidValueError("experiment", name, f"must be one of {', '.join(experiment_names())}")


def _parser(name: str) -> argparse.ArgumentParser:
    if name not in REPRODUCTIONS:
        raise _unknown(f"reproduce {name}")
    module = reproduction(name)
    parser = argparse.ArgumentParser(prog=f"reproduce {name}", exit_on_error=False)
    module.add_arguments(parser)
    return parser


def _argv(parameters: Mapping[str, Any]) -> list[str]:
    argv: list[str] = []
    for key, value in parameters.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            argv.append(flag)
        elif value is False or value is None:
            continue
        elif isinstance(value, (list, tuple)):
            argv += [flag, ",".join(str(v) for v in value)]
        else:
            argv += [flag, str(value)]
    return argv


def parse_options(name: str, parameters: Mapping[str, Any]) -> argparse.Namespace:
    """The parsed options of `schedlib reproduce NAME` with these values, others at their defaults.

    `quick=True` reduces the sizes of the options not given (see
    [`resolve_quick`][schedlib.experiments.options.resolve_quick]).

    Raises
    ------
    InvalidValueError
        For an unknown reproduction or an option it does not have or accept.
    """
    from schedlib.experiments.options import resolve_quick

    args = _parse(_parser(name), _argv(parameters), f"parameters of reproduce {name}")
    resolve_quick(args)
    return args


def _parse(parser: argparse.ArgumentParser, argv: list[str], what: str) -> argparse.Namespace:
    """`parser.parse_args(argv)`, any refusal raised as one `InvalidValueError` about `what`."""
    try:
        with contextlib.redirect_stderr(io.StringIO()) as errors:
            return parser.parse_args(argv)
    except (argparse.ArgumentError, SystemExit) as error:
        message = str(error) if isinstance(error, argparse.ArgumentError) else errors.getvalue()
        raise InvalidValueError(what, " ".join(argv), message.strip().splitlines()[-1]) from None


def reproduction_rows(name: str, *, seed: int = 0, **parameters: Any) -> list[dict[str, Any]]:
    """The rows of `schedlib reproduce NAME` with these option values, in this process.

    Parameters
    ----------
    name
        The reproduction (`pgs`, `preemptive`, `deferment`, ...).
    seed
        Its `--seed`.
    **parameters
        Its other options by name (`runs=2`, `iat=[1.5, 2.0]`, `quick=True`);
        `workers` is 1 (a sweep spreads the runs, not their insides).

    Raises
    ------
    InvalidValueError
        For an unknown reproduction or an option it does not have or accept.
    """
    args = parse_options(name, {**parameters, "seed": seed, "workers": 1})
    module = reproduction(name)
    from schedlib.experiments.options import apply_quick

    apply_quick(args)
    rows: list[dict[str, Any]] = module.rows(args)
    return rows


def experiment(name: str) -> Callable[..., Any]:
    """The function a sweep calls for experiment `name` (`run` or `reproduce NAME`).

    Raises
    ------
    InvalidValueError
        For an unknown name.
    """
    if name == "run":
        return summary
    kind, _, which = name.partition(" ")
    if kind != "reproduce" or which not in REPRODUCTIONS:
        raise InvalidValueError(
            "experiment", name, f"must be one of {', '.join(experiment_names())}"
        )
    return _Reproduction(which)


class _Reproduction:
    """`reproduction_rows(name, **parameters)`, picklable."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, **parameters: Any) -> list[dict[str, Any]]:
        return reproduction_rows(self.name, **parameters)


def draws_at_random(name: str) -> bool:
    """Whether experiment `name` uses its seed: `run` (a backfilling run) draws nothing, so
    its seeds would give identical runs; every reproduction draws its replicates from it.

    Examples
    --------
    >>> draws_at_random("run"), draws_at_random("reproduce pgs")
    (False, True)
    """
    experiment(name)
    return name != "run"


def validate_parameters(name: str, parameters: Mapping[str, Any]) -> None:
    """Check, before any run, that experiment `name` accepts these parameters: parsed by the
    experiment's own option parser, then its checks across options (for `run`: the workload
    file, and a scheduler of yours loaded and checked against its form).

    Raises
    ------
    InvalidValueError
        Naming the parameter the experiment does not know, or the option that refuses
        its value (`reason` holds the parser's message).

    Examples
    --------
    >>> validate_parameters("run", {"policy": "sjf"})
    Traceback (most recent call last):
    ...
    schedlib.errors.InvalidValueError: parameters of run = '--policy sjf': argument --policy: 'sjf' is neither fcfs, easy, conservative nor MODULE:FUNCTION / path/to/file.py:FUNCTION (a scheduler of yours)
    """  # noqa: E501
    if name == "run":
        from schedlib.experiments.run_options import check_run_options, run_parser

        known = {"policy", "form", "workload", "processors", "limit", "over_limit",
                 "conventions", "cleaning", "seed"}  # fmt: skip
        for key in parameters:
            if key not in known:
                raise InvalidValueError(
                    "parameters of run", key, f"is not one of {', '.join(sorted(known))}"
                )
        argv = _argv({k: v for k, v in parameters.items() if k != "seed"})
        check_run_options(_parse(run_parser(), argv, "parameters of run"))
        return
    experiment(name)
    parse_options(name.partition(" ")[2], {**parameters, "seed": 0, "workers": 1})
