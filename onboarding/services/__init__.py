"""Every onboarding write, one module per job; import them from here.

- entities: onboarding, wallets, review decisions, the move to under review
- screening: built-in sanctions screening runs, false-positive decisions
- checks: provider checks (PEP, adverse media), external results, the compliance-flag aggregator
"""

from onboarding.services.entities import (  # noqa: F401
    ONBOARD_ROLE,
    REVIEW_ROLE,
    entity_create,
    entity_flag_for_review,
    entity_review,
    wallet_add,
)
