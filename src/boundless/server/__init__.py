"""The live table server: FastAPI + WebSockets around the pure round, the ledger and a play record.

``create_app(ServerConfig(...))`` builds the ASGI app; ``boundless serve`` runs it with uvicorn.
"""
