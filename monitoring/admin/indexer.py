"""The chain indexer in the console (docs/indexer.md, "Console and health"), the operator's (platform-wide, like the
chains): each chain's head, cursor, lag in blocks and seconds, last run and error, and the reorganisations seen; the
token registry (editable); the transfers indexed per chain (read-only, with filters)."""

import re

from django import forms
from django.contrib import admin
from django.utils.html import format_html_join

from compliance.admin import OperatorOnlyAdmin
from monitoring.indexer.selectors import lag_of
from monitoring.models import ChainCursor, IndexedToken, IndexedTransfer

ADDRESS = re.compile(r"^0x[0-9a-f]{40}$")


@admin.register(ChainCursor)
class ChainCursorAdmin(OperatorOnlyAdmin):
    """One row per indexed chain. `start_block`, `reorg_window` and `stopped` are the operator's (clear `stopped` after
    `manage.py reindex` from a block before the fork); the rest is the indexer's."""

    list_display = ("chain", "head", "last_block", "lag_blocks", "lag_seconds", "last_run_at", "last_error", "reorgs_seen", "stopped")
    list_filter = ("stopped",)
    fields = ("chain", "head", "head_time", "last_block", "last_block_time", "lag_blocks", "lag_seconds", "last_run_at", "last_error",
              "stopped", "start_block", "reorg_window", "reorgs_seen", "reorg_list", "lease_until")
    readonly_fields = ("chain", "head", "head_time", "last_block", "last_block_time", "lag_blocks", "lag_seconds", "last_run_at",
                       "last_error", "reorgs_seen", "reorg_list", "lease_until")
    list_select_related = ("chain",)
    ordering = ("chain",)

    @admin.display(description="lag (blocks)")
    def lag_blocks(self, cursor):
        return lag_of(cursor).blocks

    @admin.display(description="lag (seconds)")
    def lag_seconds(self, cursor):
        return lag_of(cursor).seconds

    @admin.display(description="reorgs seen")
    def reorgs_seen(self, cursor):
        return len(cursor.reorgs)

    @admin.display(description="reorganisations (newest first)")
    def reorg_list(self, cursor):
        return format_html_join("", "<div>{}: above block {}, depth {}, {} transfers orphaned, {} travel-rule transfers reopened</div>",
                                ((seen.get("at"), seen.get("fork_block"), seen.get("depth"), seen.get("orphaned"),
                                  seen.get("travel_rule_reopened", 0)) for seen in reversed(cursor.reorgs))) or "—"


class IndexedTokenForm(forms.ModelForm):
    class Meta:
        model = IndexedToken
        fields = ("chain", "address", "symbol", "decimals")

    def clean_address(self):
        address = self.cleaned_data["address"].strip().lower()
        if not ADDRESS.match(address):
            raise forms.ValidationError("An EVM contract address: 0x and 40 hexadecimal digits.")
        return address

    def clean_decimals(self):
        decimals = self.cleaned_data["decimals"]
        if decimals > 36:
            raise forms.ValidationError("At most 36 decimals (the amounts' precision).")
        return decimals


@admin.register(IndexedToken)
class IndexedTokenAdmin(OperatorOnlyAdmin):
    """The token registry: a transfer of a token here gets its symbol as the asset and its amount in whole units (so the
    price table and the USD rules apply); others keep the contract address and the raw amount. Applies to transfers
    indexed from the change on (`manage.py reindex` does not relabel stored ones)."""

    form = IndexedTokenForm
    list_display = ("chain", "symbol", "address", "decimals", "updated_at")
    list_filter = ("chain",)
    search_fields = ("symbol", "address")
    ordering = ("chain", "symbol")

    def has_add_permission(self, request):
        return request.user.is_active and request.user.is_superuser

    def has_delete_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_superuser


@admin.register(IndexedTransfer)
class IndexedTransferAdmin(OperatorOnlyAdmin):
    """The transfers the indexer stored, per chain, with the block they were seen in; `orphaned` ones were in a block a
    reorganisation replaced (kept for audit, out of every rule's history)."""

    list_display = ("chain_id", "block_number", "tx_hash", "organization", "mode", "asset", "amount", "orphaned", "created_at")
    list_filter = ("chain_id", "transaction__orphaned", "transaction__mode", "transaction__asset")
    search_fields = ("transaction__tx_hash", "block_hash", "transaction__from_address", "transaction__to_address")
    list_select_related = ("transaction", "transaction__organization")
    readonly_fields = ("transaction", "chain_id", "block_number", "block_hash", "from_entity_id", "to_entity_id", "created_at")
    fields = readonly_fields
    ordering = ("-chain_id", "-block_number")

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description="transaction", ordering="transaction__tx_hash")
    def tx_hash(self, row):
        return f"{row.transaction.tx_hash} #{row.transaction.log_index}"

    @admin.display(description="organization")
    def organization(self, row):
        return row.transaction.organization

    @admin.display(description="mode")
    def mode(self, row):
        return row.transaction.mode

    @admin.display(description="asset")
    def asset(self, row):
        return row.transaction.asset

    @admin.display(description="amount")
    def amount(self, row):
        return row.transaction.amount

    @admin.display(description="orphaned", boolean=True, ordering="transaction__orphaned")
    def orphaned(self, row):
        return row.transaction.orphaned
