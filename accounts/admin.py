from django import forms
from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import PermissionDenied
from django.db.models import Q

from accounts import services as account_services
from accounts.models import SessionToken, SSOConnection, SSODomain, User
from accounts.services import PROFILE_FIELDS, profile_update
from accounts.sso import services as sso_services
from accounts.sso.errors import SSORequired
from common.admin_support import (
    OrganizationFilter,
    ReadOnlyAdmin,
    ServiceSaveAdmin,
    TenantAdmin,
    admin_principal,
    of_members,
    run_service,
)
from console.access import may_use_console

CONSOLE_ACCESS = ("is_staff", "is_superuser", "groups", "user_permissions")


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    """The platform operator manages every user; a member sees themselves and the members of their
    organizations, and changes only their own profile (never their console access)."""

    ordering = ("email",)
    list_display = ("email", "first_name", "last_name", "email_verified_at", "is_active", "last_login")
    list_filter = ("is_superuser", "is_active")
    search_fields = ("email", "first_name", "last_name")
    readonly_fields = ("last_login", "date_joined", "email_verified_at")
    fieldsets = (
        (None, {"fields": ("email", "password")}),
        ("Profile", {"fields": ("first_name", "last_name", "job_title")}),
        ("Status", {"fields": ("is_active", "email_verified_at", "last_login", "date_joined")}),
        ("Platform operator", {"fields": CONSOLE_ACCESS, "description": (
            "Console access comes from membership of an organization (docs/console.md); the staff flag grants nothing by "
            "itself. Superuser status makes the platform operator.")}),
    )
    add_fieldsets = ((None, {"classes": ("wide",), "fields": ("email", "password1", "password2")}),)

    def get_queryset(self, request):
        users = super().get_queryset(request)
        if request.user.is_superuser:
            return users
        from organizations.models import Membership

        colleagues = of_members(Membership.objects.all(), request).values("user_id")
        return users.filter(Q(pk=request.user.pk) | Q(pk__in=colleagues))

    def get_readonly_fields(self, request, obj=None):
        fields = super().get_readonly_fields(request, obj)
        # The address only by the operator: the API takes no e-mail change, and one made here was not
        # verified (the account stayed verified, and invitations of the new address matched it).
        return fields if request.user.is_superuser else (*fields, "email", "is_active", *CONSOLE_ACCESS)

    def has_add_permission(self, request):
        return request.user.is_superuser  # a new user belongs to no organization: members join by invitation

    def user_change_password(self, request, id, form_url=""):
        """The operator's alone. This form sets a password without the current one and signs no
        session out: for a member, someone holding their console cookie made the account theirs for
        good. A member changes it with the current one (the console's "Change password") or by the
        reset link, which signs every session out."""
        if not request.user.is_superuser:
            raise PermissionDenied
        return super().user_change_password(request, id, form_url)

    def save_model(self, request, obj, form, change):
        """A member's own profile changes through `profile_update` (its audit entry), as PATCH
        /v1/auth/me does; the operator's changes of any account are Django's own."""
        if request.user.is_superuser or not change:
            return super().save_model(request, obj, form, change)
        changes = {field: form.cleaned_data[field] for field in form.changed_data if field in PROFILE_FIELDS}
        if changes:
            profile_update(user=User.objects.get(pk=obj.pk), changes=changes)

    def has_change_permission(self, request, obj=None):
        own = obj is None or obj.pk == request.user.pk
        return super().has_change_permission(request, obj) and (request.user.is_superuser or own)

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser and super().has_delete_permission(request, obj)


@admin.register(SessionToken)
class SessionTokenAdmin(ReadOnlyAdmin):
    """A member sees their own sign-ins; the platform operator everyone's."""

    list_display = ("user", "created_at", "expires_at", "revoked_at", "ip_address")
    search_fields = ("user__email",)
    exclude = ("token_hash",)

    def get_queryset(self, request):
        tokens = super().get_queryset(request)
        return tokens if request.user.is_superuser else tokens.filter(user=request.user)


class SSODomainInline(admin.TabularInline):
    """Domains and whether they are verified; verification happens through the API (DNS TXT)."""

    model = SSODomain
    extra = 0
    fields = ("domain", "verified_at", "verification_record")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    @admin.display(description="TXT record to publish")
    def verification_record(self, domain):
        from accounts.sso import dns_txt

        return f"{dns_txt.record_name(domain.domain)}  \"{dns_txt.record_value(domain.verification_token)}\""


@admin.register(SSOConnection)
class SSOConnectionAdmin(TenantAdmin, ServiceSaveAdmin):
    """An organization's SSO connections. Its admins switch one on or off, enforce it and set the
    role of provisioned members here, through the same service as PATCH /v1/sso/connections/{id}
    (admin role, audit entry). Created through the API (docs/sso.md); the client secret is never
    shown, only its last four characters."""

    list_display = ("name", "organization", "protocol", "status", "enforce", "default_role", "created_at")
    list_filter = (OrganizationFilter, "protocol", "status", "enforce")
    search_fields = ("name", "domains__domain")
    list_select_related = ("organization",)
    inlines = [SSODomainInline]
    fields = ("organization", "name", "protocol", "status", "enforce", "default_role", "oidc_issuer", "oidc_client_id",
              "client_secret", "oidc_scopes", "saml_idp_entity_id", "saml_idp_metadata_url", "created_by", "created_at")
    editable = ("name", "status", "enforce", "default_role")

    def get_readonly_fields(self, request, obj=None):
        return [field for field in self.fields if field not in self.editable]

    @admin.display(description="Client secret")
    def client_secret(self, connection):
        return f"•••••{connection.oidc_client_secret_last4}" if connection.oidc_client_secret_last4 else "—"

    def has_add_permission(self, request):
        return False  # created through the API, which takes the secret and the domains

    def save_model(self, request, obj, form, change):
        principal = admin_principal(request, obj.organization)
        changes = {field: form.cleaned_data[field] for field in form.changed_data if field in self.editable}
        self.save_through(request, lambda: sso_services.sso_connection_update(principal=principal, connection_id=obj.pk,
                                                                              changes=changes))

    def delete_model(self, request, obj):
        principal = admin_principal(request, obj.organization)
        run_service(request, lambda: sso_services.sso_connection_delete(principal=principal, connection_id=obj.pk))

    def delete_queryset(self, request, queryset):
        for connection in queryset:
            self.delete_model(request, connection)


class ConsoleLoginForm(AdminAuthenticationForm):
    """The console's password sign-in: an active member of an organization or the platform operator
    (console.access; not Django's staff flag), told apart from a wrong password by nothing. It refuses
    what POST /v1/auth/login refuses after the password: an address in a verified domain whose SSO
    connection enforces SSO signs in through the identity provider (its sign-in sets the console's
    session cookie too); the platform operator is exempt."""

    error_messages = {**AdminAuthenticationForm.error_messages,
                      "invalid_login": "Please enter the e-mail address and password of a member of an organization."}

    def confirm_login_allowed(self, user):
        AuthenticationForm.confirm_login_allowed(self, user)  # active; AdminAuthenticationForm's is_staff is not asked
        if not may_use_console(user):
            raise forms.ValidationError(self.error_messages["invalid_login"], code="invalid_login", params={"username": "e-mail"})
        try:
            account_services.refuse_if_sso_required(user.email, exempt=user.is_superuser)
        except SSORequired as exc:
            raise forms.ValidationError(exc.message, code="sso_required") from None


admin.site.login_form = ConsoleLoginForm
