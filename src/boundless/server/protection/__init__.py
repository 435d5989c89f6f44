"""Player protection: limits, reality checks, time-outs, self-exclusion, session figures.

Everything here is decided on the server, on ``boundless serve`` and every cluster gateway
alike, from rows in the shared database: no client can skip it.
"""
