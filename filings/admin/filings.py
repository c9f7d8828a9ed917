"""Filing records, read-only, with the stored documents (and attachments) downloadable."""

import base64
import json

from django.contrib import admin
from django.http import Http404, HttpResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from common.admin_support import OrganizationFilter, ReadOnlyAdmin, of_members, sar_cleared_anywhere
from filings.cases.selectors import FILINGS_ROLE
from filings.models import FilingRecord


@admin.register(FilingRecord)
class FilingRecordAdmin(ReadOnlyAdmin):
    list_display = ("tracking_id", "kind", "jurisdiction", "entity", "case", "amount", "currency", "filing_date", "filed_by_label",
                    "prepared_by_label", "mode")
    list_filter = ("kind", "family", "jurisdiction", "mode", OrganizationFilter)
    search_fields = ("tracking_id", "report_reference", "entity__legal_name", "=id")
    list_select_related = ("entity", "case", "organization")
    fields = ("tracking_id", "kind", "family", "jurisdiction", "organization", "mode", "entity", "case", "alert", "report_reference",
              "amendment_type", "prior_report_id", "amount", "currency", "activity_start_date", "activity_end_date", "filing_date",
              "filed_at", "filed_by_label", "prepared_by_label", "four_eyes", "covered", "bsa_id", "content_type", "filename",
              "document_sha256", "downloads", "warnings_list", "filer_pretty")
    readonly_fields = fields

    def has_view_permission(self, request, obj=None):
        # below l2_investigator everywhere: not even the list
        return self.admin_site.has_permission(request) and sar_cleared_anywhere(request)

    def get_queryset(self, request):
        # Only where the console user may read filings through the API too (the histories' role).
        records = super().get_queryset(request).defer("document", "form_data")
        return of_members(records, request, minimum_role=FILINGS_ROLE).order_by("-filed_at", "-id")

    def get_urls(self):
        view = self.admin_site.admin_view
        return [path("<uuid:filing_id>/download/", view(self.download), name="filings_filingrecord_download"),
                path("<uuid:filing_id>/download/<str:name>/", view(self.download), name="filings_filingrecord_attachment"),
                *super().get_urls()]

    @admin.display(description="documents")
    def downloads(self, record):
        links = [(reverse("admin:filings_filingrecord_download", args=[record.pk]), record.filename)]
        links += [(reverse("admin:filings_filingrecord_attachment", args=[record.pk, name]), name) for name in sorted(record.attachments)]
        return format_html_join(" · ", '<a href="{}">{}</a>', links)

    @admin.display(description="four eyes")
    def four_eyes(self, record):
        if record.four_eyes_required is None:
            return "—"
        applied = "applied (the filer was not the preparer)" if record.four_eyes_required else "did not apply"
        return f"{applied}; the organization's setting: {record.four_eyes_setting or '—'}"

    @admin.display(description="what it covers")
    def covered(self, record):
        selection = record.selection or {}
        rows = [("covered", item) for item in selection.get("included", [])]
        rows += [("left out", item) for item in selection.get("excluded", [])]
        return format_html_join("", "<div>{}: {} <code>{}</code> — {}</div>",
                                ((label, item.get("rule"), item.get("alert_id"), item.get("reason")) for label, item in rows)) or "—"

    @admin.display(description="warnings when filed")
    def warnings_list(self, record):
        return format_html_join("", "<div>{}: {}</div>", ((w.get("path"), w.get("message")) for w in record.warnings)) or "—"

    @admin.display(description="filer")
    def filer_pretty(self, record):
        return format_html("<pre>{}</pre>", json.dumps(record.filer, indent=2, ensure_ascii=False))

    def download(self, request, filing_id, name=None):
        record = self.get_queryset(request).filter(pk=filing_id).defer(None).first()
        if record is None or not self.has_view_permission(request, record):
            raise Http404("No such filing.")
        if name is None:
            content, content_type, filename = bytes(record.document), record.content_type, record.filename
        elif name in record.attachments:
            content, content_type, filename = base64.b64decode(record.attachments[name]), "text/csv", name
        else:
            raise Http404("No such attachment.")
        response = HttpResponse(content, content_type=content_type)
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response
