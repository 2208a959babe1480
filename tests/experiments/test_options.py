"""The options every reproduction shares: `--quick` and the types that refuse bad values."""

from __future__ import annotations

import pytest

from schedlib.cli import build_parser
from schedlib.experiments import REPRODUCTIONS
from schedlib.experiments.catalog import parse_options
from schedlib.experiments.options import apply_quick


def _parsed(*argv: str):  # type: ignore[no-untyped-def]
    return build_parser(list(argv)).parse_args(list(argv))


def test_quick_never_overrides_a_value_typed_even_the_default() -> None:
    # pgs runs 20 replicates by default and 10 with --quick: a typed 20 stays 20
    args = _parsed("reproduce", "pgs", "--quick", "--runs", "20")
    note = apply_quick(args)
    assert args.runs == 20 and args.readings == "none"
    assert note is not None and "runs=20 (as given)" in note
    assert "readings=none (full: readings=all)" in note
    args = _parsed("reproduce", "pgs", "--runs", "20", "--quick")  # either order
    apply_quick(args)
    assert args.runs == 20


def test_quick_reduces_what_was_not_typed_and_nothing_without_it() -> None:
    args = _parsed("reproduce", "pgs", "--quick")
    apply_quick(args)
    assert args.runs == 10
    args = _parsed("reproduce", "pgs")
    assert apply_quick(args) is None and args.runs == 20


@pytest.mark.parametrize("name", list(REPRODUCTIONS))
def test_every_reproduction_keeps_typed_values_under_quick(name: str) -> None:
    plain = parse_options(name, {})
    quick = parse_options(name, {"quick": True})
    for option in plain.quick_settings:
        typed = parse_options(name, {"quick": True, option: getattr(plain, option)})
        assert getattr(typed, option) == getattr(plain, option), (name, option)
        assert option in typed.quick_typed and option not in quick.quick_typed
        assert getattr(quick, option) == plain.quick_settings[option], (name, option)


def test_options_are_resolved_values_not_markers() -> None:
    args = parse_options("multisite", {})
    assert args.jobs == 5000 and type(args.jobs) is int  # the paper's size, the default
    assert args.load_factors == (1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


def _wired(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """A reproduction-like parser wired with the shared types, through the command's parser
    class: what a paper module's options say once they use them."""
    from schedlib.cli import _Parser
    from schedlib.experiments.options import count, counts, positive_number, workers

    parser = _Parser(prog="schedlib reproduce paper")
    parser.add_argument("--runs", type=count(), default=20)
    parser.add_argument("--jobs", type=count(at_most=100_000, why="a run's time grows with "
                        "its jobs; the paper: 5000"), default=5000)  # fmt: skip
    parser.add_argument("--bounds", type=counts, default=(1, 2, 4))
    parser.add_argument("--quantum", type=positive_number, default=1.0)
    parser.add_argument("--workers", type=workers)
    with pytest.raises(SystemExit) as stop:
        parser.parse_args(list(argv))
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.endswith("(see schedlib reproduce paper --help)\n")
    return err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--runs", "0"], "argument --runs: must be an integer >= 1, got 0"),
        (["--workers", "0"], "argument --workers: must be an integer >= 1, got 0"),
        (["--bounds", "1,0"], "argument --bounds: every value must be an integer >= 1, got 0"),
        (["--quantum", "-1"], "argument --quantum: must be a finite number > 0, got -1"),
        (["--jobs", "1000000000"], "argument --jobs: must be at most 100000, got 1000000000 "
         "(a run's time grows with its jobs; the paper: 5000)"),
    ],
)  # fmt: skip
def test_the_shared_types_name_the_option_the_user_typed(
    capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    assert said in _wired(capsys, *argv)


def test_a_sweep_of_a_wired_option_is_refused_before_any_run() -> None:
    """A sweep parses every grid value with the experiment's parser: once a paper module's
    option uses a shared type, a bad value is refused there, naming the option."""
    import argparse

    from schedlib.experiments.catalog import _parse
    from schedlib.experiments.options import count

    parser = argparse.ArgumentParser(prog="reproduce paper", exit_on_error=False)
    parser.add_argument("--runs", type=count(), default=20)
    with pytest.raises(Exception, match="argument --runs: must be an integer >= 1, got 0"):
        _parse(parser, ["--runs", "0"], "parameters of reproduce paper")


def test_quick_sizes_given_as_text_are_converted_like_the_defaults() -> None:
    """A list option wired to a shared type gets its quick size in the same form as a typed
    value (argparse converts a default given as text; so does `--quick`)."""
    import argparse

    from schedlib.experiments.options import add_quick_argument, number_list

    parser = argparse.ArgumentParser()
    parser.add_argument("--iat", type=number_list(greater_than=0), default="1.5,2.0")
    add_quick_argument(parser, {"iat": "15,25"}, full_time="1 h", quick_time="1 min")
    for argv, iat in (
        ([], (1.5, 2.0)),
        (["--quick"], (15.0, 25.0)),
        (["--quick", "--iat", "3"], (3.0,)),
    ):
        args = parser.parse_args(argv)
        apply_quick(args)
        assert args.iat == iat, argv
