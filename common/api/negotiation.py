"""Content negotiation with a shortcut for the usual case.

Every /v1 view renders JSON only. When the request names no format and accepts anything or JSON
(no Accept header, `*/*`, `application/json`), the answer is the first renderer with its own media
type, which is what DRF's negotiation concludes after parsing the header; anything else goes
through DRF's full negotiation (and its 406)."""

from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation

PLAIN_ACCEPTS = frozenset({"", "*/*", "application/json"})


class JSONFirstContentNegotiation(DefaultContentNegotiation):
    def select_renderer(self, request, renderers, format_suffix=None):
        if (renderers and not format_suffix and renderers[0].media_type == "application/json"
                and request.META.get("HTTP_ACCEPT", "").strip() in PLAIN_ACCEPTS
                and not request.META.get("QUERY_STRING")):
            return renderers[0], renderers[0].media_type
        return super().select_renderer(request, renderers, format_suffix)

    def filter_renderers(self, renderers, format):
        """`?format=xml`: a 406 saying the API answers JSON only. DRF's own answer is a 404, which
        reads as an unknown record (and got the mode hint that goes with one)."""
        matching = [renderer for renderer in renderers if renderer.format == format]
        if not matching:
            raise NotAcceptable(f"The API answers JSON only: leave format out or send format=json (not {format!r}).")
        return matching
