"""One table from error kinds to gRPC status codes, for every refusal the services make."""

from __future__ import annotations

import grpc
import pytest

from services.games import errors as game_errors
from services.shared import errors
from services.shared.status import PASSED_ON, STATUS_CODES, error_from_status, status_of


def _subclasses(cls: type) -> list[type]:
    found: list[type] = []
    sub: type
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


def test_every_kind_has_the_status_code_of_its_name() -> None:
    assert set(STATUS_CODES) == set(errors.ErrorKind)
    for kind, code in STATUS_CODES.items():
        assert code.name == kind.name


@pytest.mark.parametrize("cls", _subclasses(errors.DomainError), ids=lambda c: c.__name__)
def test_every_domain_error_is_answered_with_its_kind_s_code(cls: type) -> None:
    if cls.__module__ != errors.__name__:
        return  # a service's own subclass keeps its base's kind
    error = cls("why")
    assert status_of(error) is STATUS_CODES[error.kind]


@pytest.mark.parametrize(
    "cls", [game_errors.RuleViolation, *_subclasses(game_errors.RuleViolation)], ids=str
)
def test_every_rule_violation_of_a_game_has_a_kind_the_table_knows(
    cls: type[game_errors.RuleViolation],
) -> None:
    error = errors.error_of_kind(cls.kind, "not now")
    assert error.kind == cls.kind
    assert error.message == "not now"


def test_the_conflict_of_a_stale_version_is_aborted() -> None:
    assert status_of(errors.Conflict("stale", actual_version=7)) is grpc.StatusCode.ABORTED


def test_a_kind_nobody_defined_is_unknown_not_a_guess() -> None:
    assert status_of(errors.error_of_kind("sideways", "?")) is grpc.StatusCode.UNKNOWN


@pytest.mark.parametrize("code", list(grpc.StatusCode), ids=lambda c: c.name)
def test_a_dependency_s_status_is_passed_on_only_when_it_means_the_same_to_our_caller(
    code: grpc.StatusCode,
) -> None:
    error = error_from_status(code, "ledger Post failed: no such reservation")
    assert error.message == "ledger Post failed: no such reservation"
    if code.name.lower() in PASSED_ON:
        assert status_of(error) is code
    else:
        assert isinstance(error, errors.Unavailable)
