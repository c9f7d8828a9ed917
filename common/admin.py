from django.contrib import admin
from django.contrib.auth.models import Group
from django.contrib.sites.models import Site

from common.admin_support import OrganizationFilter, PlatformAdmin, ReadOnlyAdmin, TenantAdmin, operator_only, sar_confined
from common.confidentiality import sar_audit_entries
from common.models import AuditLogEntry, OutboundEmail


@admin.register(AuditLogEntry)
class AuditLogEntryAdmin(TenantAdmin, ReadOnlyAdmin):
    """Needs the model's view permission; a member sees their organizations' entries (those that
    record a SAR from l2_investigator, common.confidentiality), and the platform's own entries (no
    organization) are the operator's."""

    list_display = ("created_at", "organization", "mode", "actor_label", "action", "object_type", "object_id", "ip_address")
    list_filter = ("action", "object_type", "actor_type", "mode", OrganizationFilter)
    search_fields = ("actor_label", "object_id", "action", "request_id")
    date_hierarchy = "created_at"
    list_select_related = ("organization",)

    def get_queryset(self, request):
        return sar_confined(super().get_queryset(request), request, sar_audit_entries())


@admin.register(OutboundEmail)
class OutboundEmailAdmin(PlatformAdmin, ReadOnlyAdmin):
    list_display = ("created_at", "kind", "to", "status", "attempts", "sent_at", "next_attempt_at")
    list_filter = ("status", "kind")
    search_fields = ("to",)
    exclude = ("context",)


# Roles come from organization memberships and the site from settings: the console's index lists
# neither Django's groups nor its sites (they only looked like something to configure).
for unused in (Group, Site):
    if admin.site.is_registered(unused):
        admin.site.unregister(unused)


# Other packages' admins of platform records: allauth's e-mail addresses (every user's, whatever
# their organization) and the beat schedule (the platform's jobs) are the operator's alone, as the
# records of no organization are.
def _platform_models():
    from allauth.account.models import EmailAddress
    from django_celery_beat.models import ClockedSchedule, CrontabSchedule, IntervalSchedule, PeriodicTask, SolarSchedule

    return (EmailAddress, ClockedSchedule, CrontabSchedule, IntervalSchedule, PeriodicTask, SolarSchedule)


for platform_model in _platform_models():
    if admin.site.is_registered(platform_model):
        operator_only(admin.site, platform_model)
