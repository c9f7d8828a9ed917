"""Who may use the console, and what their role lets them do there (docs/console.md, "Access").

Membership is the key: every active member of an organization signs in at /admin/ (with their
password, or through SSO where their domain enforces it), and the platform operator (a superuser)
as before; Django's `is_staff` flag plays no part. Removing the last membership ends access at the
next request. Inside, TenantAdmin keeps each member to their organizations' records and the
services check the role in each organization; the permissions below only decide what the console
offers: every member reads, an L1 analyst and above acts, and the System group (the plumbing) is
the admins' alone."""

from functools import cache

from django.apps import apps
from django.contrib.auth import get_permission_codename
from django.contrib.auth.backends import BaseBackend

from console.groups import SYSTEM, group_of
from organizations.choices import Role

READ = ("view",)
WRITE = ("add", "change", "delete")
ACTING_ROLE = Role.L1_ANALYST  # below it (viewer) the console is read-only
SYSTEM_ROLE = Role.ADMIN


def console_role(user) -> str | None:
    """The highest role of an active user among their memberships (None without one). Per-record
    decisions use the role in the record's organization (common.admin_support.admin_principal)."""
    if not (user.is_authenticated and user.is_active):
        return None
    cached = getattr(user, "_console_role", False)
    if cached is False:
        from organizations.models import Membership

        roles = set(Membership.objects.filter(user=user).values_list("role", flat=True))
        cached = max(roles, key=Role.rank) if roles else None
        user._console_role = cached
    return cached


def may_use_console(user) -> bool:
    """An active member of an organization, or the platform operator."""
    return bool(user.is_authenticated and user.is_active and (user.is_superuser or console_role(user)))


def is_console_admin(user) -> bool:
    """The platform operator, or an admin of one of their organizations: who sees the System group."""
    return bool(user.is_active and (user.is_superuser or console_role(user) == Role.ADMIN))


@cache
def role_permissions(role: str | None) -> frozenset[str]:
    """The model permissions ("app_label.codename") that `role` holds in the console."""
    if role is None:
        return frozenset()
    granted = set()
    for model in apps.get_models():
        opts = model._meta
        minimum = SYSTEM_ROLE if group_of(opts.label) == SYSTEM else None
        for action in READ + WRITE:
            needed = minimum or (Role.VIEWER if action in READ else ACTING_ROLE)
            if Role.at_least(role, needed):
                granted.add(f"{opts.app_label}.{get_permission_codename(action, opts)}")
    return frozenset(granted)


class MembershipPermissionBackend(BaseBackend):
    """Model permissions from membership: authenticates no one (ModelBackend and allauth do that),
    answers has_perm / has_module_perms for members by their highest role."""

    def get_all_permissions(self, user_obj, obj=None):
        if obj is not None or not user_obj.is_active or user_obj.is_anonymous:
            return set()
        return set(role_permissions(console_role(user_obj)))

    def has_perm(self, user_obj, perm, obj=None):
        return perm in self.get_all_permissions(user_obj, obj)

    def has_module_perms(self, user_obj, app_label):
        return any(perm.split(".", 1)[0] == app_label for perm in self.get_all_permissions(user_obj))
