"""Entity labels in the console: the list (per organization and mode) and an upload page calling the
API's service, so the role check, the line-numbered errors and the audit entry are the same."""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse

from common.admin_support import OrganizationFilter, ReadOnlyAdmin, TenantAdmin, admin_principal, visible_organizations
from common.errors import ServiceError, ValidationFailed
from monitoring.labels import parsing
from monitoring.labels.services import labels_upload
from monitoring.models import EntityLabel
from organizations.choices import Mode

ERRORS_SHOWN = 200


class LabelUploadForm(forms.Form):
    organization = forms.ChoiceField()
    mode = forms.ChoiceField(choices=Mode.choices, initial=Mode.LIVE)
    file = forms.FileField(help_text="CSV with a header: label and entity_id or external_id; optional typology.")

    def __init__(self, *args, organizations, **kwargs):
        super().__init__(*args, **kwargs)
        self.organizations = {str(org.pk): org for org in organizations}
        self.fields["organization"].choices = [(pk, str(org)) for pk, org in self.organizations.items()]


@admin.register(EntityLabel)
class EntityLabelAdmin(TenantAdmin, ReadOnlyAdmin):
    list_display = ("entity", "label", "typology", "mode", "organization", "updated_at")
    list_filter = (OrganizationFilter, "mode", "label", "typology")
    search_fields = ("entity__legal_name", "entity__external_id", "typology")
    list_select_related = ("entity", "organization")

    def has_view_permission(self, request, obj=None):
        return request.user.is_staff

    def get_urls(self):
        upload = path("upload/", self.admin_site.admin_view(self.upload_view), name="monitoring_entitylabel_upload")
        return [upload, *super().get_urls()]

    def changelist_view(self, request, extra_context=None):
        extra = {"upload_url": reverse("admin:monitoring_entitylabel_upload"), **(extra_context or {})}
        return super().changelist_view(request, extra_context=extra)

    def upload_view(self, request):
        if not self.has_view_permission(request):
            raise PermissionDenied
        form = LabelUploadForm(request.POST or None, request.FILES or None, organizations=visible_organizations(request))
        result = None
        if request.method == "POST" and form.is_valid():
            result = self._upload(request, form)
            if result is not None and not result["errors"]:
                messages.success(request, f"{result['stored']} labels stored ({result['created']} new, {result['updated']} replaced).")
                return HttpResponseRedirect(reverse("admin:monitoring_entitylabel_changelist"))
        return TemplateResponse(request, "admin/monitoring/entitylabel/upload.html", {
            **self.admin_site.each_context(request), "opts": self.model._meta, "title": "Upload labels", "form": form,
            "result": result, "errors_shown": (result or {}).get("errors", [])[:ERRORS_SHOWN]})

    @staticmethod
    def _upload(request, form: LabelUploadForm) -> dict | None:
        organization = form.organizations[form.cleaned_data["organization"]]
        principal = admin_principal(request, organization, form.cleaned_data["mode"])
        try:
            return labels_upload(principal=principal, rows=parsing.csv_rows(form.cleaned_data["file"].read()))
        except ValidationFailed as error:
            for detail in error.details:
                form.add_error("file", detail["message"])
        except ServiceError as error:
            form.add_error(None, error.message)
        return None
