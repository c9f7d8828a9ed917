"""The investigator console for onboarding: entities (review actions through the same services as the
API), screening hits (mark false positive), compliance checks, the sanctions lists, and which of them
each organization screens against (turned on and off through the service: admin role, audit)."""

import json
from functools import partial
from urllib.parse import urlencode

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from common.admin_support import (
    OrganizationFilter,
    OrganizationPolicyAdmin,
    ReadOnlyAdmin,
    TenantAdmin,
    admin_principal,
    of_members,
    run_service,
    visible_organizations,
)
from onboarding import selectors, services
from onboarding.choices import ENTITY_TRANSITIONS
from onboarding.kyb import expires_at
from onboarding.models import (
    BeneficialOwner,
    ComplianceCheck,
    Entity,
    KybPolicy,
    RiskAssessment,
    ScreeningHit,
    ScreeningListSetting,
    Wallet,
)
from onboarding.sanctions import admin as sanctions_admin  # noqa: F401  (the sanctions lists, versions and refresh log)
from onboarding.sanctions.registry import list_name
from organizations.choices import Role


def reason_form(request, queryset, *, action: str, title: str, intro: str, submit: str, reason_required: bool, with_notes=False):
    """The confirm page of an action that needs a reason; None once it was submitted."""
    if request.POST.get("apply"):
        return None
    return TemplateResponse(request, "admin/onboarding/action_reason.html", {
        **admin.site.each_context(request), "title": title, "intro": intro, "queryset": queryset, "action": action,
        "submit": submit, "reason_required": reason_required, "with_notes": with_notes,
    })


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class MaskedTaxId:
    """The tax id's last four digits, or the console's dash when there is none (a model method's None
    would read 'None')."""

    @admin.display(description="Tax id")
    def tax_id(self, obj):
        return obj.tax_id_masked or self.get_empty_value_display()


class OwnerInline(MaskedTaxId, ReadOnlyInline):
    model = BeneficialOwner
    fields = readonly_fields = ("name", "date_of_birth", "nationality", "ownership_pct", "tax_id")
    show_change_link = False


class WalletInline(ReadOnlyInline):
    model = Wallet
    fields = readonly_fields = ("chain_id", "address", "label", "status", "flagged", "flag_reason", "created_at")
    show_change_link = False


class CheckInline(ReadOnlyInline):
    model = ComplianceCheck
    fields = readonly_fields = ("created_at", "check_type", "result", "score", "provider", "external", "summary")
    ordering = ("-created_at",)


class HitInline(ReadOnlyInline):
    model = ScreeningHit
    fk_name = "entity"
    fields = readonly_fields = ("subject_type", "subject_value", "primary_name", "source", "entry_uid", "score", "outcome", "status",
                                "active")
    verbose_name_plural = "screening hits (open one to mark it a false positive)"

    def get_queryset(self, request):
        return super().get_queryset(request).filter(active=True)


class RiskInline(ReadOnlyInline):
    model = RiskAssessment
    fields = readonly_fields = ("created_at", "score", "tier", "previous_score", "reason", "actor_label")
    ordering = ("-created_at",)
    show_change_link = False
    verbose_name_plural = "risk history"


class KybFilter(admin.SimpleListFilter):
    title = "KYB verification"
    parameter_name = "kyb"

    def lookups(self, request, model_admin):
        return (("none", "Never verified"), ("valid", "Valid"), ("expired", "Expired"))

    def queryset(self, request, queryset):
        return {
            "none": lambda: queryset.filter(kyb_verified_at__isnull=True),
            "valid": lambda: queryset.filter(kyb_verified_at__isnull=False, kyb_expired_at__isnull=True),
            "expired": lambda: queryset.filter(kyb_expired_at__isnull=False),
        }.get(self.value(), lambda: queryset)()


@admin.register(Entity)
class EntityAdmin(MaskedTaxId, admin.ModelAdmin):
    list_display = ("legal_name", "entity_type", "jurisdiction", "status", "risk_score", "risk_tier", "sanctioned", "organization",
                    "mode", "created_at")
    list_filter = ("status", "risk_tier", "sanctioned", KybFilter, "entity_type", "mode", OrganizationFilter)
    search_fields = ("legal_name", "external_id", "registration_number", "=id", "=wallets__address")
    list_select_related = ("organization",)
    actions = ["approve", "reject", "suspend"]
    inlines = [OwnerInline, WalletInline, CheckInline, HitInline, RiskInline]
    fieldsets = (
        (None, {"fields": ("organization", "mode", "legal_name", "entity_type", "jurisdiction", "external_id", "registration_number",
                           "tax_id", "date_of_birth", "industry", "address", "website", "email", "phone",
                           "expected_monthly_volume_usd", "metadata")}),
        ("Status", {"fields": ("status", "status_reason", "status_changed_at", "sanctioned", "pep", "adverse_media")}),
        ("Risk", {"fields": ("risk_score", "risk_tier", "risk_factor_table")}),
        ("KYB verification", {"fields": ("kyb_verified_at", "kyb_check", "kyb_due", "kyb_expired_at")}),
        ("Monitoring", {"fields": ("alerts_and_cases",)}),
        ("Audit trail", {"fields": ("audit_trail",)}),
    )

    def get_readonly_fields(self, request, obj=None):
        return [field for fieldset in self.fieldsets for field in fieldset[1]["fields"]]

    @admin.display(description="Falls due")
    def kyb_due(self, entity):
        due = expires_at(entity, selectors.kyb_policy(organization_id=entity.organization_id))
        return due or "-"

    def has_add_permission(self, request):
        return False  # entities are onboarded through the API, which screens them

    def has_delete_permission(self, request, obj=None):
        return False

    change_form_template = "admin/onboarding/entity/change_form.html"

    def get_queryset(self, request):
        return of_members(super().get_queryset(request), request)
    REVIEW_DECISIONS = {"approve": False, "reject": True, "suspend": True}  # decision: reason required

    def change_view(self, request, object_id, form_url="", extra_context=None):
        # Every field is read-only (the API and the review actions change an entity): no Save buttons,
        # and the decisions its status allows as buttons of their own.
        entity = self.get_object(request, object_id)
        decisions = [d for d in self.REVIEW_DECISIONS if entity is not None and entity.status in ENTITY_TRANSITIONS[d][0]]
        extra_context = {**(extra_context or {}), "show_save": False, "show_save_and_continue": False,
                         "show_save_and_add_another": False, "title": "Entity", "review_decisions": decisions}
        return super().change_view(request, object_id, form_url, extra_context)

    def get_urls(self):
        return [path("<uuid:entity_id>/review/<str:decision>/", self.admin_site.admin_view(self.review_one),
                     name="onboarding_entity_review"), *super().get_urls()]

    def review_one(self, request, entity_id, decision: str):
        """One entity's approve / reject / suspend from its page: the list's action for a queryset of one."""
        entity = self.get_object(request, str(entity_id))
        if entity is None or decision not in self.REVIEW_DECISIONS:
            raise Http404("No such entity or decision.")
        if not self.has_view_permission(request, entity):  # as the entity's own page and the list's action require
            raise PermissionDenied
        page = self._review(request, self.get_queryset(request).filter(pk=entity.pk), decision,
                            reason_required=self.REVIEW_DECISIONS[decision])
        return page or HttpResponseRedirect(reverse("admin:onboarding_entity_change", args=[entity.pk]))

    @admin.display(description="Alerts and cases")
    def alerts_and_cases(self, entity):
        open_alerts = entity.alerts.exclude(status="closed").count()
        cases = entity.cases.exclude(status="closed").count()
        query = urlencode({"entity": entity.pk, "queue": "all"})
        return format_html('<a href="{}">{} open alert(s), all alerts</a> · <a href="{}">{} open case(s), all cases</a>',
                           f'{reverse("admin:monitoring_alert_changelist")}?{query}', open_alerts,
                           f'{reverse("admin:filings_case_changelist")}?{query}', cases)

    @admin.display(description="Risk factors")
    def risk_factor_table(self, entity):
        rows = format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                                ((f["label"], f["weight"], f["contribution"], f["detail"]) for f in entity.risk_factors or []))
        return format_html("<table><tr><th>Factor</th><th>Weight</th><th>Points</th><th>Why</th></tr>{}</table>", rows)

    @admin.display(description="Audit trail")
    def audit_trail(self, entity):
        entries = selectors.audit_of_entity(entity)[:200]
        rows = format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                                ((e.created_at.strftime("%Y-%m-%d %H:%M:%S"), e.actor_label or e.actor_type, e.action,
                                  json.dumps(e.after, ensure_ascii=False, default=str) if e.after else "") for e in entries))
        return format_html("<table><tr><th>When</th><th>Who</th><th>What</th><th>After</th></tr>{}</table>", rows)

    def _review(self, request, queryset, decision: str, *, reason_required: bool):
        page = reason_form(request, queryset, action=decision, title=f"{decision.capitalize()} entities", submit=decision.capitalize(),
                           intro=f"{decision.capitalize()} these entities. The decision is recorded with your name.",
                           reason_required=reason_required, with_notes=True)
        if page is not None:
            return page
        reason, notes = request.POST.get("reason", ""), request.POST.get("notes", "")
        for entity in queryset:
            principal = admin_principal(request, entity.organization, entity.mode)
            run_service(request, partial(services.entity_review, principal=principal, entity_id=entity.pk, action=decision,
                                         reason=reason, notes=notes), f"{entity}: {decision} done.")
        return None

    @admin.action(description="Approve the selected entities")
    def approve(self, request, queryset):
        return self._review(request, queryset, "approve", reason_required=False)

    @admin.action(description="Reject the selected entities")
    def reject(self, request, queryset):
        return self._review(request, queryset, "reject", reason_required=True)

    @admin.action(description="Suspend the selected entities")
    def suspend(self, request, queryset):
        return self._review(request, queryset, "suspend", reason_required=True)


@admin.register(ScreeningHit)
class ScreeningHitAdmin(TenantAdmin, ReadOnlyAdmin):
    list_display = ("subject_value", "primary_name", "source", "entry_uid", "score", "outcome", "status", "active", "entity",
                    "created_at")
    list_filter = ("status", "outcome", "active", "source", "subject_type", "mode", OrganizationFilter)
    search_fields = ("subject_value", "primary_name", "entry_uid")
    list_select_related = ("entity", "false_positive")
    actions = ["mark_false_positive"]
    readonly_fields = ("entity", "subject_type", "subject_value", "source", "entry_uid", "entry_version_hash", "primary_name",
                       "matched_name", "score", "outcome", "method", "status", "active", "false_positive_decision", "explanation")
    fields = readonly_fields

    def get_queryset(self, request):
        return super().get_queryset(request).order_by("-created_at", "id")

    @admin.display(description="False-positive decision")
    def false_positive_decision(self, hit):
        decision = hit.false_positive
        if decision is None:
            return "—"
        return f"{decision.decided_by} on {decision.created_at:%Y-%m-%d %H:%M}: {decision.reason}"

    @admin.action(description="Mark the selected hits as false positives")
    def mark_false_positive(self, request, queryset):
        page = reason_form(request, queryset, action="mark_false_positive", title="Mark hits as false positives",
                           intro="The listed entry is not this entity. The hit is not raised again for the entity until the "
                                 "publisher changes the entry.", submit="Mark false positive", reason_required=True)
        if page is not None:
            return page
        for hit in queryset.select_related("entity__organization"):
            principal = admin_principal(request, hit.entity.organization, hit.mode)
            run_service(request, partial(services.hit_mark_false_positive, principal=principal, entity_id=hit.entity_id,
                                         hit_id=hit.pk, reason=request.POST.get("reason", "")),
                        f"{hit}: marked a false positive.")
        return None


@admin.register(ComplianceCheck)
class ComplianceCheckAdmin(TenantAdmin, ReadOnlyAdmin):
    list_display = ("entity", "check_type", "result", "score", "provider", "external", "created_at")
    list_filter = ("check_type", "result", "external", "mode", OrganizationFilter)
    search_fields = ("entity__legal_name", "provider")
    list_select_related = ("entity",)
    fields = ("entity", "check_type", "result", "score", "provider", "external", "counts_toward_status", "summary", "requested_by",
              "details", "raw_response", "created_at")
    readonly_fields = fields


@admin.register(ScreeningListSetting)
class ScreeningListAdmin(admin.ModelAdmin):
    """"Screening lists": every list the registry knows or the database holds, as one organization
    screens against it, with a button to turn it on or off (onboarding.services.screening_list_set:
    admin role, audit). Other roles see the page without the buttons."""

    def has_add_permission(self, request):
        return False  # a setting exists once a list is turned on or off here

    def has_delete_permission(self, request, obj=None):
        return False

    def change_view(self, request, object_id, form_url="", extra_context=None):
        setting = ScreeningListSetting.objects.filter(pk=object_id, organization__in=visible_organizations(request)).first()
        query = f"?organization={setting.organization_id}" if setting else ""
        return HttpResponseRedirect(reverse("admin:onboarding_screeninglistsetting_changelist") + query)

    def changelist_view(self, request, extra_context=None):
        if not self.has_view_or_change_permission(request):
            raise PermissionDenied
        organizations = list(visible_organizations(request))
        chosen = request.POST.get("organization") or request.GET.get("organization", "")
        organization = next((org for org in organizations if str(org.pk) == chosen), None)
        if chosen and organization is None:
            raise Http404("No such organization.")
        organization = organization or (organizations[0] if organizations else None)
        if request.method == "POST" and organization is not None:
            return self._set(request, organization)
        context = {**self.admin_site.each_context(request), "opts": self.model._meta, "title": "Screening lists",
                   "organizations": organizations, "organization": organization}
        if organization is not None:
            principal = admin_principal(request, organization)
            context["can_change"] = self.has_change_permission(request) and Role.at_least(principal.role, services.LISTS_ROLE)
            context["role"] = principal.role
            context["lists"] = selectors.screening_list_views(organization)
        return TemplateResponse(request, "admin/onboarding/screeninglistsetting/lists.html", context)

    def _set(self, request, organization):
        if not self.has_change_permission(request):
            raise PermissionDenied
        source, enabled = request.POST.get("source", ""), request.POST.get("enabled")
        if enabled not in ("on", "off"):
            raise Http404("Say on or off.")
        done = "screens against" if enabled == "on" else "no longer screens against"
        run_service(request, partial(services.screening_list_set, actor=admin_principal(request, organization), organization=organization,
                                     source=source, enabled=enabled == "on"),
                    f"{organization.name} {done} {list_name(source)} ({source}): its customers are being screened again.")
        return HttpResponseRedirect(f"{reverse('admin:onboarding_screeninglistsetting_changelist')}?organization={organization.pk}")


@admin.register(KybPolicy)
class KybPolicyAdmin(OrganizationPolicyAdmin):
    """The organization's KYB review periods (onboarding.services.kyb: admin role, audit)."""

    policy_fields = services.KYB_POLICY_FIELDS
    policy_service = staticmethod(services.kyb_policy_set)
