"""What every ModelAdmin of the console shares: tenancy (a console user sees the records of the
organizations they are a member of, the platform operator every one), acting through the services
as a Principal, and read-only audit trails."""

from django.contrib import admin, messages
from django.http import HttpResponseRedirect
from django.urls import reverse

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


def visible_organizations(request):
    """The platform operator sees every organization; anyone else those they are a member of."""
    from organizations.models import Organization

    organizations = Organization.objects.order_by("name", "pk")
    return organizations if request.user.is_superuser else organizations.filter(memberships__user=request.user)


def of_members(queryset, request, via: str = "organization", minimum_role: str | None = None):
    """Tenant records a console user may see: every organization's for the platform operator (a
    superuser), else those of the organizations they are a member of (with `minimum_role` or above,
    when the API needs one to read them). `via` is the path from the record to its organization (""
    for organizations themselves); a record without one (a platform entry) is the operator's alone."""
    if request.user.is_superuser:
        return queryset
    membership = "__".join(filter(None, (via, "memberships")))
    conditions = {f"{membership}__user": request.user}
    if minimum_role is not None:
        conditions[f"{membership}__role__in"] = [role for role in Role.values if Role.at_least(role, minimum_role)]
    return queryset.filter(**conditions)  # one filter(): both conditions on the same membership


def sar_confined(queryset, request, hidden, via: str = "organization"):
    """Leave out the rows matching `hidden` (a Q of SAR-revealing rows, common.confidentiality) in the
    organizations where the console user is below SAR_ROLE; the platform operator sees them all."""
    from common.confidentiality import cleared_roles
    from organizations.models import Membership

    if request.user.is_superuser:
        return queryset
    cleared = Membership.objects.filter(user=request.user, role__in=cleared_roles()).values("organization_id")
    confined = queryset.model.objects.filter(hidden).exclude(**{f"{via}__in": cleared})
    return queryset.exclude(pk__in=confined.values("pk"))


def sar_cleared_anywhere(request) -> bool:
    """Is the console user cleared for SARs (SAR_ROLE or above) in at least one organization?"""
    from common.confidentiality import cleared_roles
    from organizations.models import Membership

    return request.user.is_superuser or Membership.objects.filter(user=request.user, role__in=cleared_roles()).exists()


class OrganizationFilter(admin.SimpleListFilter):
    """The list filter by organization, offering only the organizations the console user may see
    (Django's own filter would name every organization). Its parameter is the one Django's filter
    used, so links to a list of one organization's records keep working."""

    title = "organization"
    parameter_name = "organization__id__exact"

    def lookups(self, request, model_admin):
        return [(str(organization.pk), str(organization)) for organization in visible_organizations(request)]

    def queryset(self, request, queryset):
        return queryset.filter(organization_id=self.value()) if self.value() else queryset


class TenantAdmin(admin.ModelAdmin):
    """A ModelAdmin of tenant records: lists, pages and actions see only the console user's
    organizations (another organization's record is not found), and an organization field offers
    only those."""

    organization_path = "organization"
    view_role: str | None = None  # the role the API needs to read these records, if above viewer

    def get_queryset(self, request):
        return of_members(super().get_queryset(request), request, self.organization_path, self.view_role)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "organization":
            kwargs["queryset"] = visible_organizations(request)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


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


class PlatformAdmin(admin.ModelAdmin):
    """Records linked to no organization (e-mails, provider callbacks): the platform operator's alone."""

    def has_view_permission(self, request, obj=None):
        return request.user.is_superuser


class OperatorOnlyAdmin(admin.ModelAdmin):
    """Another package's admin of platform records (the beat schedule, allauth's e-mail addresses of
    every user): the platform operator's alone, whatever model permissions a staff member holds."""

    def has_module_permission(self, request):
        return request.user.is_superuser and super().has_module_permission(request)

    def has_view_permission(self, request, obj=None):
        return request.user.is_superuser and super().has_view_permission(request, obj)

    def has_add_permission(self, request, *args):
        return request.user.is_superuser and super().has_add_permission(request, *args)

    def has_change_permission(self, request, obj=None):
        return request.user.is_superuser and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser and super().has_delete_permission(request, obj)


def operator_only(site, model) -> None:
    """Register `model` again with its admin made the platform operator's alone."""
    registered = type(site._registry[model])
    site.unregister(model)
    site.register(model, type(registered.__name__, (OperatorOnlyAdmin, registered), {}))


class ServiceSaveAdmin(admin.ModelAdmin):
    """A change form whose save is a service call (`save_through`): a refusal shows the service's
    message on the same form again, and nothing is stored, logged or reported as saved. Deletes go
    through a service too (`delete_through`, from `delete_model`): a refused delete keeps the record,
    logs nothing and says only why; "delete selected" calls `delete_model` for each record and says
    how many of them were deleted."""

    def save_through(self, request, action, *, subject: str = "") -> bool:
        done = run_service(request, action, subject=subject)
        if not done:
            request._service_refused = True
        return done

    def delete_through(self, request, obj, action, *, subject: str = "") -> bool:
        """Delete `obj` with the service call `action`; the console's history records the deletion
        only when the service made it."""
        if not self.save_through(request, action, subject=subject):
            return False
        super().log_deletions(request, [obj])
        return True

    def log_deletions(self, request, queryset):
        return None  # delete_through logs each deletion the service made, after it made it

    def delete_queryset(self, request, queryset):
        chosen = list(queryset)
        deleted = sum(1 for obj in chosen if self.delete_model(request, obj, subject=str(obj)))
        if deleted < len(chosen):
            request._service_refused = True  # Django's "Successfully deleted …" would count the refused too
            if deleted:
                messages.success(request, f"Deleted {deleted} of the {len(chosen)} selected.")

    def message_user(self, request, message, level=messages.INFO, *args, **kwargs):
        if self._refused(request) and level == messages.SUCCESS:
            return None  # Django's own "… was deleted/changed successfully" after a refusal
        return super().message_user(request, message, level, *args, **kwargs)

    def response_delete(self, request, obj_display, obj_id):
        if self._refused(request):  # the record is still there: back to its page, with the reason
            opts = self.model._meta
            return HttpResponseRedirect(reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj_id]))
        return super().response_delete(request, obj_display, obj_id)

    def _refused(self, request) -> bool:
        return getattr(request, "_service_refused", False)

    def save_related(self, request, form, formsets, change):
        if not self._refused(request):
            super().save_related(request, form, formsets, change)

    def construct_change_message(self, request, form, formsets, add=False):
        return [] if self._refused(request) else super().construct_change_message(request, form, formsets, add)  # nothing saved

    def log_addition(self, request, obj, message):
        return None if self._refused(request) else super().log_addition(request, obj, message)

    def log_change(self, request, obj, message):
        return None if self._refused(request) else super().log_change(request, obj, message)

    def response_add(self, request, obj, post_url_continue=None):
        if self._refused(request):
            return HttpResponseRedirect(request.get_full_path())
        return super().response_add(request, obj, post_url_continue)

    def response_change(self, request, obj):
        return HttpResponseRedirect(request.get_full_path()) if self._refused(request) else super().response_change(request, obj)


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class OrganizationPolicyAdmin(TenantAdmin, ServiceSaveAdmin):
    """An organization's one settings row (a policy), saved through its service: `policy_service`
    is called with the principal and `policy_fields` by name (the service checks the role, validates
    and audits). No delete: the defaults are a policy too; change the values instead."""

    policy_fields: tuple[str, ...] = ()
    policy_service = None  # staticmethod(service)
    list_filter = (OrganizationFilter,)

    def get_fields(self, request, obj=None):
        return ("organization", *self.policy_fields)

    def get_list_display(self, request):
        return ("organization", *self.policy_fields, "updated_at")

    def get_readonly_fields(self, request, obj=None):
        return ("organization",) if obj else ()

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        principal = admin_principal(request, obj.organization)
        saved = {}

        def save():
            saved["policy"] = self.policy_service(principal=principal, **{name: getattr(obj, name) for name in self.policy_fields})

        if self.save_through(request, save):
            obj.pk, obj._state.adding = saved["policy"].pk, False
