"""/v1/travel-rule/...: the endpoints counterparty VASPs call (signed, no API key)."""

from django.urls import path

from compliance.api.vasp_views import VaspInquiryView, VaspReplyView

urlpatterns = [
    path("vasps/<uuid:vasp_id>/inquiry", VaspInquiryView.as_view(), name="travel-rule-vasp-inquiry"),
    path("vasps/<uuid:vasp_id>/reply", VaspReplyView.as_view(), name="travel-rule-vasp-reply"),
]
