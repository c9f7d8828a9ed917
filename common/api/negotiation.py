"""Content negotiation with a shortcut for the usual case.

Every /v1 view renders JSON only. When the request names no format and accepts anything or JSON
(no Accept header, `*/*`, `application/json`), the answer is the first renderer with its own media
type, which is what DRF's negotiation concludes after parsing the header; anything else goes
through DRF's full negotiation (and its 406)."""

from rest_framework.negotiation import DefaultContentNegotiation

PLAIN_ACCEPTS = frozenset({"", "*/*", "application/json"})


class JSONFirstContentNegotiation(DefaultContentNegotiation):
    def select_renderer(self, request, renderers, format_suffix=None):
        if (renderers and not format_suffix and renderers[0].media_type == "application/json"
                and request.META.get("HTTP_ACCEPT", "").strip() in PLAIN_ACCEPTS
                and not request.META.get("QUERY_STRING")):
            return renderers[0], renderers[0].media_type
        return super().select_renderer(request, renderers, format_suffix)
