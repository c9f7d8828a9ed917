"""The 314(a) and 314(b) console: files with their matches and the review of a match; partners and
their verification; requests, and recording one received out of band. Every change goes through
the services the API calls (roles, audit entries), scoped to the console user's organizations, and
there to those where their role may read them through the API (L2 investigator or above)."""

from django import forms
from django.contrib import admin, messages
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html

from common.admin_support import (
    OrganizationFilter,
    ReadOnlyAdmin,
    ServiceSaveAdmin,
    TenantAdmin,
    admin_principal,
    of_members,
    run_service,
)
from common.errors import ValidationFailed
from monitoring.fincen314a import services as services_a
from monitoring.fincen314b import services as services_b
from monitoring.fincen314b.ein import ein_normalized
from monitoring.models import Fincen314aFile, Fincen314aMatch, Fincen314bPartner, Fincen314bRequest
from monitoring.models.fincen314a import ReviewStatus
from monitoring.models.fincen314b import RequestDirection


def _action_form(model_admin, request, queryset, *, form, action: str, title: str, intro: str, submit: str):
    return TemplateResponse(request, "admin/monitoring/fincen314/action_form.html", {
        **model_admin.admin_site.each_context(request), "title": title, "intro": intro, "records": queryset, "form": form,
        "action": action, "submit": submit, "opts": model_admin.model._meta, "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
        "cancel_url": reverse(f"admin:{model_admin.model._meta.app_label}_{model_admin.model._meta.model_name}_changelist"),
    })


def _form_action(model_admin, request, queryset, *, form_class, service, success, action: str, title: str, intro: str, submit: str):
    """An action that asks for a form first, then calls `service(principal, record, **form data)` for
    each selected record (a refusal names the record); `success(count, data)` says what was done."""
    form = form_class(request.POST if "apply" in request.POST else None)
    if "apply" in request.POST and form.is_valid():
        done = sum(run_service(request, lambda record=record: service(
            admin_principal(request, record.organization, record.mode), record, **form.cleaned_data),
            subject=str(record)) for record in queryset)
        if done:
            model_admin.message_user(request, success(done, form.cleaned_data), messages.SUCCESS)
        return None
    return _action_form(model_admin, request, queryset, form=form, action=action, title=title, intro=intro, submit=submit)


class ReadOnlyTenantAdmin(TenantAdmin, ReadOnlyAdmin):
    def has_view_permission(self, request, obj=None):
        return self.admin_site.has_permission(request)


# --- 314(a) ------------------------------------------------------------------------------------

class MatchInline(admin.TabularInline):
    model = Fincen314aMatch
    fields = ("match_page", "subject_name", "entity", "score", "match_fields", "review_status", "reviewer")
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ("-score",)

    def has_add_permission(self, request, obj=None):
        return False

    @admin.display(description="match")
    def match_page(self, found):
        return format_html('<a href="{}">review</a>', reverse("admin:monitoring_fincen314amatch_change", args=[found.pk]))

    @admin.display(description="subject")
    def subject_name(self, found):
        return found.subject.name


@admin.register(Fincen314aFile)
class Fincen314aFileAdmin(ReadOnlyTenantAdmin):
    view_role = services_a.READ_ROLE  # confidential (31 CFR 1010.520(b)(3)(iv)(B), 1010.540): as the API reads them
    list_display = ("filename", "period", "status", "subjects_count", "match_count", "response_deadline", "created_at", "mode")
    list_filter = ("status", "mode", OrganizationFilter)
    search_fields = ("filename", "=id")
    list_select_related = ("organization",)
    readonly_fields = ("organization", "mode", "filename", "period", "status", "subjects_count", "entities_searched", "created_at",
                       "uploaded_by_label", "estimated_completion", "completed_at", "response_deadline", "content_sha256")
    exclude = ("uploaded_by", "enqueued_at")
    inlines = [MatchInline]

    @admin.display(description="matches")
    def match_count(self, file):
        return file.matches.count()


class ReviewForm(forms.Form):
    result = forms.ChoiceField(choices=[("", "— choose —"), (ReviewStatus.POSITIVE, "Positive: the subject is our customer"),
                                        (ReviewStatus.NEGATIVE, "Negative: not the same party")])
    notes = forms.CharField(widget=forms.Textarea(attrs={"rows": 4, "cols": 60}), max_length=services_a.NOTES_MAX_CHARS,
                            error_messages={"required": services_a.NOTES_REQUIRED})


class PendingFirst(admin.SimpleListFilter):
    title = "review"
    parameter_name = "review"

    def lookups(self, request, model_admin):
        return [("pending", "Pending (default)"), ("reviewed", "Reviewed"), ("all", "All")]

    def choices(self, changelist):
        for lookup, title in self.lookup_choices:
            yield {"selected": (self.value() or "pending") == lookup, "display": title,
                   "query_string": changelist.get_query_string({self.parameter_name: lookup})}

    def queryset(self, request, queryset):
        value = self.value() or "pending"
        if value == "pending":
            return queryset.filter(review_status=ReviewStatus.PENDING)
        if value == "reviewed":
            return queryset.exclude(review_status=ReviewStatus.PENDING)
        return queryset


@admin.register(Fincen314aMatch)
class Fincen314aMatchAdmin(ReadOnlyTenantAdmin):
    view_role = services_a.READ_ROLE  # confidential (31 CFR 1010.520(b)(3)(iv)(B), 1010.540): as the API reads them
    list_display = ("subject_name", "entity", "score", "match_fields", "review_status", "file", "deadline", "mode")
    list_filter = (PendingFirst, "review_status", "mode", OrganizationFilter)
    search_fields = ("subject__name", "entity__legal_name", "=id")
    list_select_related = ("subject", "entity", "file")
    readonly_fields = ("organization", "mode", "file", "subject_details", "entity", "score", "match_fields", "review_status",
                       "reviewed_at", "reviewer", "notes")
    exclude = ("subject", "reviewed_by")
    actions = ["review"]

    @admin.display(description="subject", ordering="subject__name")
    def subject_name(self, found):
        return found.subject.name

    @admin.display(description="response due", ordering="file__response_deadline")
    def deadline(self, found):
        return found.file.response_deadline

    @admin.display(description="subject")
    def subject_details(self, found):
        subject = found.subject
        return format_html("{} · {} · born {} · {} · id {} · tracking {}", subject.name, subject.subject_type or "type not given",
                           subject.date_of_birth or "—", subject.full_address or "no address", subject.id_number_masked or "—",
                           subject.tracking_number)

    @admin.action(description="Review the selected matches…")
    def review(self, request, queryset):
        return _form_action(
            self, request, queryset, form_class=ReviewForm, action="review", title="Review 314(a) matches", submit="Record the review",
            service=lambda principal, found, **data: services_a.match_review(principal=principal, match_id=found.pk, **data),
            success=lambda done, data: f"{done} match{'es' if done > 1 else ''} reviewed as {data['result']}.",
            intro="Record whether each subject is the customer. The result, your name, the time and your notes are kept; "
                  "a positive match must be reported to FinCEN by the response deadline.")


# --- 314(b) ------------------------------------------------------------------------------------

class VerifyForm(forms.Form):
    verified = forms.TypedChoiceField(choices=[("true", "Verified: on FinCEN's list of 314(b) participants"),
                                               ("false", "Not verified: the check failed")], coerce=lambda value: value == "true")
    verification_method = forms.CharField(max_length=100, initial="fincen_lookup")
    notes = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "cols": 60}), max_length=services_b.TEXT_MAX_CHARS, required=False)


class CertificationForm(forms.Form):
    certification_date = forms.DateField(help_text="When the renewed notice took effect (YYYY-MM-DD).")
    certification_expiry = forms.DateField(help_text="When it lapses.")


@admin.register(Fincen314bPartner)
class Fincen314bPartnerAdmin(ReadOnlyTenantAdmin):
    view_role = services_b.READ_ROLE  # confidential (31 CFR 1010.520(b)(3)(iv)(B), 1010.540): as the API reads them
    list_display = ("institution_name", "ein", "status", "certification_expiry", "verified_at", "verified_by", "mode")
    list_filter = ("status", "mode", OrganizationFilter)
    search_fields = ("institution_name", "ein", "contact_name")
    list_select_related = ("organization",)
    readonly_fields = ("organization", "mode", "institution_name", "ein", "status", "contact_name", "contact_email", "contact_phone",
                       "certification_date", "certification_expiry", "verified_at", "verified_by", "verification_method",
                       "verification_notes", "created_at", "created_by_label")
    actions = ["verify", "renew_certification"]

    @admin.action(description="Record a renewed certification…")
    def renew_certification(self, request, queryset):
        return _form_action(
            self, request, queryset, form_class=CertificationForm, action="renew_certification",
            title="Record a renewed 314(b) notice", submit="Record the dates",
            service=lambda principal, partner, **data: services_b.partner_update_certification(
                principal=principal, partner_id=partner.pk, **data),
            success=lambda done, data: f"{done} certification{'s' if done > 1 else ''} recorded: verify the partner again.",
            intro="The partner goes back to pending verification until it is verified on the renewed notice.")

    @admin.action(description="Verify the selected partners…")
    def verify(self, request, queryset):
        return _form_action(
            self, request, queryset, form_class=VerifyForm, action="verify", title="Verify 314(b) partners", submit="Record the check",
            service=lambda principal, partner, **data: services_b.partner_verify(principal=principal, partner_id=partner.pk, **data),
            success=lambda done, data: f"{done} partner{'s' if done > 1 else ''} recorded as "
                                       f"{'verified' if data['verified'] else 'not verified'}.",
            intro="Record the check of each partner's 314(b) notice. Sharing needs a verified partner whose "
                  "certification is in force.")


class InboundRequestForm(forms.ModelForm):
    subject_ein = forms.CharField(max_length=10, required=False, label="subject EIN")
    received_at = forms.DateTimeField(required=False, help_text="When it arrived (UTC); now if left empty. Due 14 days later.")
    subject_wallets = forms.CharField(widget=forms.Textarea(attrs={"rows": 2, "cols": 60}), required=False,
                                      label="subject wallet addresses",
                                      help_text=f"One per line, at most {services_b.WALLETS_MAX}.")
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 4, "cols": 60}), max_length=services_b.TEXT_MAX_CHARS)

    class Meta:
        model = Fincen314bRequest
        fields = ("partner", "subject_name", "subject_ein", "subject_address", "reason")

    def clean_subject_wallets(self):
        wallets = [line.strip() for line in self.cleaned_data.get("subject_wallets", "").splitlines() if line.strip()]
        if len(wallets) > services_b.WALLETS_MAX:
            raise forms.ValidationError(f"At most {services_b.WALLETS_MAX} wallet addresses (this has {len(wallets)}).")
        too_long = [wallet for wallet in wallets if len(wallet) > services_b.WALLET_MAX_CHARS]
        if too_long:
            raise forms.ValidationError(f"A wallet address has at most {services_b.WALLET_MAX_CHARS} characters "
                                        f"({too_long[0][:20]}… has {len(too_long[0])}).")
        return wallets

    def clean_subject_ein(self):
        value = self.cleaned_data["subject_ein"].strip()
        if not value:
            return ""
        try:
            return ein_normalized(value)
        except ValidationFailed as exc:
            raise forms.ValidationError(exc.message) from None


@admin.register(Fincen314bRequest)
class Fincen314bRequestAdmin(TenantAdmin, ServiceSaveAdmin):
    view_role = services_b.READ_ROLE  # confidential (31 CFR 1010.520(b)(3)(iv)(B), 1010.540): as the API reads them
    list_display = ("subject_name", "direction", "status", "partner", "response_deadline", "created_at", "mode")
    list_filter = ("status", "direction", "mode", OrganizationFilter)
    search_fields = ("subject_name", "subject_ein", "partner__institution_name", "=id")
    list_select_related = ("partner",)
    readonly_fields = ("organization", "mode", "partner", "direction", "status", "subject_name", "subject_ein", "subject_address",
                       "subject_wallet_addresses", "reason", "case_id", "response_deadline", "created_at", "created_by_label",
                       "has_match", "response_details", "share_sar_reference", "sar_bsa_id", "responded_at", "responded_by", "expired_at")
    exclude = ("counterpart",)

    def has_view_permission(self, request, obj=None):
        return self.admin_site.has_permission(request)

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None:
            kwargs["form"] = InboundRequestForm
        return super().get_form(request, obj, change, **kwargs)

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("partner", "received_at", "subject_name", "subject_ein", "subject_address", "subject_wallets", "reason")
        return super().get_fields(request, obj)

    def get_readonly_fields(self, request, obj=None):
        return () if obj is None else self.readonly_fields

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "partner":  # the partners of the console user's organizations only
            kwargs["queryset"] = of_members(Fincen314bPartner.objects.order_by("institution_name"), request,
                                            minimum_role=services_b.SHARE_ROLE)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def save_model(self, request, obj, form, change):
        """Recording a request received out of band (e-mail, a portal): an inbound request in `received`."""
        partner, data = obj.partner, form.cleaned_data
        principal = admin_principal(request, partner.organization, partner.mode)
        subject = {"name": data["subject_name"], "ein": data["subject_ein"], "address": data.get("subject_address") or "",
                   "wallet_addresses": data.get("subject_wallets") or []}
        created = {}

        def record():
            created["request"] = services_b.request_record_inbound(principal=principal, partner_id=partner.pk, subject=subject,
                                                                   reason=data["reason"], received_at=data.get("received_at"))

        if self.save_through(request, record):
            obj.pk, obj.direction = created["request"].pk, RequestDirection.INBOUND
            obj._state.adding = False
