from django.contrib import admin

from common.admin_support import OrganizationFilter, ReadOnlyAdmin, TenantAdmin
from compliance.models import OnchainStatusUpdate


@admin.register(OnchainStatusUpdate)
class OnchainStatusUpdateAdmin(TenantAdmin, ReadOnlyAdmin):
    """The rows the oracle publisher sends (filter by status for the pending ones)."""

    list_display = ("address", "chain_id", "flagged", "status", "reason", "entity", "created_at", "published_at")
    list_filter = ("status", "flagged", "chain_id", "mode", OrganizationFilter)
    search_fields = ("address", "entity__legal_name")
    list_select_related = ("entity",)
    ordering = ("-created_at",)
