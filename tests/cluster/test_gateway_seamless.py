"""Two cluster gateways on the reference operator wallet (in process, memory bus): each debits
its own players' bets, insurance, doubles and splits, credits their settlement, and the round
ends as one shared round on the same shoe would, with the operator's balances to match."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from boundless.server.cluster import MemoryBus
from boundless.server.cluster.gateway_table import GatewayTable
from boundless.server.cluster.ledger_slice import ClusterLedger
from boundless.server.gateway.handler import MessageHandler
from boundless.server.gateway.hub import Hub
from boundless.server.players.service import PlayerService
from tests.cluster.conftest import run
from tests.cluster.harness import CHART, FAST, RULES
from tests.cluster.players import (
    GRANT,
    GatewayPlayers,
    PlayerClient,
    cluster_results,
    ledger_sessions,
    play_alone,
    play_cluster,
    seats_of,
    wallets,
)
from tests.cluster.test_gateway_players import ACE_SEED, DECLINER, INSURER
from tests.ledger.helpers import assert_books_balance
from tests.wallet.bench import operator_wallet, seamless, settled_calls

TIMERS = replace(FAST, betting_seconds=1.0, decision_seconds=5.0, insurance_seconds=5.0)


def test_gateways_on_the_operators_wallet_end_as_one_shared_round(tmp_path: Path) -> None:
    sessions = ledger_sessions(tmp_path)
    with operator_wallet(GRANT) as operator:
        provider = seamless(operator)
        provider.start(sessions)
        try:
            gateways = []
            ids: dict[str, str] = {}
            for index, styles in enumerate([[INSURER, DECLINER], [DECLINER, INSURER]]):
                hub = Hub()
                table = GatewayTable(table_id="seamless-1", gateway=f"g{index}", rules=RULES,
                                     chart=CHART, hub=hub, sessions=sessions,
                                     wallets=provider)  # fmt: skip
                gateway = GatewayPlayers(
                    f"g{index}", table, MessageHandler(table, hub, sessions, 1e3)
                )
                for number, style in enumerate(styles):
                    name = f"op{index}{number}"
                    with sessions.begin() as session:  # a player with no coins of ours
                        player, token = PlayerService(session).sign_up(name, 0)
                    ids[name] = player.player_id
                    gateway.clients.append(PlayerClient(name, token, style, gateway.handler))
                gateways.append(gateway)
            bus = MemoryBus()
            ledger = ClusterLedger(sessions, "c1")
            run(
                play_cluster(
                    bus, gateways, table_id="seamless-1", seed=ACE_SEED, timers=TIMERS,
                    coordinator_ledger=ledger,
                ),
                timeout=90,
            )  # fmt: skip
            alone = play_alone(seats_of(gateways, ids), seed=ACE_SEED)
            assert cluster_results(gateways) == alone
            settled_calls(provider)
            for name, player in ids.items():
                result, payout = alone[player]
                net = payout - result.staked_amount
                assert operator.store.balances[player] == GRANT + net, name
            assert set(wallets(sessions, list(ids.values())).values()) == {0}
            assert_books_balance(sessions)
        finally:
            provider.close()
