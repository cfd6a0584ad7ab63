"""The house's development bankroll (`croupier run`) against the real ledger: deposited once
per amount, however often the platform starts, and a bad setting named."""

from __future__ import annotations

import pytest

from services.client.house_bankroll import (
    HOUSE_BANKROLL_ENV,
    bankroll_from_env,
    fund_house,
    house_account,
)
from services.sdk import ClientSettings
from services.shared import auth
from tests.integration.table.conftest import KEY, Platform

pytestmark = pytest.mark.integration


def test_the_bankroll_is_deposited_once_however_often_the_platform_starts(
    platform: Platform,
) -> None:
    token = auth.issue_token(KEY, "croupier-run", auth.Role.SERVICE, 60)
    settings = ClientSettings(ledger=f"127.0.0.1:{platform.ledger_port}", token=token)
    before = fund_house(settings, 0)  # opens the account (if new), deposits nothing
    assert fund_house(settings, 5_000) == before + 5_000
    assert fund_house(settings, 5_000) == before + 5_000  # a restart deposits nothing more
    assert platform.balance(house_account()) == before + 5_000


def test_the_setting_is_a_chip_count() -> None:
    assert bankroll_from_env({}) > 0
    assert bankroll_from_env({HOUSE_BANKROLL_ENV: "0"}) == 0
    with pytest.raises(ValueError, match=HOUSE_BANKROLL_ENV):
        bankroll_from_env({HOUSE_BANKROLL_ENV: "lots"})
