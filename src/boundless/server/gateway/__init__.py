"""Connections: WebSocket sockets and in-process bot clients, the hub that fans messages out, and
the one message handler both go through."""
