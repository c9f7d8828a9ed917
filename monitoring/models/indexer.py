"""The chain indexer's state (docs/indexer.md): one cursor per chain, the token registry, and where each indexed
transfer was seen (its block), which is what a reorganisation orphans."""

from django.db import models

from common.models import BaseModel


class ChainCursor(BaseModel):
    """How far a chain is indexed. `window` holds [number, hash, parent hash] of the last `reorg_window` indexed
    blocks, oldest first: a run compares them with the node's before going on. `stopped` is set by a reorganisation
    deeper than the window; an operator clears it (after `manage.py reindex`)."""

    chain = models.OneToOneField("compliance.Chain", on_delete=models.CASCADE, related_name="indexer_cursor")
    last_block = models.PositiveBigIntegerField(null=True, blank=True, help_text="The last indexed block; blank before the first run.")
    start_block = models.PositiveBigIntegerField(default=0, help_text="Where the first run starts.")
    window = models.JSONField(default=list, blank=True, help_text="[number, hash, parent hash] of the unfinalised window.")
    reorg_window = models.PositiveIntegerField(default=64, help_text="Blocks whose hashes are kept (the deepest reorganisation handled).")
    reorgs = models.JSONField(default=list, blank=True, help_text="The reorganisations seen: at, fork block, depth, transfers orphaned.")
    stopped = models.BooleanField(default=False, help_text="Set by a reorganisation deeper than the window; cleared by an operator.")
    lease_until = models.DateTimeField(null=True, blank=True, help_text="The per-chain lock: a run holds it until this time.")
    last_run_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")
    last_block_time = models.DateTimeField(null=True, blank=True, help_text="The time of the last indexed block.")
    head = models.PositiveBigIntegerField(null=True, blank=True, help_text="The node's head at the last run.")
    head_time = models.DateTimeField(null=True, blank=True, help_text="The time of that head block.")

    class Meta:
        ordering = ["chain"]

    def __str__(self):
        return f"cursor of {self.chain_id} at {self.last_block}"


class IndexedToken(BaseModel):
    """An ERC-20 contract of a chain: its transfers get `symbol` as their asset and amounts in whole units."""

    chain = models.ForeignKey("compliance.Chain", on_delete=models.CASCADE, related_name="indexed_tokens")
    address = models.CharField(max_length=42, help_text="Lower-case.")
    symbol = models.CharField(max_length=20)
    decimals = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["chain", "symbol"]
        constraints = [models.UniqueConstraint(fields=["chain", "address"], name="indexed_token_unique_address")]

    def __str__(self):
        return f"{self.symbol} on {self.chain_id}"


class IndexedTransfer(BaseModel):
    """The block an indexed transfer was seen in. Orphaning a block marks its transfers `orphaned` and clears their
    customer columns (every rule's history is read through them), keeping the customers here to restore them when
    the same transfer comes back on the new branch."""

    transaction = models.OneToOneField("monitoring.Transaction", on_delete=models.CASCADE, related_name="indexed")
    chain_id = models.PositiveBigIntegerField()
    block_number = models.PositiveBigIntegerField()
    block_hash = models.CharField(max_length=66)
    from_entity_id = models.UUIDField(null=True, blank=True)
    to_entity_id = models.UUIDField(null=True, blank=True)
    # `transfer.confirmed` announced: the block reached the chain's confirmations (monitoring/indexer/confirm.py).
    confirmed = models.BooleanField(default=False)

    class Meta:
        ordering = ["chain_id", "block_number"]
        indexes = [models.Index(fields=["chain_id", "block_number"]),
                   models.Index(fields=["chain_id", "block_number"], condition=models.Q(confirmed=False),
                                name="indexed_transfer_unconfirmed")]

    def __str__(self):
        return f"{self.transaction_id} in {self.chain_id}:{self.block_number}"
