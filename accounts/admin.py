from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.db.models import Q

from accounts.models import SessionToken, User
from common.admin_support import ReadOnlyAdmin, of_members

CONSOLE_ACCESS = ("is_staff", "is_superuser", "groups", "user_permissions")


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    """The platform operator manages every user; a member sees themselves and the members of their
    organizations, and changes only their own profile (never their console access)."""

    ordering = ("email",)
    list_display = ("email", "first_name", "last_name", "email_verified_at", "is_staff", "is_active", "last_login")
    list_filter = ("is_staff", "is_superuser", "is_active")
    search_fields = ("email", "first_name", "last_name")
    readonly_fields = ("last_login", "date_joined", "email_verified_at")
    fieldsets = (
        (None, {"fields": ("email", "password")}),
        ("Profile", {"fields": ("first_name", "last_name", "job_title")}),
        ("Status", {"fields": ("is_active", "email_verified_at", "last_login", "date_joined")}),
        ("Console access", {"fields": CONSOLE_ACCESS}),
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
        return fields if request.user.is_superuser else (*fields, "is_active", *CONSOLE_ACCESS)

    def has_add_permission(self, request):
        return request.user.is_superuser  # a new user belongs to no organization: members join by invitation

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
