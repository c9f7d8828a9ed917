"""Travel-rule transfers executed on chain, as the chain indexer sees them (docs/travel-rule.md, "Completion on chain";
docs/indexer.md). The chain-confirmation callback (compliance.callbacks) stays for outside chain services; both end in
services.transfer_confirm (the `completed` move, its audit entry and the `transfer.confirmed` event).

An `acknowledged` transfer is executed by an indexed on-chain transfer that
- carries its commitment (the demo CompliantToken's `transferWithCommitment` emits TransferCommitment beside its
  Transfer), or
- has the same chain, from and to addresses, asset and amount, in a block whose time is within the transfer's validity
  window (from its acknowledgement, to the second, until `expires_at`).
Each on-chain transfer executes one travel-rule transfer at most (the oldest acknowledged that matches). When the
block is orphaned by a reorganisation, the transfer goes back to `acknowledged` (audited; no event: the catalogue has
none for it) and waits for its transaction on the new branch."""

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import Q

from compliance.models import TravelRuleStatus, TravelRuleTransfer
from compliance.travel_rule.services import _move, transfer_confirm


@dataclass(frozen=True)
class Execution:
    """One on-chain transfer as the indexer labels it (the asset's symbol and the amount in whole units, canonical)."""

    chain_id: int
    tx_hash: str
    block_number: int
    timestamp: datetime
    from_address: str
    to_address: str
    asset: str
    amount: str
    confirmations: int = 0
    commitment: str = ""


def _in_window(transfer: TravelRuleTransfer, execution: Execution) -> bool:
    opened = transfer.acknowledged_at.replace(microsecond=0) if transfer.acknowledged_at else None
    closes = transfer.expires_at
    return opened is not None and opened <= execution.timestamp and (closes is None or execution.timestamp <= closes)


def _matches(transfer: TravelRuleTransfer, execution: Execution) -> bool:
    if execution.commitment and execution.commitment == transfer.commitment:
        return True
    return (transfer.from_address.lower() == execution.from_address and transfer.to_address.lower() == execution.to_address
            and transfer.asset.upper() == execution.asset.upper() and transfer.amount == execution.amount
            and _in_window(transfer, execution))


@transaction.atomic
def transfers_executed(executions: list[Execution]) -> list[str]:
    """Completes the acknowledged travel-rule transfers that `executions` (of one chain) execute. Returns the callback-log
    style lines of those completed (or expired: a commitment seen after the window closed)."""
    if not executions:
        return []
    chain_id = executions[0].chain_id
    if not TravelRuleTransfer.objects.filter(chain_id=chain_id, status=TravelRuleStatus.ACKNOWLEDGED).exists():
        return []  # the usual case: nothing awaits execution on the chain (one indexed query)
    commitments = {execution.commitment for execution in executions if execution.commitment}
    senders = {execution.from_address for execution in executions}
    candidates = list(TravelRuleTransfer.objects.select_for_update(no_key=True).select_related("organization")
                      .filter(chain_id=chain_id, status=TravelRuleStatus.ACKNOWLEDGED)
                      .filter(Q(commitment__in=commitments) | Q(from_address__in=senders)).order_by("acknowledged_at", "id"))
    lines = []
    for execution in executions:
        transfer = next((each for each in candidates if _matches(each, execution)), None)
        if transfer is None:
            continue
        candidates.remove(transfer)
        lines.append(transfer_confirm(transfer=transfer, payload={
            "chain_id": chain_id, "tx_hash": execution.tx_hash, "status": "confirmed", "block_number": execution.block_number,
            "confirmations": execution.confirmations, "confirmed_at": execution.timestamp}))
    return lines


def executions_orphaned(*, chain_id: int, tx_hashes: set[str], fork: int) -> int:
    """Travel-rule transfers completed by a transaction of an orphaned block go back to `acknowledged` (called in the
    transaction that orphans them). Returns how many."""
    if not tx_hashes:
        return 0
    reopened = list(TravelRuleTransfer.objects.select_for_update(no_key=True).select_related("organization")
                    .filter(chain_id=chain_id, status=TravelRuleStatus.COMPLETED, tx_hash__in={tx_hash.lower() for tx_hash in tx_hashes}))
    for transfer in reopened:
        _move(transfer, TravelRuleStatus.ACKNOWLEDGED,
              reason=f"Its transaction {transfer.tx_hash} (block {transfer.block_number}) was orphaned by a reorganisation above block "
                     f"{fork}; waiting for the transfer on the new branch.",
              completed_at=None, tx_hash="", block_number=None, confirmations=None)
    return len(reopened)
