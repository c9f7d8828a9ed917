"""The onboarding app's models, one module per aggregate. Keep this file a plain list of imports."""

from onboarding.models.checks import ComplianceCheck, RiskAssessment, ScreeningFalsePositive, ScreeningHit  # noqa: F401
from onboarding.models.entities import BeneficialOwner, Entity, Wallet  # noqa: F401
from onboarding.models.kyb import KybPolicy  # noqa: F401
from onboarding.models.sanctions import (  # noqa: F401
    SanctionsAddress,
    SanctionsDigitalAddress,
    SanctionsEntry,
    SanctionsList,
    SanctionsListVersion,
    SanctionsName,
    SanctionsRefresh,
    ScreeningListSetting,
)
