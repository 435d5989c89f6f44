"""One table across many processes: the bus between a table's coordinator and its gateways.

The bus contract lives in :mod:`.bus`; :mod:`.memory_bus` implements it in one process and
:mod:`.jetstream_bus` on NATS JetStream (imported only by the cluster's processes, so nothing
here needs the optional ``cluster`` extra).
"""

from boundless.server.cluster.bus import (
    AppendResult,
    Bus,
    BusError,
    BusUnavailableError,
    GatewayReport,
    Lease,
    LeaseLostError,
    ReportKind,
    RoundEvent,
    StaleWriterError,
    StoredEvent,
    StoredReport,
    in_sequence,
)
from boundless.server.cluster.memory_bus import Faults, MemoryBus

__all__ = [
    "AppendResult",
    "Bus",
    "BusError",
    "BusUnavailableError",
    "Faults",
    "GatewayReport",
    "Lease",
    "LeaseLostError",
    "MemoryBus",
    "ReportKind",
    "RoundEvent",
    "StaleWriterError",
    "StoredEvent",
    "StoredReport",
    "in_sequence",
]
