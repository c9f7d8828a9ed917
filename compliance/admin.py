import json

from django.contrib import admin
from django.utils.formats import localize
from django.utils.html import format_html, format_html_join
from django.utils.timezone import localtime

from common.admin_support import OrganizationFilter, OrganizationPolicyAdmin, ReadOnlyAdmin, TenantAdmin
from compliance.models import Chain, ChainTransaction, OnchainStatusUpdate, TravelRulePolicy, TravelRuleTransfer
from compliance.onchain import selectors as onchain_selectors
from compliance.onchain.publisher import signer_address
from compliance.travel_rule import services
from compliance.travel_rule.vasp_admin import CounterpartyVaspAdmin, InboundTravelRuleTransferAdmin  # noqa: F401 - registers them


@admin.register(OnchainStatusUpdate)
class OnchainStatusUpdateAdmin(TenantAdmin, ReadOnlyAdmin):
    """The rows the oracle publisher sends (filter by status for the pending ones)."""

    list_display = ("address", "chain_id", "flagged", "status", "reason", "entity", "created_at", "published_at")
    list_filter = ("status", "flagged", "chain_id", "mode", OrganizationFilter)
    search_fields = ("address", "entity__legal_name")
    list_select_related = ("entity",)
    ordering = ("-created_at",)


class OperatorOnlyAdmin(admin.ModelAdmin):
    """Platform-wide records: the operator's (a superuser) alone."""

    def has_module_permission(self, request):
        return request.user.is_active and request.user.is_superuser

    def has_view_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_superuser

    def has_change_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_superuser

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(ChainTransaction)
class ChainTransactionAdmin(OperatorOnlyAdmin):
    """The publisher's signed transactions (docs/oracle.md "Runbook"): status, fees, the block, why it ended as it did
    (error) and the transaction a replacement replaces. Read-only: the publisher alone writes them."""

    list_display = ("chain", "nonce", "tx_hash", "status", "max_fee_per_gas", "max_priority_fee_per_gas", "block_number", "error",
                    "created_at")
    list_filter = ("status", "chain")
    search_fields = ("tx_hash",)
    ordering = ("-created_at",)

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Chain)
class ChainAdmin(OperatorOnlyAdmin):
    """The chains the oracle is published to (platform-wide, the operator's). The signer's key is never shown:
    only the address derived from CHAIN_SIGNER_KEY_<chain_id>, and on the change page its balance, read from the
    RPC (2 s at most). The oracle is deployed with manage.py deploy_oracle."""

    list_display = ("chain_id", "name", "enabled", "signer", "oracle_address", "pending", "published", "confirmed", "last_error")
    fields = ("chain_id", "name", "rpc_urls", "confirmations", "enabled", "batch_size", "signer", "balance", "oracle_address",
              "next_nonce", "pending", "published", "confirmed", "last_error", "transactions", "created_at", "updated_at")
    readonly_fields = ("chain_id", "name", "signer", "balance", "oracle_address", "next_nonce", "pending", "published", "confirmed",
                       "last_error", "transactions", "created_at", "updated_at")
    ordering = ("chain_id",)

    def get_queryset(self, request):
        return onchain_selectors.with_counts(super().get_queryset(request))

    @admin.display(description="signer address")
    def signer(self, chain):
        return signer_address(chain.chain_id) or f"— (CHAIN_SIGNER_KEY_{chain.chain_id} not set)"

    @admin.display(description="signer balance")
    def balance(self, chain):
        """Read from the chain's RPC: on the change page only (never for the list), 2 s at most."""
        return str(onchain_selectors.signer_balance(chain))

    @admin.display(description="pending", ordering="pending_count")
    def pending(self, chain):
        return chain.pending_count

    @admin.display(description="published", ordering="published_count")
    def published(self, chain):
        return chain.published_count

    @admin.display(description="confirmed", ordering="confirmed_count")
    def confirmed(self, chain):
        return chain.confirmed_count

    @admin.display(description="recent transactions")
    def transactions(self, chain):
        recent = onchain_selectors.recent_transactions(chain)
        if not recent:
            return "none yet"
        rows = format_html_join("", "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                                ((tx.nonce, tx.tx_hash, tx.status, tx.wallets, tx.block_number or "—",
                                  localize(localtime(tx.sent_at)) if tx.sent_at else "—", tx.error or "") for tx in recent))
        return format_html("<table><thead><tr><th>nonce</th><th>transaction</th><th>status</th><th>wallets</th><th>block</th>"
                           "<th>sent</th><th>error</th></tr></thead><tbody>{}</tbody></table>", rows)


def _json(value) -> str:
    if value is None:
        return "—"
    return format_html("<pre style='white-space: pre-wrap'>{}</pre>", json.dumps(value, indent=2, ensure_ascii=False))


@admin.register(TravelRuleTransfer)
class TravelRuleTransferAdmin(TenantAdmin, ReadOnlyAdmin):
    """Travel-rule transfers with their IVMS101 data, read-only: they change through the API, the
    travel-rule process and the chain's confirmations (each with an audit entry)."""

    list_display = ("id", "status", "originator_entity", "beneficiary_entity", "amount", "asset", "chain_id", "travel_rule_required",
                    "created_at", "tx_hash")
    list_filter = ("status", "travel_rule_required", "mode", "chain_id", OrganizationFilter)
    search_fields = ("id", "tx_hash", "commitment", "reference", "from_address", "to_address", "originator_entity__legal_name",
                     "beneficiary_entity__legal_name")
    list_select_related = ("originator_entity", "beneficiary_entity")
    ordering = ("-created_at",)
    fields = ("organization", "mode", "status", "status_reason", "originator_entity", "beneficiary_entity", "beneficiary_vasp",
              "vasp_attempts", "vasp_last_error", "vasp_delivered_at", "chain_id", "asset", "amount",
              "usd_value", "from_address", "to_address", "travel_rule_required", "threshold_usd", "originator_data",
              "beneficiary_data", "reference", "salt", "commitment", "created_at", "acknowledged_at", "expires_at", "rejected_at",
              "expired_at", "completed_at", "tx_hash", "block_number", "confirmations")
    readonly_fields = fields

    @admin.display(description="Originator (IVMS101)")
    def originator_data(self, transfer):
        return _json(transfer.originator)

    @admin.display(description="Beneficiary (IVMS101)")
    def beneficiary_data(self, transfer):
        return _json(transfer.beneficiary)


@admin.register(TravelRulePolicy)
class TravelRulePolicyAdmin(OrganizationPolicyAdmin):
    """The organization's travel-rule threshold (compliance.travel_rule.services: admin role, audit)."""

    policy_fields = ("threshold_usd", "acknowledgement_valid_hours")
    policy_service = staticmethod(services.travel_rule_policy_set)
