"""``boundless report``: a certification-style report of one title (see :mod:`.sections`)."""
