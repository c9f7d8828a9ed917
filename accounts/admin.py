from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin

from accounts.models import SessionToken, User
from common.admin_support import ReadOnlyAdmin


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    ordering = ("email",)
    list_display = ("email", "first_name", "last_name", "email_verified_at", "is_staff", "is_active", "last_login")
    list_filter = ("is_staff", "is_superuser", "is_active")
    search_fields = ("email", "first_name", "last_name")
    readonly_fields = ("last_login", "date_joined", "email_verified_at")
    fieldsets = (
        (None, {"fields": ("email", "password")}),
        ("Profile", {"fields": ("first_name", "last_name", "job_title")}),
        ("Status", {"fields": ("is_active", "email_verified_at", "last_login", "date_joined")}),
        ("Console access", {"fields": ("is_staff", "is_superuser", "groups", "user_permissions")}),
    )
    add_fieldsets = ((None, {"classes": ("wide",), "fields": ("email", "password1", "password2")}),)


@admin.register(SessionToken)
class SessionTokenAdmin(ReadOnlyAdmin):
    list_display = ("user", "created_at", "expires_at", "revoked_at", "ip_address")
    search_fields = ("user__email",)
    exclude = ("token_hash",)
