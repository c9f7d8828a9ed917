"""The decision aggregator: the entity's compliance flags (sanctioned, pep, adverse_media) from its
open sanctions hits and its latest conclusive checks. Stored on the entity so that a status
look-up reads one row (compliance.status); a change that turns a wallet's on-chain answer writes its
on-chain status row in the same transaction (docs/architecture.md §6)."""

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from compliance.services import onchain_updates_write
from compliance.status import wallet_blocked
from onboarding.choices import BUILTIN_PROVIDER, CheckResult, CheckType, HitStatus, WalletStatus
from onboarding.models import ComplianceCheck, Entity, ScreeningHit
from onboarding.screening.thresholds import fail_threshold, review_threshold
from onboarding.selectors import latest_conclusive_check

FOUND = (CheckResult.REVIEW, CheckResult.FAIL)


def computed_flags(entity: Entity) -> dict:
    """sanctioned: an open, active built-in sanctions hit at the fail threshold (a hit of a `pep` check
    never counts), or the latest external sanctions result that counts is `fail`. adverse_media: the
    latest conclusive check found something. pep: the built-in PEP-list screening and a PEP provider
    (a configured provider's or a client's external result) are two sources, each judged by its own
    latest conclusive check: the entity is one when either found one (the built-in check only while
    one of its matches is still open, not cleared as a false positive). A built-in re-screening that
    finds nothing on the organization's PEP lists does not undo a provider's finding, nor the reverse."""
    confident_hit = ScreeningHit.objects.filter(entity=entity, active=True, status=HitStatus.OPEN, score__gte=fail_threshold(),
                                                check_run__check_type=CheckType.SANCTIONS).exists()
    external = latest_conclusive_check(entity, CheckType.SANCTIONS, external=True)
    builtin_pep = latest_conclusive_check(entity, CheckType.PEP, provider=BUILTIN_PROVIDER, external=False)
    provider_pep = latest_conclusive_check(entity, CheckType.PEP, ~Q(provider=BUILTIN_PROVIDER) | Q(external=True))
    media = latest_conclusive_check(entity, CheckType.ADVERSE_MEDIA)
    return {
        "sanctioned": confident_hit or (external is not None and external.result == CheckResult.FAIL),
        "pep": _found(builtin_pep) or _found(provider_pep),
        "adverse_media": media is not None and media.result in FOUND,
    }


def _found(check: ComplianceCheck | None) -> bool:
    if check is None or check.result not in FOUND:
        return False
    if check.provider == BUILTIN_PROVIDER and not check.external:
        # The built-in screening's matches can be cleared as false positives one by one, as its
        # sanctions hits are: once none is open the check no longer says the entity is one.
        return check.hits.filter(status=HitStatus.OPEN, score__gte=review_threshold()).exists()
    return True


@transaction.atomic
def flags_recompute(*, entity: Entity, reason: str = "", publish: bool = False) -> bool:
    """Store the aggregated flags; True when one changed.

    A change of `sanctioned` changes what the oracle publishes for the entity's wallets (a wallet is
    blocked when it is flagged or its entity sanctioned, suspended or rejected: compliance.status),
    so one on-chain status row is written per active wallet whose answer it turned. With `publish`
    (a counted external result: `update_compliance_status`, docs/onboarding.md) one is written per active wallet whatever changed."""
    flags = computed_flags(entity)
    current = Entity.objects.filter(pk=entity.pk).values("sanctioned", "pep", "adverse_media", "status").get()
    entity.status = current.pop("status")
    wallets = list(entity.wallets.filter(status=WalletStatus.ACTIVE).order_by("created_at", "id"))
    before = _blocked(entity, wallets, current)
    changed = current != flags
    if changed:
        now = timezone.now()
        Entity.objects.filter(pk=entity.pk).update(**flags, flags_updated_at=now, updated_at=now)
    after = _blocked(entity, wallets, flags)
    turned = [wallet for wallet in wallets if before[wallet.pk] != after[wallet.pk]]
    if publish or turned:
        default = "entity sanctioned" if flags["sanctioned"] else "entity no longer sanctioned"
        onchain_updates_write(entity=entity, wallets=wallets if publish else turned, reason=reason or default)
    return changed


def _blocked(entity: Entity, wallets: list, flags: dict) -> dict:
    """{wallet id: blocked on-chain} with the entity holding `flags` (left holding them)."""
    for name, value in flags.items():
        setattr(entity, name, value)
    return {wallet.pk: wallet_blocked(entity, wallet) for wallet in wallets}
