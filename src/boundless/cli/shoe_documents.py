"""The shoe documents ``boundless verify-shoe`` reads, in every form the platform hands them out.

1. a reveal: ``{"commitment", "salt", "cards"}`` (``boundless play --save-shoes``, the core's
   ``ShoeReveal.to_json``);
2. the REST shoe document ``GET /api/v1/shoes/{table_id}/{shoe_number}``: ``{"table_id",
   "shoe_number", "commitment", "finished", "reveal": {"salt", "cards", ...} or null}``;
3. that document's ``reveal`` alone: ``{"salt", "cards", "verified", "check"}``, which carries no
   commitment: the one published at the shuffle is given with ``--commitment``;
4. the WebSocket ``notice`` of kind ``shoe_finished`` (``{"type": "notice", ..., "detail":
   {"shoe_number", "commitment", "salt", "cards", "verified"}}``), or its ``detail``.

``--commitment`` always wins over the document's own: checking against the commitment seen at
the shuffle is the point of the check.
"""

from __future__ import annotations

from typing import Any


class ShoeDocumentError(ValueError):
    """The document is none of the forms above, or holds no reveal yet (one line)."""


def reveal_fields(data: object, commitment: str | None = None) -> dict[str, Any]:
    """``{"commitment", "salt", "cards"}`` out of any of the forms, for ``ShoeReveal.from_json``."""
    if not isinstance(data, dict):
        raise ShoeDocumentError("a shoe document must be a JSON object")
    if data.get("type") == "notice":  # the WebSocket notice itself
        if data.get("kind") != "shoe_finished":
            raise ShoeDocumentError(
                f"a {data.get('kind')!r} notice holds no reveal (only 'shoe_finished' does)"
            )
        data = data.get("detail")
        if not isinstance(data, dict):
            raise ShoeDocumentError("the notice's 'detail' must be a JSON object")
    if "reveal" in data and "finished" in data:  # the REST shoe document
        reveal = data["reveal"]
        if reveal is None:
            raise ShoeDocumentError(
                f"shoe {data.get('shoe_number')} of table {data.get('table_id')!r} is not "
                "finished: its reveal is published once the shoe is"
            )
        if not isinstance(reveal, dict):
            raise ShoeDocumentError("the shoe document's 'reveal' must be a JSON object")
        data = {**reveal, "commitment": data.get("commitment")}
    fields = dict(data)
    if commitment is not None:
        fields["commitment"] = commitment
    if fields.get("commitment") is None:
        raise ShoeDocumentError(
            "this reveal carries no commitment (it is the REST document's 'reveal' alone): give "
            "the one published at the shuffle with --commitment"
        )
    return fields
