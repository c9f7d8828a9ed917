"""What a compliance status says, computed from an entity row (and its wallets) with no further query.

- flags: `sanctioned`, `pep`, `adverse_media` are kept on the entity by the onboarding services;
  `high_risk` is a risk tier of high or critical; `suspended` is the status.
- compliant: the entity is active and neither sanctioned nor suspended; for a wallet look-up the
  wallet must also not be flagged. PEP, adverse media and high risk are reported, not blocking:
  they call for enhanced due diligence, which the client decides on.
- A wallet is published on-chain as flagged when it is flagged itself, or its entity is sanctioned,
  suspended or rejected.
"""

from datetime import timedelta

from django.conf import settings

from onboarding.choices import EntityStatus, RiskTier

HIGH_TIERS = frozenset({RiskTier.HIGH, RiskTier.CRITICAL})
BLOCKING_STATUSES = frozenset({EntityStatus.SUSPENDED, EntityStatus.REJECTED})


def onchain_status_ttl() -> timedelta:
    """How long a published status stays current on chain: its expiresAt is the row's creation plus this."""
    return getattr(settings, "ONCHAIN_STATUS_TTL", timedelta(days=90))


def flags_of(entity) -> dict:
    return {"sanctioned": entity.sanctioned, "pep": entity.pep, "adverse_media": entity.adverse_media,
            "high_risk": entity.risk_tier in HIGH_TIERS, "suspended": entity.status == EntityStatus.SUSPENDED}


def entity_compliant(entity) -> bool:
    return entity.status == EntityStatus.ACTIVE and not entity.sanctioned


def wallet_blocked(entity, wallet) -> bool:
    return wallet.flagged or entity.sanctioned or entity.status in BLOCKING_STATUSES


ONCHAIN_TIERS = {"": 0, RiskTier.LOW: 1, RiskTier.MEDIUM: 2, RiskTier.HIGH: 3, RiskTier.CRITICAL: 4}


def onchain_risk_tier(entity) -> int:
    """The status word's risk tier (docs/oracle.md): 0 none, 1 low .. 4 critical."""
    return ONCHAIN_TIERS.get(entity.risk_tier or "", 0)


def onchain_flags(entity, wallet) -> int:
    """The status word's flag bits (compliance.onchain.contracts.Flag) for a wallet. Only a blocked wallet
    (wallet_blocked) carries flags, so `isFlagged` on chain says what `flagged` says here: sanctioned (the entity,
    or the wallet's own address listed), suspended (the entity suspended or rejected), and, beside one of those,
    the informative high-risk and PEP bits. PEP and high risk alone are not blocking here, so they publish no bit."""
    from compliance.onchain.contracts import Flag

    if not wallet_blocked(entity, wallet):
        return 0
    flags = Flag(0)
    if entity.sanctioned or wallet.flagged:
        flags |= Flag.SANCTIONED
    if entity.status in BLOCKING_STATUSES:
        flags |= Flag.SUSPENDED
    if entity.risk_tier in HIGH_TIERS:
        flags |= Flag.HIGH_RISK
    if entity.pep:
        flags |= Flag.PEP
    return int(flags)


NOT_PUBLISHED = "not_published"
ONCHAIN_STATES = (NOT_PUBLISHED, "pending", "published", "confirmed")  # a wallet's `onchain.state`


def onchain_view(state) -> dict:
    """A wallet's `onchain` (docs/oracle.md, "In the API"): from its latest row that is not superseded
    (compliance.selectors.onchain_states), or None. `not_published` when there is no row, or the row waits on a
    chain that is disabled or not configured (nothing will send it); else the row's status: `pending` (to be sent),
    `published` (in a transaction, `tx_hash`), `confirmed` (deep enough, `confirmed_at`)."""
    if state is None or (state.status == "pending" and not state.chain_enabled):
        return {"state": NOT_PUBLISHED, "flagged": None, "version": None, "tx_hash": None, "published_at": None,
                "confirmed_at": None}
    return {"state": state.status, "flagged": state.flagged, "version": state.version, "tx_hash": state.tx_hash or None,
            "published_at": state.published_at, "confirmed_at": state.confirmed_at}


def wallet_view(wallet, onchain: dict | None = None) -> dict:
    return {"chain_id": wallet.chain_id, "address": wallet.address, "flagged": wallet.flagged, "status": wallet.status,
            "onchain": onchain_view((onchain or {}).get(wallet.pk))}


def status_response(entity, wallets, *, wallet=None, onchain: dict | None = None) -> dict:
    """ComplianceStatusResponse. With `wallet`, the look-up was by that wallet: it alone is listed and
    its flag counts toward `compliant`. `onchain` maps wallet ids to their OnchainState."""
    compliant = entity_compliant(entity) and not (wallet is not None and wallet.flagged)
    updated = max([entity.updated_at, *(w.updated_at for w in wallets)])
    return {"entity_id": str(entity.pk), "status": entity.status, "compliant": compliant, "flags": flags_of(entity),
            "risk_tier": entity.risk_tier or None, "wallets": [wallet_view(w, onchain) for w in wallets], "updated_at": updated}
