"""Every onboarding write, one module per job; import them from here.

- entities: onboarding, wallets, review decisions, the move to under review
- screening: built-in sanctions (and PEP-list) screening runs, false-positive decisions
- screening_lists: which lists an organization screens against
- checks: provider checks (PEP, adverse media), external results
- flags: the compliance-flag aggregator
- kyb: KYB verification, its expiry (the beat sweep) and the review policy
- risk scoring lives in onboarding.risk (risk_recompute)
"""

from onboarding.services.checks import (  # noqa: F401
    EXTERNAL_ROLE,
    adverse_media_refresh,
    certificate_issue,
    external_check_record,
    provider_checks_record,
    provider_checks_run,
)
from onboarding.services.entities import (  # noqa: F401
    MAX_BATCH,
    ONBOARD_ROLE,
    REVIEW_ROLE,
    entities_create_batch,
    entity_create,
    entity_flag_for_review,
    entity_review,
    wallet_add,
)
from onboarding.services.flags import flags_recompute  # noqa: F401
from onboarding.services.kyb import (  # noqa: F401
    POLICY_FIELDS as KYB_POLICY_FIELDS,
)
from onboarding.services.kyb import (  # noqa: F401
    kyb_expiry_sweep,
    kyb_policy_set,
    kyb_verification_record,
)
from onboarding.services.screening import (  # noqa: F401
    FALSE_POSITIVE_ROLE,
    entity_screen,
    hit_mark_false_positive,
    wallet_screen,
)
from onboarding.services.screening_lists import LISTS_ROLE, screening_list_set  # noqa: F401
