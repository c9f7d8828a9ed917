from functools import partial

from django.contrib import admin
from django.template.response import TemplateResponse

from common.admin_support import OrganizationFilter, ServiceSaveAdmin, TenantAdmin, admin_principal, run_service
from organizations import services
from organizations.models import ApiKey, Invitation, Membership, Organization


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    fields = ("user", "role", "created_at")
    readonly_fields = ("user", "role", "created_at")
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


# The report drafts read the filer from here; their validation names the missing keys ("filer.tin").
FILER_PROFILE_HELP = (
    'The filer of this organization\'s reports (SAR/STR/SMR, CTR/LCTR/TTR); validation names a missing key as "filer.<key>". '
    'For example: {"legal_name": "Acme Virtual Assets LLC", "tin": "12-3456789", "tin_type": "EIN", "address": {"line1": '
    '"1 Main St", "city": "Springfield", "state": "IL", "postal_code": "62701", "country": "US"}, "primary_regulator": "IRS", '
    '"contact_office": "BSA Compliance Office", "contact_phone": "+1 217 555 0100", "institution_type": '
    '"virtual_asset_service_provider", "transmitter_control_code": "PACME123"}; FINTRAC and AUSTRAC filers add '
    '"reporting_entity_number" (and FINTRAC "regulator_contact_id", "reporting_entity_location_id"). Every key: docs/filings.md.'
)


@admin.register(Organization)
class OrganizationAdmin(TenantAdmin, ServiceSaveAdmin):
    """A member's organizations; settings change through `organization_update` (admin role, audit
    entry), as PATCH /v1/organizations/me does, and a new organization through `organization_create`."""

    organization_path = ""  # the records are the organizations themselves
    list_display = ("name", "slug", "four_eyes_filing", "created_at")
    search_fields = ("name", "slug")
    inlines = [MembershipInline]

    def get_readonly_fields(self, request, obj=None):
        # The slug names the organization in commands and links: the service changes no slug.
        return ("slug", "created_at", "updated_at") if obj else ("created_at", "updated_at")

    def get_form(self, request, obj=None, change=False, **kwargs):
        kwargs["help_texts"] = {"filer_profile": FILER_PROFILE_HELP}
        return super().get_form(request, obj, change, **kwargs)

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser and super().has_delete_permission(request, obj)  # the platform operator's alone

    def save_model(self, request, obj, form, change):
        if not change:
            created = {}

            def create():
                created["organization"] = services.organization_create(
                    actor=request.user, name=obj.name, slug=obj.slug, filer_profile=obj.filer_profile)

            if self.save_through(request, create):
                obj.pk, obj._state.adding = created["organization"].pk, False
            return
        principal = admin_principal(request, obj)
        changes = {field: form.cleaned_data[field] for field in form.changed_data if field in services.ORG_FIELDS}
        self.save_through(request, partial(services.organization_update, principal=principal, changes=changes))


@admin.register(Membership)
class MembershipAdmin(TenantAdmin, ServiceSaveAdmin):
    list_display = ("user", "organization", "role", "created_at")
    list_filter = ("role", OrganizationFilter)
    search_fields = ("user__email", "organization__slug")
    list_select_related = ("user", "organization")
    readonly_fields = ("organization", "user", "created_at")
    fields = ("organization", "user", "role", "created_at")

    def has_add_permission(self, request):
        return False  # members join through invitations

    def save_model(self, request, obj, form, change):
        principal = admin_principal(request, obj.organization)
        self.save_through(request, lambda: services.member_role_change(principal=principal, user_id=obj.user_id, role=obj.role))

    def delete_model(self, request, obj, *, subject: str = "") -> bool:
        principal = admin_principal(request, obj.organization)
        return self.delete_through(request, obj, lambda: services.member_remove(principal=principal, user_id=obj.user_id),
                                   subject=subject)


@admin.register(Invitation)
class InvitationAdmin(TenantAdmin):
    list_display = ("email", "organization", "role", "status", "invited_by", "expires_at")
    list_filter = (OrganizationFilter, "role")
    search_fields = ("email",)
    readonly_fields = ("organization", "email", "role", "invited_by", "expires_at", "accepted_at", "accepted_by", "revoked_at")
    actions = ["revoke"]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.action(description="Revoke the selected invitations")
    def revoke(self, request, queryset):
        for invitation in queryset:
            principal = admin_principal(request, invitation.organization)
            run_service(request, partial(services.invitation_revoke, principal=principal, invitation_id=invitation.pk),
                        f"Revoked the invitation of {invitation.email}.")


@admin.register(ApiKey)
class ApiKeyAdmin(TenantAdmin, ServiceSaveAdmin):
    """Creating a key here shows the secret once, on the page that follows; it is never stored."""

    list_display = ("name", "organization", "mode", "tier", "role", "prefix", "is_active", "last_used_at", "created_at")
    list_filter = ("mode", "tier", "role", OrganizationFilter)
    search_fields = ("name", "prefix")
    actions = ["revoke"]

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("organization", "name", "mode", "tier", "role")
        return ("organization", "name", "mode", "tier", "role", "prefix", "created_by", "created_at", "last_used_at",
                "revoked_at", "revoked_by")

    def get_readonly_fields(self, request, obj=None):
        return () if obj is None else self.get_fields(request, obj)

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        if change:
            return
        principal = admin_principal(request, obj.organization, obj.mode)
        issued = {}

        def issue():
            issued["key"] = services.api_key_create(principal=principal, name=obj.name, mode=obj.mode, tier=obj.tier, role=obj.role)

        if self.save_through(request, issue):
            obj.pk = issued["key"].api_key.pk
            obj._state.adding = False
            request._issued_secret = issued["key"].secret

    def response_add(self, request, obj, post_url_continue=None):
        secret = getattr(request, "_issued_secret", None)
        if secret is None:
            return super().response_add(request, obj, post_url_continue)
        return TemplateResponse(request, "admin/organizations/apikey/created.html",
                                {**self.admin_site.each_context(request), "api_key": obj, "secret": secret,
                                 "opts": self.model._meta, "title": "API key created"})

    @admin.action(description="Revoke the selected API keys")
    def revoke(self, request, queryset):
        for api_key in queryset:
            principal = admin_principal(request, api_key.organization, api_key.mode)
            run_service(request, partial(services.api_key_revoke, principal=principal, api_key_id=api_key.pk),
                        f"Revoked {api_key}.")
