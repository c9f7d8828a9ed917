"""What the filings views share: the entity from the URL, scoped to the caller; the form-data body;
pagination; documents as responses."""

from __future__ import annotations

from django.http import HttpResponse

from common.api.views import V1APIView
from common.errors import NotFound
from onboarding.models import Entity

TAGS_CASES = ["onboarding: cases"]
TAGS_FILINGS = ["onboarding: filings"]


class FilingsView(V1APIView):
    @property
    def principal(self):
        return self.request.auth

    def entity(self, entity_id) -> Entity:
        principal = self.principal
        entity = Entity.objects.filter(pk=entity_id, organization=principal.organization, mode=principal.mode).first()
        if entity is None:
            raise NotFound("No entity of yours has this id.")
        return entity

    def form_body(self) -> dict | None:
        """The form data of the body (a JSON object), or None for an empty body (an empty QueryDict
        when the request named a form content type; a non-empty one is refused by the parser, 415)."""
        return self.request.data or None


def document_response(content: bytes, content_type: str, filename: str, *, attachment: bool = False, headers=None) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    safe = "".join(char if char.isalnum() or char in "-_." else "-" for char in filename) or "report"
    response["Content-Disposition"] = f'{"attachment" if attachment else "inline"}; filename="{safe}"'
    for name, value in (headers or {}).items():
        response[name] = value
    return response
