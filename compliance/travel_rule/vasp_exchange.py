"""The travel-rule exchange with other VASPs (docs/travel-rule.md, "Beneficiaries at another VASP").

Outbound (we are the originator's VASP): the transfer's inquiry is POSTed to the beneficiary VASP
(compliance.travel_rule.tasks.process_transfer, on commit of the initiation; the beat sweep hands out retries).
An attempt is claimed first (attempts + 1 and a lease in `vasp_next_attempt_at`, committed), sent
outside any transaction within the webhook transport's 5 s deadline, and its outcome recorded only
if the lease is still this attempt's. The answer is the VASP's decision (approved → acknowledged,
rejected → rejected) or "pending" (the decision comes to our callback later); a failure (no answer,
not 2xx, not a transfer reply) is retried after RETRY_DELAYS until the answer deadline, when the
sweep expires the transfer.

Inbound (we are the beneficiary's VASP): a registered VASP's signed inquiry is answered at once
(the beneficiary address must be a registered, usable wallet of a compliant customer) and
recorded, with our answer, as an InboundTravelRuleTransfer.
"""

import logging
import uuid
from dataclasses import dataclass
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from common.audit import audit_record
from common.errors import BadRequest, Conflict, NotFound, ValidationFailed, flatten_details
from common.parsers import loads_object
from compliance.models import InboundDecision, InboundTravelRuleTransfer, TravelRuleStatus, TravelRuleTransfer, VaspStatus
from compliance.travel_rule import selectors, vasp_protocol
from compliance.travel_rule.commitment import commitment_of
from compliance.travel_rule.services import _move, side_problems
from onboarding.models import Entity, Wallet
from webhooks import transport

logger = logging.getLogger("compliance.travel_rule.vasp_exchange")

RETRY_DELAYS = (timedelta(seconds=30), timedelta(minutes=1), timedelta(minutes=5), timedelta(minutes=15), timedelta(hours=1))
LEASE = timedelta(seconds=60)  # longer than an attempt's 5 s deadline


def is_vasp_transfer(transfer_id) -> bool:
    return TravelRuleTransfer.objects.filter(pk=transfer_id, beneficiary_vasp__isnull=False).exists()


@dataclass(frozen=True)
class _Claim:
    attempt: int
    url: str
    secret: str
    body: bytes


@transaction.atomic
def _claim(transfer_id) -> _Claim | None:
    """The next attempt of a pending, unanswered inquiry that is due, or None. The originator is
    checked again first (it may have been suspended since the initiation): not compliant → rejected."""
    # (not select_related("beneficiary_vasp"): PostgreSQL refuses FOR UPDATE on the nullable side of an outer join)
    transfer = (TravelRuleTransfer.objects.select_for_update(no_key=True).select_related("organization")
                .filter(pk=transfer_id, status=TravelRuleStatus.PENDING, beneficiary_vasp__isnull=False,
                        vasp_delivered_at__isnull=True).first())
    now = timezone.now()
    if transfer is None or (transfer.vasp_next_attempt_at and transfer.vasp_next_attempt_at > now):
        return None
    if transfer.expires_at and transfer.expires_at <= now:
        return None  # past the deadline: the sweep expires it
    entity = Entity.objects.get(pk=transfer.originator_entity_id)
    wallet = Wallet.objects.filter(entity=entity, chain_id=transfer.chain_id, address=transfer.from_address).first()
    problems = (side_problems(entity, wallet) if wallet is not None
                else [f"the wallet {transfer.from_address} is no longer registered to it"])
    if problems:
        _move(transfer, TravelRuleStatus.REJECTED, reason=f"The originator is not compliant: {'; '.join(problems)}.", rejected_at=now)
        return None
    vasp = transfer.beneficiary_vasp
    if vasp.status != VaspStatus.ACTIVE:  # disabled since the initiation: nothing more goes to it
        _move(transfer, TravelRuleStatus.REJECTED, reason=f"The beneficiary VASP {vasp.name} was disabled before it answered.",
              rejected_at=now)
        return None
    transfer.vasp_attempts += 1
    transfer.vasp_next_attempt_at = now + LEASE
    transfer.save(update_fields=["vasp_attempts", "vasp_next_attempt_at", "updated_at"])
    return _Claim(transfer.vasp_attempts, vasp.inquiry_url, vasp.shared_secret,
                  vasp_protocol.encode(vasp_protocol.inquiry(transfer, vasp)))


def transfer_inquire(*, transfer_id) -> TravelRuleTransfer | None:
    """One attempt of the transfer's inquiry, if one is due; returns the transfer as it then is."""
    claim = _claim(transfer_id)
    if claim is None:
        return None
    outcome = transport.post(claim.url, claim.body, vasp_protocol.signed_headers(claim.secret, claim.body),
                             answer_limit=vasp_protocol.ANSWER_LIMIT)
    return _record(transfer_id, claim.attempt, outcome)


def _answer(outcome: transport.Outcome, transfer_id: str) -> tuple[dict | None, str]:
    """(the VASP's transfer reply, "") or (None, why the attempt failed)."""
    if not outcome.succeeded:
        return None, outcome.error or f"HTTP {outcome.status_code}"
    try:
        message = loads_object(outcome.answer, "The answer")  # not json.loads: 64 KiB of "[" would overflow it
    except ValueError:
        return None, f"HTTP {outcome.status_code}, but the answer is not a JSON transfer reply"
    serializer = vasp_protocol.TransferReply(data=message)
    if not serializer.is_valid():
        problems = "; ".join(f"{d['field']}: {d['message']}" for d in flatten_details(serializer.errors)[:3])
        return None, f"HTTP {outcome.status_code}, but the answer is not a valid transfer reply ({problems})"
    if serializer.validated_data["transfer_id"] != transfer_id:
        return None, f"HTTP {outcome.status_code}, but the reply names another transfer"
    return serializer.validated_data, ""


@transaction.atomic
def _record(transfer_id, attempt: int, outcome: transport.Outcome) -> TravelRuleTransfer | None:
    transfer = (TravelRuleTransfer.objects.select_for_update(no_key=True).select_related("organization")
                .filter(pk=transfer_id).first())
    if transfer is None or transfer.status != TravelRuleStatus.PENDING or transfer.vasp_attempts != attempt:
        return transfer  # decided meanwhile (a callback, the sweep), or the lease went to a later attempt
    reply, error = _answer(outcome, str(transfer.pk))
    now = timezone.now()
    if reply is None:
        delay = RETRY_DELAYS[min(attempt, len(RETRY_DELAYS)) - 1]
        transfer.vasp_last_error, transfer.vasp_next_attempt_at = error[:500], now + delay
        transfer.save(update_fields=["vasp_last_error", "vasp_next_attempt_at", "updated_at"])
        logger.info("travel-rule inquiry %s attempt %d failed: %s", transfer.pk, attempt, error)
        return transfer
    transfer.vasp_delivered_at, transfer.vasp_next_attempt_at, transfer.vasp_last_error = now, None, ""
    transfer.save(update_fields=["vasp_delivered_at", "vasp_next_attempt_at", "vasp_last_error", "updated_at"])
    if reply["decision"] != "pending":
        _decide(transfer, reply["decision"], reply["reason"])
    return transfer


def _decide(transfer: TravelRuleTransfer, decision: str, reason: str) -> None:
    now = timezone.now()
    vasp = transfer.beneficiary_vasp
    if decision == "approved":
        policy = selectors.travel_rule_policy(organization=transfer.organization)
        _move(transfer, TravelRuleStatus.ACKNOWLEDGED, reason=f"Approved by the beneficiary VASP {vasp.name}.", acknowledged_at=now,
              expires_at=now + timedelta(hours=policy.acknowledgement_valid_hours))
    else:
        _move(transfer, TravelRuleStatus.REJECTED, reason=f"Rejected by the beneficiary VASP {vasp.name}: {reason}", rejected_at=now)


DECIDED = {"approved": {TravelRuleStatus.ACKNOWLEDGED, TravelRuleStatus.COMPLETED, TravelRuleStatus.EXPIRED},
           "rejected": {TravelRuleStatus.REJECTED}}


def _message(serializer_class, body: bytes) -> dict:
    try:
        payload = loads_object(body, "The message body")
    except ValueError as error:
        raise BadRequest(str(error)) from None
    serializer = serializer_class(data=payload)
    if not serializer.is_valid():
        raise ValidationFailed(details=flatten_details(serializer.errors))
    return serializer.validated_data


@transaction.atomic
def reply_receive(*, vasp_id, headers, body: bytes) -> TravelRuleTransfer:
    """A counterparty VASP's later reply to one of our inquiries (its callback). The same decision
    again changes nothing; the other decision after one was taken is a 409."""
    vasp = vasp_protocol.verified_sender(vasp_id, headers, body)
    message = _message(vasp_protocol.TransferReply, body)
    if message["decision"] == "pending":
        raise ValidationFailed.for_field("decision", "A reply to the callback is approved or rejected.")
    try:
        transfer_pk = uuid.UUID(message["transfer_id"])
    except ValueError:
        transfer_pk = None
    transfer = (TravelRuleTransfer.objects.select_for_update(no_key=True).select_related("organization")
                .filter(pk=transfer_pk, beneficiary_vasp=vasp).first() if transfer_pk else None)
    if transfer is None:
        raise NotFound("No transfer to you has this id.")
    if transfer.status == TravelRuleStatus.PENDING:
        transfer.vasp_delivered_at = transfer.vasp_delivered_at or timezone.now()
        transfer.vasp_next_attempt_at = None
        transfer.save(update_fields=["vasp_delivered_at", "vasp_next_attempt_at", "updated_at"])
        _decide(transfer, message["decision"], message["reason"])
    elif transfer.status not in DECIDED[message["decision"]]:
        raise Conflict(f"The transfer is already {transfer.status}; it cannot be {message['decision']} now.")
    return transfer


# --- Inbound: we are the beneficiary's VASP -------------------------------------------------------

@dataclass(frozen=True)
class InboundOutcome:
    record: InboundTravelRuleTransfer
    duplicate: bool


def _beneficiary(vasp, message: dict) -> tuple[Entity | None, str]:
    """(our customer, "") when the beneficiary address is a usable wallet of a compliant customer,
    else (the customer or None, why the transfer is refused)."""
    wallet = (Wallet.objects.select_related("entity")
              .filter(organization=vasp.organization, mode=vasp.mode, chain_id=message["chain_id"], address=message["to_address"])
              .first())
    if wallet is None:
        return None, f"{message['to_address']} on chain {message['chain_id']} is not a wallet of one of our customers."
    problems = side_problems(wallet.entity, wallet)
    if problems:
        return wallet.entity, f"The beneficiary is not compliant: {'; '.join(problems)}."
    return wallet.entity, ""


def _commitment_problem(message: dict) -> str | None:
    if not (message["salt"] and message["commitment"]):
        return None
    try:
        transfer_uuid = uuid.UUID(message["transfer_id"])
    except ValueError:
        return None  # another implementation's ids: the commitment scheme is ours
    if commitment_of(transfer_uuid, message["salt"], message["originator"], message["beneficiary"]) != message["commitment"]:
        return "The commitment is not keccak256(transfer_id || salt || sha256(originator and beneficiary data))."
    return None


FIELDS = ("chain_id", "asset", "amount", "from_address", "to_address", "originator", "beneficiary", "originating_vasp", "salt",
          "commitment")


def inquiry_receive(*, vasp_id, headers, body: bytes) -> InboundOutcome:
    """Verify, validate, decide and record; the same inquiry again answers the recorded decision, another
    inquiry with the same transfer id is a 409. Nothing is stored for a refused message."""
    vasp = vasp_protocol.verified_sender(vasp_id, headers, body)
    message = _message(vasp_protocol.TransferInquiry, body)
    problem = _commitment_problem(message)
    if problem:
        raise ValidationFailed.for_field("commitment", problem)
    try:
        return _record_inbound(vasp, message)
    except IntegrityError:  # the same inquiry, concurrently: answer what the first recorded
        return _record_inbound(vasp, message)


@transaction.atomic
def _record_inbound(vasp, message: dict) -> InboundOutcome:
    existing = InboundTravelRuleTransfer.objects.filter(originator_vasp=vasp, external_transfer_id=message["transfer_id"]).first()
    if existing is not None:
        if any(getattr(existing, name) != (message[name] if message[name] is not None else None) for name in FIELDS):
            raise Conflict("This transfer id was already sent with other values.",
                           details=[{"field": "transfer_id", "message": "Already used by another inquiry."}])
        return InboundOutcome(existing, duplicate=True)
    entity, reason = _beneficiary(vasp, message)
    decision = InboundDecision.REJECTED if reason else InboundDecision.APPROVED
    record = InboundTravelRuleTransfer(organization=vasp.organization, mode=vasp.mode, originator_vasp=vasp,
                                       external_transfer_id=message["transfer_id"], beneficiary_entity=entity, decision=decision,
                                       reason=reason[:500], **{name: message[name] for name in FIELDS})
    with transaction.atomic():
        record.save(force_insert=True)
    audit_record(actor=None, action=f"inbound_travel_rule_transfer.{decision}", object_type="inboundtravelruletransfer",
                 object_id=record.pk, organization=vasp.organization, mode=vasp.mode,
                 after={"originator_vasp_id": str(vasp.pk), "transfer_id": record.external_transfer_id, "decision": decision,
                        "reason": reason, "beneficiary_entity_id": str(entity.pk) if entity else None})
    return InboundOutcome(record, duplicate=False)
