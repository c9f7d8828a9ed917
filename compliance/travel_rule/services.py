"""Travel-rule writes (docs/travel-rule.md): initiation, the travel-rule process that acknowledges or rejects a
transfer, expiry, and its execution on chain (reported by a chain service's confirmation callback, or seen by the
chain indexer: compliance.travel_rule.chain)."""

import hashlib
import json
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.utils import timezone

from common.audit import audit_record, audit_records
from common.errors import Conflict, ValidationFailed
from common.outbox import enqueue_on_commit
from common.permissions import require_role
from compliance.models import CounterpartyVasp, TravelRulePolicy, TravelRuleStatus, TravelRuleTransfer, VaspStatus
from compliance.travel_rule import selectors
from compliance.travel_rule.commitment import commitment_of, new_salt
from monitoring.ingestion.pricing import PriceBook
from onboarding.choices import EntityStatus, WalletStatus
from onboarding.models import Entity, Wallet
from organizations.choices import Role
from webhooks.services import event_emit

INITIATE_ROLE = Role.L1_ANALYST
POLICY_ROLE = Role.ADMIN  # the threshold decides which transfers carry personal data: an organization-wide setting
MAX_VALID_HOURS = 24 * 30
# A stored USD value is capped at a quadrillion: SQLite keeps decimals as 8-byte floats, so a cap must
# be exact as one (monitoring's 28 nines read back as 1e28, which no longer fits the column). Far above
# any threshold, so the travel-rule decision is the same.
USD_VALUE_CAP = Decimal("1000000000000000.00")
PENDING_REQUEUE_AFTER = timedelta(seconds=30)
SIDES = {"originator": "originator_entity_id", "beneficiary": "beneficiary_entity_id"}
EXPIRED_REASON = "Not executed on chain before it expired; initiate the transfer again."


@transaction.atomic
def travel_rule_policy_set(*, principal, threshold_usd, acknowledgement_valid_hours: int) -> TravelRulePolicy:
    """The organization's travel-rule threshold (USD, 0 = every transfer) and how long an acknowledgement
    stays valid; applies to transfers initiated from now on."""
    require_role(principal, POLICY_ROLE)
    details = []
    if threshold_usd is None or threshold_usd < 0:
        details.append({"field": "threshold_usd", "message": "A threshold is 0 or more USD."})
    if not 1 <= acknowledgement_valid_hours <= MAX_VALID_HOURS:
        details.append({"field": "acknowledgement_valid_hours", "message": f"From 1 to {MAX_VALID_HOURS} hours."})
    if details:
        raise ValidationFailed(details=details)
    policy = TravelRulePolicy.objects.select_for_update().filter(organization=principal.organization).first()
    policy = policy or TravelRulePolicy(organization=principal.organization)
    before = None if policy._state.adding else {"threshold_usd": policy.threshold_usd,
                                                 "acknowledgement_valid_hours": policy.acknowledgement_valid_hours}
    policy.threshold_usd, policy.acknowledgement_valid_hours = threshold_usd, acknowledgement_valid_hours
    policy.save()
    audit_record(actor=principal, action="travel_rule_policy.updated", object_type="travelrulepolicy", object_id=policy.pk,
                 organization=principal.organization, before=before,
                 after={"threshold_usd": threshold_usd, "acknowledgement_valid_hours": acknowledgement_valid_hours})
    return policy


@dataclass(frozen=True)
class InitiateOutcome:
    transfer: TravelRuleTransfer
    created: bool


def _tasks():
    from compliance.travel_rule import tasks

    return tasks


def _state(transfer: TravelRuleTransfer) -> dict:
    return {"status": transfer.status, "status_reason": transfer.status_reason, "tx_hash": transfer.tx_hash or None}


def _request_digest(request: dict) -> str:
    return hashlib.sha256(json.dumps(request, sort_keys=True, separators=(",", ":"), default=str).encode()).hexdigest()


def _sides(principal, *, entity_ids: dict, chain_id: int, addresses: dict) -> dict[str, tuple[Entity, Wallet]]:
    """Each side's entity (of the caller's organization and mode) and its wallet the transfer leaves from
    or arrives at; a 422 naming every side that is not one."""
    found, details = {}, []
    for side, entity_id in entity_ids.items():
        entity = Entity.objects.filter(pk=entity_id, organization=principal.organization, mode=principal.mode).first()
        if entity is None:
            details.append({"field": SIDES[side], "message": f"No entity of yours has this id (the {side})."})
            continue
        address, field = addresses[side]
        wallet = Wallet.objects.filter(organization=principal.organization, mode=principal.mode, chain_id=chain_id,
                                       address=address).first()
        if wallet is None or wallet.entity_id != entity.pk:
            details.append({"field": field, "message": f"{address} is not a wallet of the {side} ({entity.legal_name}) on chain "
                                                       f"{chain_id}; register it to that entity first "
                                                       f"(POST /v1/onboarding/entities/{entity.pk}/wallets)."})
            continue
        found[side] = (entity, wallet)
    if details:
        raise ValidationFailed(details=details)
    return found


def side_problems(entity: Entity, wallet: Wallet) -> list[str]:
    """Why a side is not compliant (compliance.status.entity_compliant, and its wallet usable): nothing when it is."""
    problems = []
    if entity.status != EntityStatus.ACTIVE:
        problems.append(f"the entity is {entity.status}, not active")
    if entity.sanctioned:
        problems.append("the entity is sanctioned")
    if wallet.status != WalletStatus.ACTIVE:
        problems.append(f"its wallet {wallet.address} is {wallet.status}")
    if wallet.flagged:
        problems.append(f"its wallet {wallet.address} is flagged" + (f" ({wallet.flag_reason})" if wallet.flag_reason else ""))
    return problems


def _refuse_non_compliant(sides: dict[str, tuple[Entity, Wallet]]) -> None:
    details = [{"field": SIDES[side], "message": f"The {side} ({entity.legal_name}) is not compliant: {'; '.join(problems)}."}
               for side, (entity, wallet) in sides.items() if (problems := side_problems(entity, wallet))]
    if details:
        raise Conflict(" ".join(detail["message"] for detail in details), code="NOT_COMPLIANT", details=details)


def _require_travel_rule_data(transfer: TravelRuleTransfer, originator, beneficiary) -> None:
    """FATF Recommendation 16: at or above the threshold, originator and beneficiary information travel
    with the transfer. Without a USD price the value is unknown, so the data is required."""
    if not transfer.travel_rule_required:
        return
    why = (f"the transfer is worth {transfer.usd_value} USD, at or above your travel-rule threshold of {transfer.threshold_usd} USD"
           if transfer.usd_value is not None else
           f"the asset {transfer.asset} has no USD price in your asset price table, so the transfer may be above your "
           f"travel-rule threshold of {transfer.threshold_usd} USD")
    details = [{"field": side, "message": f"IVMS101 {side} data is required: {why}."}
               for side, data in (("originator", originator), ("beneficiary", beneficiary)) if data is None]
    if details:
        raise ValidationFailed(details=details)


def _existing(principal, reference: str, digest: str) -> TravelRuleTransfer | None:
    if not reference:
        return None
    found = selectors.transfer_by_reference(organization=principal.organization, mode=principal.mode, reference=reference)
    if found is not None and found.request_digest != digest:
        raise Conflict(f"The reference {reference!r} is already used by the travel-rule transfer {found.pk}, initiated with other "
                       "values; a retry must send the same body, a new transfer a new reference.",
                       details=[{"field": "reference", "message": "Already used by another transfer."}])
    return found


@transaction.atomic
def transfer_initiate(*, principal, originator_entity_id, beneficiary_entity_id=None, chain_id: int, asset: str, amount: str,
                      from_address: str, to_address: str, originator=None, beneficiary=None, reference: str = "",
                      beneficiary_vasp_id=None) -> InitiateOutcome:
    """Record a travel-rule transfer once both sides are known and compliant, and enqueue the travel-rule
    process (tasks.process_transfer) on commit. `amount` is canonical, addresses normalized, IVMS101 data
    validated (compliance.api.serializers). The same `reference` with the same body returns the first
    transfer (a retry); with another body it is a 409."""
    request = {"originator_entity_id": str(originator_entity_id), "beneficiary_entity_id": str(beneficiary_entity_id),
               "chain_id": chain_id, "asset": asset, "amount": amount, "from_address": from_address, "to_address": to_address,
               "originator": originator, "beneficiary": beneficiary}
    if beneficiary_vasp_id is not None:  # the key only then: the digests of same-organization transfers stay as they were
        request |= {"beneficiary_entity_id": None, "beneficiary_vasp_id": str(beneficiary_vasp_id)}
    digest = _request_digest(request)
    existing = _existing(principal, reference, digest)
    if existing is not None:
        return InitiateOutcome(existing, created=False)
    vasp = None
    if beneficiary_vasp_id is not None:
        vasp = vasp_beneficiary(principal, beneficiary_vasp_id, beneficiary)
        sides = _sides(principal, entity_ids={"originator": originator_entity_id}, chain_id=chain_id,
                       addresses={"originator": (from_address, "from_address")})
    else:
        sides = _sides(principal, entity_ids={"originator": originator_entity_id, "beneficiary": beneficiary_entity_id},
                       chain_id=chain_id, addresses={"originator": (from_address, "from_address"),
                                                     "beneficiary": (to_address, "to_address")})
    _refuse_non_compliant(sides)
    policy = selectors.travel_rule_policy(organization=principal.organization)
    usd_value = PriceBook(principal.organization).transaction_value(amount, asset)
    usd_value = None if usd_value is None else min(usd_value, USD_VALUE_CAP)
    transfer = TravelRuleTransfer(
        organization=principal.organization, mode=principal.mode, originator_entity=sides["originator"][0],
        beneficiary_entity=sides["beneficiary"][0] if vasp is None else None, beneficiary_vasp=vasp,
        chain_id=chain_id, asset=asset, amount=amount, usd_value=usd_value,
        from_address=from_address, to_address=to_address, originator=originator, beneficiary=beneficiary,
        travel_rule_required=usd_value is None or usd_value >= policy.threshold_usd, threshold_usd=policy.threshold_usd,
        salt=new_salt(), reference=reference, request_digest=digest)
    _require_travel_rule_data(transfer, originator, beneficiary)
    if vasp is not None:  # the deadline of the beneficiary VASP's answer; its approval sets the execution deadline
        transfer.expires_at = timezone.now() + timedelta(hours=policy.acknowledgement_valid_hours)
    transfer.commitment = commitment_of(transfer.pk, transfer.salt, originator, beneficiary)
    try:
        with transaction.atomic():
            transfer.save(force_insert=True)
    except IntegrityError:  # a concurrent request with the same reference stored it first
        existing = _existing(principal, reference, digest)
        if existing is None:
            raise
        return InitiateOutcome(existing, created=False)
    audit_record(actor=principal, action="travel_rule_transfer.initiated", object_type="travelruletransfer", object_id=transfer.pk,
                 organization=principal.organization, mode=principal.mode,
                 after={**_state(transfer), "originator_entity_id": str(originator_entity_id),
                        "beneficiary_entity_id": str(beneficiary_entity_id) if vasp is None else None,
                        **({"beneficiary_vasp_id": str(vasp.pk)} if vasp is not None else {}),
                        "chain_id": chain_id, "asset": asset, "amount": amount,
                        "travel_rule_required": transfer.travel_rule_required, "commitment": transfer.commitment})
    enqueue_on_commit(_tasks().process_transfer, str(transfer.pk))
    return InitiateOutcome(transfer, created=True)


def _current_problems(transfer: TravelRuleTransfer) -> dict[str, list[str]]:
    """Each side's problems now (the process runs after initiation: an entity may have been suspended since)."""
    problems = {}
    for side, entity_id, address in (("originator", transfer.originator_entity_id, transfer.from_address),
                                     ("beneficiary", transfer.beneficiary_entity_id, transfer.to_address)):
        entity = Entity.objects.get(pk=entity_id)
        wallet = Wallet.objects.filter(entity=entity, chain_id=transfer.chain_id, address=address).first()
        found = side_problems(entity, wallet) if wallet is not None else [f"the wallet {address} is no longer registered to it"]
        if found:
            problems[side] = found
    return problems


def _move(transfer: TravelRuleTransfer, target: str, *, actor=None, reason: str = "", **fields) -> None:
    if not TravelRuleStatus.can_move(transfer.status, target):
        raise Conflict(f"A travel-rule transfer that is {transfer.status} cannot become {target}.")
    before = _state(transfer)
    transfer.status, transfer.status_reason = target, reason[:500]
    for name, value in fields.items():
        setattr(transfer, name, value)
    transfer.save(update_fields=["status", "status_reason", *fields, "updated_at"])
    audit_record(actor=actor, action=f"travel_rule_transfer.{target}", object_type="travelruletransfer", object_id=transfer.pk,
                 organization=transfer.organization, mode=transfer.mode, before=before, after=_state(transfer))


@transaction.atomic
def transfer_process(*, transfer_id) -> TravelRuleTransfer | None:
    """The travel-rule process of a pending transfer: both sides still compliant → `acknowledged` (to be
    executed before `expires_at`); else `rejected`, naming why. The beneficiary is a customer of the same
    organization, so the beneficiary VASP's side of the exchange is this service's own record: the data
    is stored and shown to the beneficiary through the customer travel-rule operation. Idempotent: a
    transfer no longer pending is left alone."""
    transfer = (TravelRuleTransfer.objects.select_for_update(no_key=True).select_related("organization")
                .filter(pk=transfer_id, status=TravelRuleStatus.PENDING, beneficiary_vasp__isnull=True).first())
    if transfer is None:  # (a beneficiary at another VASP: compliance.travel_rule.vasp_exchange)
        return None
    now = timezone.now()
    problems = _current_problems(transfer)
    if problems:
        reason = " ".join(f"The {side} is not compliant: {'; '.join(found)}." for side, found in problems.items())
        _move(transfer, TravelRuleStatus.REJECTED, reason=reason, rejected_at=now)
    else:
        policy = selectors.travel_rule_policy(organization=transfer.organization)
        _move(transfer, TravelRuleStatus.ACKNOWLEDGED, acknowledged_at=now,
              expires_at=now + timedelta(hours=policy.acknowledgement_valid_hours))
    return transfer


@transaction.atomic
def transfers_sweep() -> tuple[list[str], int]:
    """Beat: re-enqueue the process of transfers left pending (a lost message, a dead worker), and expire
    acknowledged transfers not executed in time. Returns (re-enqueued ids, number expired)."""
    now = timezone.now()
    pending = [str(pk) for pk in TravelRuleTransfer.objects.filter(
        status=TravelRuleStatus.PENDING, created_at__lte=now - PENDING_REQUEUE_AFTER,
    ).exclude(vasp_delivered_at__isnull=False).exclude(vasp_next_attempt_at__gt=now)  # another VASP's answer awaited, a retry not due
        .order_by("created_at").values_list("pk", flat=True)[:500]]
    for transfer_id in pending:
        enqueue_on_commit(_tasks().process_transfer, transfer_id)
    due = list(TravelRuleTransfer.objects.select_for_update(no_key=True).filter(
        status=TravelRuleStatus.ACKNOWLEDGED, expires_at__lte=now).order_by("expires_at")[:500])
    reason = EXPIRED_REASON
    TravelRuleTransfer.objects.filter(pk__in=[t.pk for t in due], status=TravelRuleStatus.ACKNOWLEDGED).update(
        status=TravelRuleStatus.EXPIRED, status_reason=reason, expired_at=now, updated_at=now)
    audit_records(actor=None, action="travel_rule_transfer.expired", object_type="travelruletransfer", changes=[
        (t, _state(t), {"status": TravelRuleStatus.EXPIRED, "status_reason": reason, "tx_hash": None}) for t in due])
    unanswered = _expire_unanswered(now)
    return pending, len(due) + unanswered


def _expire_unanswered(now) -> int:
    """Transfers to another VASP that had no answer by their deadline (docs/travel-rule.md)."""
    due = list(TravelRuleTransfer.objects.select_for_update(no_key=True).filter(
        status=TravelRuleStatus.PENDING, beneficiary_vasp__isnull=False, expires_at__lte=now).order_by("expires_at")[:500])
    reason = "The beneficiary VASP did not answer before the deadline; initiate the transfer again."
    TravelRuleTransfer.objects.filter(pk__in=[t.pk for t in due], status=TravelRuleStatus.PENDING).update(
        status=TravelRuleStatus.EXPIRED, status_reason=reason, expired_at=now, updated_at=now)
    audit_records(actor=None, action="travel_rule_transfer.expired", object_type="travelruletransfer", changes=[
        (t, _state(t), {"status": TravelRuleStatus.EXPIRED, "status_reason": reason, "tx_hash": None}) for t in due])
    return len(due)


def vasp_beneficiary(principal, vasp_id, beneficiary) -> "CounterpartyVasp":
    """The counterparty VASP a transfer goes to: the caller's (organization and mode), active; the
    IVMS101 beneficiary is then always required (the other VASP identifies its customer by it)."""
    vasp = CounterpartyVasp.objects.filter(pk=vasp_id, organization=principal.organization, mode=principal.mode).first()
    details = []
    if vasp is None:
        details.append({"field": "beneficiary_vasp_id", "message": "No counterparty VASP of yours has this id."})
    elif vasp.status != VaspStatus.ACTIVE:
        details.append({"field": "beneficiary_vasp_id", "message": f"The VASP {vasp.name} is {vasp.status}."})
    if beneficiary is None:
        details.append({"field": "beneficiary", "message": "IVMS101 beneficiary data is required for a beneficiary at another VASP."})
    if details:
        raise ValidationFailed(details=details)
    return vasp


def transfer_confirm(*, transfer: TravelRuleTransfer, payload: dict) -> str:
    """The chain service's word on the transaction that executes `transfer` (locked by the caller, in its
    transaction). Confirmed: an acknowledged transfer is `completed` (tx_hash, block, a `transfer.confirmed`
    event) when the chain confirmed it by `expires_at`, else it is `expired` (the sweep may not have run
    yet); a transfer in any other state keeps it, with the transaction recorded and the anomaly named.
    Failed or reverted: the transfer stays as it is (an acknowledged one may be executed again before
    it expires), with the failure in its reason. Returns the line the callback log keeps."""
    if transfer.chain_id != payload["chain_id"]:
        raise Conflict(f"The confirmation is for chain {payload['chain_id']}; the travel-rule transfer {transfer.pk} is on "
                       f"chain {transfer.chain_id}.")
    tx_hash = payload["tx_hash"].lower()
    if payload["status"] != "confirmed":
        return _note(transfer, f"Transaction {tx_hash} {payload['status']} on chain; nothing was transferred.",
                     f"travel-rule transfer {transfer.pk}: transaction {payload['status']}; stays {transfer.status}")
    if transfer.status == TravelRuleStatus.COMPLETED:
        if transfer.tx_hash == tx_hash:
            return f"travel-rule transfer {transfer.pk} was already completed"
        return _note(transfer, f"Also executed by {tx_hash} (block {payload.get('block_number')}) after its completion by "
                               f"{transfer.tx_hash}.", f"travel-rule transfer {transfer.pk}: executed a second time by {tx_hash}")
    chain = {"tx_hash": tx_hash, "block_number": payload.get("block_number"), "confirmations": payload.get("confirmations") or 0}
    if transfer.status == TravelRuleStatus.ACKNOWLEDGED and transfer.expires_at and payload["confirmed_at"] > transfer.expires_at:
        # Confirmed after its window closed, before the sweep expired it: it expired all the same.
        _move(transfer, TravelRuleStatus.EXPIRED, reason=EXPIRED_REASON, expired_at=timezone.now())
    if transfer.status != TravelRuleStatus.ACKNOWLEDGED:
        for name, value in chain.items():
            setattr(transfer, name, value)
        transfer.save(update_fields=[*chain, "updated_at"])
        return _note(transfer, f"Executed on chain by {tx_hash} while {transfer.status} (never acknowledged for execution).",
                     f"travel-rule transfer {transfer.pk} executed while {transfer.status}; recorded, status kept")
    _move(transfer, TravelRuleStatus.COMPLETED, completed_at=payload["confirmed_at"], **chain)
    event_emit(organization=transfer.organization, mode=transfer.mode, type="transfer.confirmed", data={
        "transfer_id": str(transfer.pk), "entity_id": str(transfer.originator_entity_id), "chain_id": transfer.chain_id,
        "tx_hash": tx_hash, "block_number": payload.get("block_number") or 0, "confirmations": payload.get("confirmations") or 0,
        "confirmed_at": payload["confirmed_at"]})
    return f"travel-rule transfer {transfer.pk} completed in block {payload.get('block_number')}"


def _note(transfer: TravelRuleTransfer, note: str, summary: str) -> str:
    before = _state(transfer)
    transfer.status_reason = f"{transfer.status_reason} {note}".strip()[-500:]
    transfer.save(update_fields=["status_reason", "updated_at"])
    audit_record(actor=None, action="travel_rule_transfer.chain_reported", object_type="travelruletransfer", object_id=transfer.pk,
                 organization=transfer.organization, mode=transfer.mode, before=before, after=_state(transfer))
    return summary
