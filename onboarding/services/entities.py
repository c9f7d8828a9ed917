"""Entity and wallet writes: onboarding, review decisions (approve, reject, suspend), the move to
under review on a screening hit, and wallet registration. Each writes the audit log and the rows
other systems see (webhook events, notifications) in the same transaction (docs/architecture.md §6)."""

from django.db import IntegrityError, transaction
from django.utils import timezone

from common.audit import audit_record, audit_records
from common.chain import AddressError, normalized_address
from common.crypto import tax_id_fields
from common.errors import Conflict, NotFound, ValidationFailed
from common.outbox import enqueue_on_commit
from common.permissions import require_role
from common.principal import Principal
from compliance.services import onchain_updates_write
from compliance.status import BLOCKING_STATUSES
from monitoring.notifications.services import notification_create
from onboarding.choices import ENTITY_TRANSITIONS, CheckResult, CheckType, EntityStatus, HitStatus
from onboarding.models import BeneficialOwner, Entity, Wallet
from onboarding.risk import risk_recompute, risks_recompute
from onboarding.screening.thresholds import review_threshold
from onboarding.selectors import entity_of, latest_conclusive_check, latest_name_screening, sanctions_screenings_of
from onboarding.services import screening_claims
from organizations.choices import Role
from webhooks.services import event_emit

ENTITY_FIELDS = ("legal_name", "entity_type", "jurisdiction", "external_id", "registration_number", "date_of_birth",
                 "address", "industry", "website", "email", "phone", "expected_monthly_volume_usd", "metadata")
REVIEW_ROLE = Role.L2_INVESTIGATOR
ONBOARD_ROLE = Role.L1_ANALYST


def _tasks():
    from onboarding import tasks  # the tasks call these services: imported late to break the cycle

    return tasks


def _state(entity: Entity) -> dict:
    return {field: getattr(entity, field) for field in (*ENTITY_FIELDS, "status", "status_reason", "tax_id_last4")}


def _locked_entity(principal: Principal, entity_id) -> Entity:
    entity = Entity.objects.select_for_update(no_key=True).filter(
        pk=entity_id, organization=principal.organization, mode=principal.mode).first()
    if entity is None:
        raise NotFound("No entity of yours has this id.")
    return entity


# --- Onboarding --------------------------------------------------------------------------------

def _external_id_taken(external_id: str) -> str:
    return f"An entity with external_id {external_id!r} exists already."


def _entity_row(principal: Principal, data: dict) -> Entity:
    """The entity `data` describes, in `pending`, not saved yet: its first screening is queued with it, so
    the sweep for unscreened entities leaves it alone while that lease runs (screening_claims)."""
    fields = {field: data[field] for field in ENTITY_FIELDS if field in data}
    now = timezone.now()
    return Entity(organization=principal.organization, mode=principal.mode, created_by=principal.user,
                  status_changed_at=now, screening_queued_until=now + screening_claims.queued_lease(),
                  **fields, **tax_id_fields(data.get("tax_id")))


def _owner_rows(entity: Entity, data: dict) -> list[BeneficialOwner]:
    return [BeneficialOwner(entity=entity, **{k: v for k, v in ubo.items() if k != "tax_id"}, **tax_id_fields(ubo.get("tax_id")))
            for ubo in data.get("ubos", [])]


@transaction.atomic
def entity_create(*, principal: Principal, data: dict) -> Entity:
    """Create an entity in `pending` with its beneficial owners and wallets."""
    require_role(principal, ONBOARD_ROLE)
    external_id = data.get("external_id")
    if external_id and Entity.objects.filter(organization=principal.organization, mode=principal.mode, external_id=external_id).exists():
        raise Conflict(_external_id_taken(external_id))
    entity = _entity_row(principal, data)
    entity.save(force_insert=True)
    for owner in _owner_rows(entity, data):
        owner.save(force_insert=True)
    for index, wallet in enumerate(data.get("wallets", [])):
        _wallet_create(entity, field_prefix=f"wallets.{index}", **wallet)
    audit_record(actor=principal, action="entity.created", object_type="entity", object_id=entity.pk,
                 organization=entity.organization, mode=entity.mode, after=_state(entity))
    entity = risk_recompute(entity=entity, reason="onboarding", actor=principal)
    enqueue_on_commit(_tasks().screen_entity, str(entity.pk))
    return entity


MAX_BATCH = 1000
MAX_BATCH_WALLETS = 10_000  # a single onboarding takes 100; a thousand of those would be one slow transaction


@transaction.atomic
def entities_create_batch(*, principal: Principal, items: list[dict]) -> list[Entity]:
    """entity_create for up to MAX_BATCH entities, all or nothing: every item's problems (an
    external_id or wallet taken, given twice in the batch, an address the chain refuses) are
    reported together as `entities.<index>.<field>`, and then nothing is stored. Otherwise the
    rows go in a few statements (entities, owners, wallets, audit entries), the risk scores are
    computed in one pass, and each entity's screening is enqueued as a single create's is."""
    require_role(principal, ONBOARD_ROLE)
    if not 1 <= len(items) <= MAX_BATCH:
        raise ValidationFailed.for_field("entities", f"Send from 1 to {MAX_BATCH} entities.")
    wallets_given = sum(len(data.get("wallets", [])) for data in items)
    if wallets_given > MAX_BATCH_WALLETS:
        raise ValidationFailed.for_field("entities", f"The batch registers {wallets_given} wallets; a batch takes at most "
                                                     f"{MAX_BATCH_WALLETS}. Split it.")
    scope = {"organization": principal.organization, "mode": principal.mode}
    entities = [_entity_row(principal, data) for data in items]
    owners = [owner for entity, data in zip(entities, items, strict=True) for owner in _owner_rows(entity, data)]
    wallets, errors = _batch_wallets(scope, entities, items)
    errors += _batch_external_ids(scope, items)
    if errors:
        raise ValidationFailed(details=sorted(errors, key=lambda detail: _by_position(detail["field"])))
    try:
        with transaction.atomic():
            Entity.objects.bulk_create(entities, batch_size=500)
            BeneficialOwner.objects.bulk_create(owners, batch_size=500)
            Wallet.objects.bulk_create(wallets, batch_size=500)
    except IntegrityError:  # an external_id or wallet registered at the same moment by another request
        raise Conflict("An entity or wallet of this batch was registered at the same moment; nothing was stored. Send it again.") from None
    audit_records(actor=principal, action="entity.created", object_type="entity",
                  changes=[(entity, None, _state(entity)) for entity in entities])
    risks_recompute(entity_ids=[entity.pk for entity in entities], reason="onboarding", actor=principal)
    for entity in entities:
        enqueue_on_commit(_tasks().screen_entity, str(entity.pk))
    return entities


def _by_position(field: str) -> tuple:
    return tuple(int(part) if part.isdigit() else -1 for part in field.split(".")[1:2]), field


def _batch_external_ids(scope: dict, items: list[dict]) -> list[dict]:
    given: dict[str, int] = {}
    errors = []
    for index, data in enumerate(items):
        external_id = data.get("external_id")
        if external_id and external_id in given:
            errors.append({"field": f"entities.{index}.external_id",
                           "message": f"external_id {external_id!r} is given at entities.{given[external_id]} too."})
        elif external_id:
            given[external_id] = index
    taken = Entity.objects.filter(**scope, external_id__in=list(given)).values_list("external_id", flat=True)
    errors += [{"field": f"entities.{given[external_id]}.external_id", "message": _external_id_taken(external_id)} for external_id in taken]
    return errors


def _batch_wallets(scope: dict, entities: list[Entity], items: list[dict]) -> tuple[list[Wallet], list[dict]]:
    """The batch's wallets, checked as _wallet_create checks one, and their problems."""
    wallets, errors, given = [], [], {}
    for index, (entity, data) in enumerate(zip(entities, items, strict=True)):
        for position, wallet in enumerate(data.get("wallets", [])):
            field = f"entities.{index}.wallets.{position}.address"
            try:
                row = _wallet_row(entity, field_prefix=f"entities.{index}.wallets.{position}", **wallet)
            except ValidationFailed as error:
                errors += error.details
                continue
            key = (row.chain_id, row.address)
            if key in given:
                errors.append({"field": field,
                               "message": f"The wallet {row.address} on chain {row.chain_id} is given at {given[key]} too."})
                continue
            given[key] = field
            wallets.append(row)
    addresses = {address for _, address in given}
    for chain_id, address in Wallet.objects.filter(**scope, address__in=addresses).values_list("chain_id", "address"):
        if (chain_id, address) in given:
            errors.append({"field": given[(chain_id, address)], "message": _wallet_taken(chain_id, address)})
    return wallets, errors


def _wallet_taken(chain_id: int, address: str) -> str:
    return f"The wallet {address} on chain {chain_id} is registered already."


def _wallet_row(entity: Entity, *, chain_id: int = 0, address: str, label: str = "", field_prefix: str = "") -> Wallet:
    """The wallet, its address normalised for the chain (a 422 naming the field otherwise), not saved yet."""
    try:
        stored = normalized_address(chain_id, address)
    except AddressError as exc:
        raise ValidationFailed.for_field(f"{field_prefix}.address" if field_prefix else "address", str(exc)) from None
    return Wallet(organization=entity.organization, mode=entity.mode, entity=entity, chain_id=chain_id, address=stored, label=label)


def _wallet_create(entity: Entity, *, chain_id: int = 0, address: str, label: str = "", field_prefix: str = "") -> Wallet:
    row = _wallet_row(entity, chain_id=chain_id, address=address, label=label, field_prefix=field_prefix)
    stored = row.address
    if Wallet.objects.filter(organization=entity.organization, mode=entity.mode, chain_id=chain_id, address=stored).exists():
        raise Conflict(_wallet_taken(chain_id, stored))
    try:
        with transaction.atomic():
            row.save(force_insert=True)
            return row
    except IntegrityError:
        raise Conflict(_wallet_taken(chain_id, stored)) from None


@transaction.atomic
def wallet_add(*, principal: Principal, entity_id, chain_id: int = 0, address: str, label: str = "") -> Wallet:
    require_role(principal, ONBOARD_ROLE)
    entity = _locked_entity(principal, entity_id)
    wallet = _wallet_create(entity, chain_id=chain_id, address=address, label=label)
    audit_record(actor=principal, action="wallet.added", object_type="entity", object_id=entity.pk,
                 organization=entity.organization, mode=entity.mode,
                 after={"wallet_id": str(wallet.pk), "chain_id": chain_id, "address": wallet.address, "label": label})
    enqueue_on_commit(_tasks().screen_wallet, str(wallet.pk))
    return wallet


# --- Status ------------------------------------------------------------------------------------

def _status_events(entity: Entity, previous: str, actor_label: str | None, reason: str) -> None:
    """The webhook events and the notification of a status change (docs/webhooks.md, event types)."""
    now = entity.status_changed_at
    emit = lambda type, **data: event_emit(organization=entity.organization, mode=entity.mode, type=type,  # noqa: E731
                                           data={"entity_id": str(entity.pk), **data})
    emit("compliance.status_changed", previous_status=previous, new_status=entity.status, reason=reason or None,
         changed_at=now)
    if entity.status == EntityStatus.ACTIVE:
        emit("account.approved", approved_by=actor_label, approved_at=now)
    if entity.status == EntityStatus.SUSPENDED:
        emit("account.suspended", reason=reason or None, suspended_by=actor_label, suspended_at=now)
        emit("compliance.entity_suspended", reason=reason, suspended_by=actor_label, suspended_at=now)
    notification_create(
        organization=entity.organization, mode=entity.mode, type="entity_status_changed", entity_id=entity.pk,
        title=f"{entity.legal_name} is now {entity.get_status_display().lower()}",
        body=f"Status changed from {previous} to {entity.status}." + (f" Reason: {reason}" if reason else ""),
    )


def _move(entity: Entity, action: str, *, actor, actor_label: str | None, reason: str = "", notes: str = "") -> Entity:
    previous = entity.status
    target = EntityStatus.transition(action, previous)
    before = _state(entity)
    # Conditional update: of two concurrent decisions on one entity, only one moves it.
    moved = Entity.objects.filter(pk=entity.pk, status=previous).update(
        status=target, status_reason=reason, status_changed_at=timezone.now(), updated_at=timezone.now())
    if not moved:
        raise Conflict("The entity changed status meanwhile; reload it and decide again.")
    entity.refresh_from_db()
    audit_record(actor=actor, action=f"entity.{action}", object_type="entity", object_id=entity.pk,
                 organization=entity.organization, mode=entity.mode, before=before,
                 after={**_state(entity), "notes": notes})
    _status_events(entity, previous, actor_label, reason)
    if target in BLOCKING_STATUSES or previous in BLOCKING_STATUSES:
        onchain_updates_write(entity=entity, reason=f"entity {target}")
    return entity


def _require_sanctions_screening(entity: Entity) -> None:
    """An entity is approved only after a sanctions screening of its names that ran: none yet (it runs
    right after onboarding, in the worker) or one that failed (no list loaded, a name in a script the
    matcher cannot read, a provider error) is a 409 saying what to do, so that an unscreened customer
    never reads `compliant: true`. The names' screening is the latest that covered them: a later
    wallet-only run does not stand in for it. A latest run that failed, whatever it covered, blocks too."""
    screenings = sanctions_screenings_of(entity)
    if screenings.names is None:
        raise Conflict("This entity's name has not been screened against the sanctions lists yet (screening runs in the "
                       "worker right after onboarding); approve it once a sanctions check is recorded.")
    failed = screenings.failed()
    if failed:
        check = failed[0]
        covered = "of its names " if check == screenings.names else ""
        raise Conflict(
            f"The entity's last sanctions screening {covered}did not complete ({check.summary or 'error'}); approve it "
            "after a screening that completes: load the lists and screen again, or record your own provider's result "
            "with POST /v1/monitoring/screening (update_compliance_status: true).")
    unreadable = screenings.unreadable()
    if unreadable:
        raise Conflict(
            f"The entity's last sanctions screening could not read {len(unreadable)} name(s) (no transliteration of their "
            "letters); review them by hand and record the outcome with POST /v1/monitoring/screening (update_compliance_status: "
            "true), or correct the name.")
    external = latest_conclusive_check(entity, CheckType.SANCTIONS, external=True)
    if external is not None and external.result != CheckResult.PASS:
        found = "a possible match" if external.result == CheckResult.REVIEW else "a match"
        raise Conflict(f"Your provider's sanctions screening ({external.provider}, {external.created_at:%Y-%m-%d %H:%M} UTC) found "
                       f"{found} ({external.result}); decide it first: record the outcome of your review with POST "
                       "/v1/monitoring/screening (result pass, update_compliance_status: true) if it is not this customer, or "
                       "reject the entity.")
    _require_matches_decided(entity)


def _require_matches_decided(entity: Entity) -> None:
    """Every open sanctions match (a hit at or above the review threshold; weaker ones are kept for the
    record only) is decided before approval: cleared as a false positive (who, when
    and why recorded on the hit) or, if it is the listed party, the entity rejected. Approving over an
    open match would record no decision on it and let the entity read `compliant: true`."""
    open_hits = entity.screening_hits.filter(active=True, status=HitStatus.OPEN, score__gte=review_threshold(),
                                             check_run__check_type=CheckType.SANCTIONS)  # a PEP match is no bar to approval
    count = open_hits.count()
    if not count:
        return
    shown = "; ".join(f"{hit.primary_name} ({hit.source}, score {hit.score:.2f}, hit {hit.pk})"
                      for hit in open_hits.order_by("-score", "primary_name")[:3])
    more = f"; and {count - 3} more" if count > 3 else ""
    raise Conflict(f"This entity has {count} open sanctions match{'es' if count > 1 else ''} to decide first: {shown}{more}. "
                   f"Clear each that is not this customer with POST /v1/onboarding/entities/{entity.pk}/screening-hits/"
                   "{hit_id}/false-positive and a reason, or reject the entity if it is the listed party.")


def entity_review(*, principal: Principal, entity_id, action: str, reason: str = "", notes: str = "") -> Entity:
    """approve | reject | suspend, by an L2 investigator or above; reject and suspend need a reason."""
    require_role(principal, REVIEW_ROLE)
    if action == "approve":
        _screen_if_never_screened(principal, entity_id)
    return _review(principal=principal, entity_id=entity_id, action=action, reason=reason, notes=notes)


def _screen_if_never_screened(principal: Principal, entity_id) -> None:
    """The onboarding screening runs in the worker right after the entity is created; an approval
    that comes first (a script creating and approving at once) has the built-in screening run here,
    as the worker would, and committed on its own: whatever it finds stays on record even when the
    approval is then refused for it. The worker's own run adds a second check later."""
    entity = entity_of(organization=principal.organization, mode=principal.mode, entity_id=entity_id)
    if entity is None or entity.status not in ENTITY_TRANSITIONS["approve"][0]:
        return
    if latest_name_screening(entity) is not None:
        return
    from onboarding.services.screening import entity_screen  # (that module imports this one)

    entity_screen(entity_id=entity.pk, trigger="approval")


@transaction.atomic
def _review(*, principal: Principal, entity_id, action: str, reason: str, notes: str) -> Entity:
    if action in ("reject", "suspend") and not reason.strip():
        raise ValidationFailed.for_field("reason", f"A reason is required to {action} an entity.")
    entity = _locked_entity(principal, entity_id)
    if action == "approve":
        _require_sanctions_screening(entity)
    entity = _move(entity, action, actor=principal, actor_label=principal.actor_label, reason=reason, notes=notes)
    return risk_recompute(entity=entity, reason=f"entity {action}", actor=principal)


@transaction.atomic
def entity_flag_for_review(*, entity: Entity, reason: str) -> Entity:
    """A screening hit moves a pending entity to under review (the system acts); others stay put."""
    entity = Entity.objects.select_for_update(no_key=True).get(pk=entity.pk)
    if entity.status != EntityStatus.PENDING:
        return entity
    return _move(entity, "flag_for_review", actor=None, actor_label=None, reason=reason)
