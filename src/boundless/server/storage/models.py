"""Server tables (SQLAlchemy 2). The ledger owns ``ledger_*``; the server owns ``server_*``."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from boundless.ledger.sql_conventions import NAMING_CONVENTION, IdType, utc_now


class ServerBase(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Player(ServerBase):
    __tablename__ = "server_players"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    display_name: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    """SHA-256 of the bearer token (hex); the token itself is never stored."""
    is_bot: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class SignUp(ServerBase):
    """A recent sign-up's client address (the cluster's sign-up rate limit counts them)."""

    __tablename__ = "server_signups"
    __table_args__ = (Index("ix_server_signups_address", "address", "created_at"),)

    id: Mapped[int] = mapped_column(IdType, primary_key=True, autoincrement=True)
    address: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class Bet(ServerBase):
    """An accepted bet message, by its client-chosen id: a retry is answered from here."""

    __tablename__ = "server_bets"
    __table_args__ = (
        UniqueConstraint("player_id", "bet_id"),
        Index("ix_server_bets_bet_id", "bet_id"),
    )

    id: Mapped[int] = mapped_column(IdType, primary_key=True, autoincrement=True)
    player_id: Mapped[str] = mapped_column(String(64))
    bet_id: Mapped[str] = mapped_column(String(64))
    table_id: Mapped[str] = mapped_column(String(64))
    round_no: Mapped[int] = mapped_column(BigInteger)
    answer_json: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class Round(ServerBase):
    """A finished round (settled or cancelled) with everything the play record shows."""

    __tablename__ = "server_rounds"
    __table_args__ = (UniqueConstraint("table_id", "round_no"),)

    id: Mapped[int] = mapped_column(IdType, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(String(64))
    round_no: Mapped[int] = mapped_column(BigInteger)
    title: Mapped[str] = mapped_column(String(64))
    rules_version: Mapped[str] = mapped_column(String(64))
    shoe_number: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    round_in_shoe: Mapped[int | None] = mapped_column(Integer, nullable=True)
    shoe_commitment: Mapped[str | None] = mapped_column(String(64), nullable=True)
    status: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    events_json: Mapped[str] = mapped_column(Text)
    """The core's event log (``boundless.server.event_codec``); empty when lost in a crash."""
    ended_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class RoundPlayer(ServerBase):
    __tablename__ = "server_round_players"
    __table_args__ = (
        UniqueConstraint("round_id", "player_id"),
        Index("ix_server_round_players_player_round", "player_id", "round_id"),
    )

    id: Mapped[int] = mapped_column(IdType, primary_key=True, autoincrement=True)
    round_id: Mapped[int] = mapped_column(IdType, ForeignKey("server_rounds.id"))
    player_id: Mapped[str] = mapped_column(String(64))
    staked: Mapped[int] = mapped_column(BigInteger)
    paid: Mapped[int] = mapped_column(BigInteger)
    balance_before: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    balance_after: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    results_json: Mapped[str] = mapped_column(Text)
    status: Mapped[str | None] = mapped_column(String(16), nullable=True)
    """This player's ending when it differs from the round's (a shared round can settle for
    some players and be cancelled for others); ``None``: the round's."""
    reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    untold: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    """True while the player has not been sent this ending (their part was cancelled while they
    were not connected); whichever gateway they reach next tells them, once."""


class Shoe(ServerBase):
    """A shuffled shoe. ``cards`` and ``salt`` stay on the server until ``finished``."""

    __tablename__ = "server_shoes"
    __table_args__ = (UniqueConstraint("table_id", "shoe_number"),)

    id: Mapped[int] = mapped_column(IdType, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(String(64))
    shoe_number: Mapped[int] = mapped_column(BigInteger)
    commitment: Mapped[str] = mapped_column(String(64))
    salt: Mapped[str] = mapped_column(String(64))
    cards: Mapped[str] = mapped_column(Text)
    burn_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    finished: Mapped[bool] = mapped_column(Boolean, default=False)
    shuffled_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class ProtectionEvent(ServerBase):
    """One change to a player's protection, never updated or deleted: a limit asked for (taking
    effect at once or after the cooling-off), a time-out, a self-exclusion, a reality-check
    interval or answer. What is in force at a moment is read back from these rows."""

    __tablename__ = "server_protection_events"
    __table_args__ = (Index("ix_server_protection_events_player", "player_id", "id"),)

    id: Mapped[int] = mapped_column(IdType, primary_key=True, autoincrement=True)
    player_id: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(32))
    """``limit``, ``time_out``, ``self_exclusion``, ``reality_check``, ``reality_answer``,
    ``session_end`` (the session-time limit ended the session; ``field`` the reason)."""
    field: Mapped[str | None] = mapped_column(String(32), nullable=True)
    """(a limit) ``loss.day`` ... ``wager.month``, ``session_minutes``; (an answer) the choice."""
    amount: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    """The limit (minor units or minutes; None: no limit) or the reality-check minutes."""
    until_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    """(a time-out or self-exclusion) when it ends."""
    actor: Mapped[str] = mapped_column(String(16))
    """``player`` or ``operator``."""
    reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    effective_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class PlaySession(ServerBase):
    """A player's current session (one per player, shared by every gateway): when it began and
    the state of its reality check."""

    __tablename__ = "server_play_sessions"

    player_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    check_due_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    """When the next reality check falls due; None: none chosen."""
    check_pending: Mapped[bool] = mapped_column(Boolean, default=False)
    """A reality check was shown and waits for continue or leave: new bets are refused."""
