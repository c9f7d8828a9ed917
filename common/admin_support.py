"""What every ModelAdmin of the console shares: acting through the services as a Principal, and
read-only audit trails."""

from django.contrib import admin, messages

from common.errors import ServiceError
from common.principal import Principal
from organizations.choices import Role


def admin_principal(request, organization, mode: str = "live") -> Principal:
    """The console user as a Principal in `organization`: their membership's role; a superuser
    (the platform operator) acts as admin. Services check the role as they do for the API."""
    from organizations.models import Membership

    membership = Membership.objects.filter(organization=organization, user=request.user).first()
    role = membership.role if membership else (Role.ADMIN if request.user.is_superuser else None)
    return Principal(credential="session", organization=organization, mode=mode, role=role, user=request.user)


def of_members(queryset, request):
    """Tenant records (with an `organization`) a console user may see: every organization's for the
    platform operator (a superuser), else those of the organizations they are a member of."""
    return queryset if request.user.is_superuser else queryset.filter(organization__memberships__user=request.user)


def run_service(request, action, success: str | None = None, *, subject: str = "") -> bool:
    """Call a service from an admin action; a refusal becomes an error message (after `subject`,
    which names the record when an action runs over several), not a 500."""
    try:
        action()
    except ServiceError as exc:
        messages.error(request, f"{subject}: {exc.message}" if subject else exc.message)
        return False
    if success:
        messages.success(request, success)
    return True


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
