"""Console: the counterparty VASP directory (writes through compliance.travel_rule.vasp_services: admin role,
audited; the secret shown once after creation) and the inbound travel-rule records (read-only)."""

from functools import partial

from django import forms
from django.contrib import admin
from django.template.response import TemplateResponse

from common.admin_support import OrganizationFilter, ReadOnlyAdmin, ServiceSaveAdmin, TenantAdmin, admin_principal
from compliance.models import CounterpartyVasp, InboundTravelRuleTransfer
from compliance.travel_rule import vasp_protocol, vasp_services

FIELDS = ("name", "lei", "inquiry_url", "status")


class VaspForm(forms.ModelForm):
    shared_secret = forms.CharField(required=False, max_length=200, strip=False,
                                    help_text="The secret the other VASP made for the pair, if it made one first; else leave "
                                              "empty and give it the one shown after saving.")

    class Meta:
        model = CounterpartyVasp
        fields = ("organization", "mode", *FIELDS)


@admin.register(CounterpartyVasp)
class CounterpartyVaspAdmin(TenantAdmin, ServiceSaveAdmin):
    form = VaspForm
    list_display = ("name", "lei", "inquiry_url", "status", "organization", "mode", "created_at")
    list_filter = ("status", "mode", OrganizationFilter)
    search_fields = ("name", "lei", "inquiry_url")
    list_select_related = ("organization",)
    ordering = ("name",)

    def get_fields(self, request, obj=None):
        return ("organization", "mode", *FIELDS, "shared_secret") if obj is None else ("organization", "mode", *FIELDS, "created_at")

    def get_readonly_fields(self, request, obj=None):
        return () if obj is None else ("organization", "mode", "created_at")

    def has_delete_permission(self, request, obj=None):
        return False  # transfers keep their VASP: disable it instead

    def save_model(self, request, obj, form, change):
        principal = admin_principal(request, obj.organization, obj.mode)
        values = {field: form.cleaned_data[field] for field in FIELDS}
        if change:
            self.save_through(request, partial(vasp_services.vasp_update, principal=principal, vasp_id=obj.pk, changes=values))
            return
        created = {}

        def create():
            created["vasp"] = vasp_services.vasp_create(principal=principal, shared_secret=form.cleaned_data["shared_secret"] or None,
                                                        **values)

        if self.save_through(request, create):
            obj.pk = created["vasp"].pk
            obj._state.adding = False
            request._vasp_created = created["vasp"]

    def response_add(self, request, obj, post_url_continue=None):
        vasp = getattr(request, "_vasp_created", None)
        if vasp is None:
            return super().response_add(request, obj, post_url_continue)
        return TemplateResponse(request, "admin/compliance/vasp_secret.html", {
            **self.admin_site.each_context(request), "vasp": vasp, "secret": vasp.shared_secret, "opts": self.model._meta,
            "inquiry_url": vasp_protocol.inbound_url(vasp, "inquiry"), "title": "Counterparty VASP created"})


@admin.register(InboundTravelRuleTransfer)
class InboundTravelRuleTransferAdmin(TenantAdmin, ReadOnlyAdmin):
    """Transfers other VASPs announced to our customers, with our answer and the IVMS101 data."""

    list_display = ("external_transfer_id", "decision", "originator_vasp", "beneficiary_entity", "amount", "asset", "chain_id",
                    "created_at")
    list_filter = ("decision", "mode", "chain_id", OrganizationFilter)
    search_fields = ("external_transfer_id", "commitment", "to_address", "from_address", "beneficiary_entity__legal_name",
                     "originator_vasp__name")
    list_select_related = ("originator_vasp", "beneficiary_entity")
    ordering = ("-created_at",)
    fields = ("organization", "mode", "originator_vasp", "external_transfer_id", "decision", "reason", "beneficiary_entity",
              "chain_id", "asset", "amount", "from_address", "to_address", "originator", "beneficiary", "originating_vasp", "salt",
              "commitment", "tx_hash", "created_at")
    readonly_fields = fields
