"""A target naming several replicas becomes one round-robin gRPC target over all of them."""

from __future__ import annotations

import pytest

from services.shared.balancing import ROUND_ROBIN, balanced_target


def test_one_server_keeps_the_default_policy() -> None:
    assert balanced_target("table:50051") == ("table:50051", [])


def test_a_list_of_replicas_is_one_round_robin_target() -> None:
    target, options = balanced_target("10.0.0.5:50051, 10.0.0.6:50051")
    assert target == "ipv4:10.0.0.5:50051,10.0.0.6:50051"
    assert options == [ROUND_ROBIN]


def test_names_in_a_list_are_resolved_once_and_duplicates_dropped() -> None:
    target, _ = balanced_target("localhost:7,127.0.0.1:7")
    assert target == "ipv4:127.0.0.1:7"


def test_ipv6_replicas() -> None:
    assert balanced_target("[::1]:7,[::2]:8")[0] == "ipv6:[::1]:7,[::2]:8"


def test_dns_targets_balance_over_every_address_dns_answers() -> None:
    assert balanced_target("dns:///table.croupier.svc:50051") == (
        "dns:///table.croupier.svc:50051",
        [ROUND_ROBIN],
    )


def test_a_malformed_entry_is_refused_naming_it() -> None:
    with pytest.raises(ValueError, match="'table'"):
        balanced_target("10.0.0.5:50051,table")
