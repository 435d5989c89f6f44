"""The wallet port as a wrapper sees it: a wallet around the internal one that refuses debits
past a cap before the inner wallet sees them (what player protection's ``LimitedWallet`` does).

A refused bet reaches the player as the wrapper's code with nothing staked; a refused insurance
likewise; a split the wrapper will not fund falls back as the title falls back for missing coins,
and the ledger holds exactly what the round says."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from sqlalchemy.orm import Session

from boundless.cli.rule_files import titles_catalog
from boundless.ledger.records import StakeOrder
from boundless.wallet import INTERNAL, BetDebit, Wallet, WalletRefusal, WalletWrapper
from tests.server.live import (
    assert_books,
    bet,
    open_private_table,
    play_to_settlement,
    serving,
    start_server,
)
from tests.server.test_insurance import ACE_UP_DEALER_BLACKJACK
from tests.server.test_resplit_serve import EIGHTS, FOLDER, TITLE, StackedShuffle

CAP = 1000


class CappedWallet(WalletWrapper):
    """Refuses any bet over ``CAP`` and every extra stake (insurance, doubles, splits)."""

    def spendable(self, player_ids: Sequence[str]) -> dict[str, int]:
        return {player: 0 for player in self.inner.spendable(player_ids)}

    def debit_bets(
        self, table_id: str, round_no: int, bets: Sequence[BetDebit]
    ) -> list[Exception | None]:
        answers: list[Exception | None] = [None] * len(bets)
        passed = []
        for index, item in enumerate(bets):
            if item.total > CAP:
                answers[index] = WalletRefusal("limit_reached", f"a bet over {CAP} is refused")
            else:
                passed.append(index)
        inner = self.inner.debit_bets(table_id, round_no, [bets[i] for i in passed])
        for index, answer in zip(passed, inner, strict=True):
            answers[index] = answer
        return answers

    def debit(self, table_id: str, round_no: int, orders: Sequence[StakeOrder]) -> None:
        if orders:
            raise WalletRefusal("limit_reached", "no extra stake is allowed")


class CappedWallets:
    name = "capped"

    def __call__(self, session: Session, slice_owner: str | None = None) -> Wallet:
        return CappedWallet(INTERNAL(session, slice_owner))


def test_a_refused_bet_and_insurance_carry_the_wrappers_code(tmp_path: Path) -> None:
    with serving(tmp_path, seed=ACE_UP_DEALER_BLACKJACK, wallets=CappedWallets()) as live:
        player, client = live.seated("Lia")
        refused = bet(client, 2 * CAP)
        assert (refused["type"], refused["error"]) == ("error", "limit_reached")
        assert bet(client, CAP)["type"] == "ack"
        client.wait_for(
            "you", lambda m: m["player"]["positions"][0]["insurance_offer"] == "insurance", 60
        )
        taken = client.request(
            {"type": "insurance", "table_id": "boundless-1", "spot": 1, "kind": "insurance"}
        )
        assert (taken["type"], taken["error"]) == ("error", "limit_reached")
        settled = play_to_settlement(client)
        assert settled["staked"] == CAP  # the refused bet and insurance staked nothing
        client.close()
    assert_books(live.database_url, {player["player_id"]: player["balance"] + settled["net"]})


def test_a_split_the_wallet_will_not_fund_falls_back(tmp_path: Path) -> None:
    catalog = titles_catalog(FOLDER)
    assert catalog is not None
    rules, _ = catalog.get(TITLE)
    live = start_server(
        tmp_path,
        catalog=catalog,
        randomness=lambda: StackedShuffle(rules.shoe.decks, list(EIGHTS)),
        wallets=CappedWallets(),
    )
    try:
        player, client, table_id = open_private_table(live, TITLE, "Sol")
        assert bet(client, CAP, table_id=table_id)["type"] == "ack"
        asked: list[list[str]] = []

        def split_when_offered(position: dict[str, list[str]]) -> str:
            asked.append(position["legal_actions"])
            return "split" if "split" in position["legal_actions"] else "stand"

        settled = play_to_settlement(client, split_when_offered)
        assert "split" in asked[0]  # the player asked for it; the wallet would not fund it
        (result,) = settled["results"]
        assert len(result["hands"]) == 1 and settled["staked"] == CAP
        client.close()
    finally:
        live.stop()
    assert_books(live.database_url, {player["player_id"]: player["balance"] + settled["net"]})
