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

    Raises
    ------
    InvalidValueError
        For an unknown reproduction or an option it does not have or accept.
    """
    parser = _parser(name)
    argv = _argv(parameters)
    try:
        with contextlib.redirect_stderr(io.StringIO()) as errors:
            return parser.parse_args(argv)
    except (argparse.ArgumentError, SystemExit) as error:
        message = str(error) if isinstance(error, argparse.ArgumentError) else errors.getvalue()
        raise InvalidValueError(
            f"parameters of reproduce {name}", " ".join(argv), message.strip().splitlines()[-1]
        ) from None


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


def validate_parameters(name: str, parameters: Mapping[str, Any]) -> None:
    """Check, before any run, that experiment `name` accepts these parameters.

    Raises
    ------
    InvalidValueError
        Naming the parameter the experiment does not know or accept.
    """
    if name == "run":
        known = {"policy", "workload", "processors", "limit", "over_limit", "seed"}
        for key in parameters:
            if key not in known:
                raise InvalidValueError(
                    "parameters of run", key, f"is not one of {', '.join(sorted(known))}"
                )
        return
    experiment(name)
    parse_options(name.partition(" ")[2], {**parameters, "seed": 0, "workers": 1})
