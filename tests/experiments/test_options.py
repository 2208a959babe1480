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
    assert args.jobs == 1000 and type(args.jobs) is int
    assert isinstance(args.load_factors, str)
