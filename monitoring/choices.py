from datetime import UTC, datetime

from django.db import models

from common.errors import Conflict


class Severity(models.TextChoices):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


class AlertStatus(models.TextChoices):
    """open → in_review (an investigator picks it up, or its case is worked) → closed (a disposition)."""

    OPEN = "open"
    IN_REVIEW = "in_review"
    CLOSED = "closed"

    @classmethod
    def require_open(cls, current: str) -> None:
        if current == cls.CLOSED:
            raise Conflict("The alert is closed: it already has a disposition.")


class Disposition(models.TextChoices):
    TRUE_POSITIVE = "true_positive"
    FALSE_POSITIVE = "false_positive"
    INCONCLUSIVE = "inconclusive"


class FiatEventType(models.TextChoices):
    WIRE_IN = "wire_in"
    WIRE_OUT = "wire_out"
    ACH_IN = "ach_in"
    ACH_OUT = "ach_out"
    CARD_LOAD = "card_load"
    CARD_PURCHASE = "card_purchase"
    CARD_ATM = "card_atm"
    CARD_REFUND = "card_refund"
    CHECK_DEPOSIT = "check_deposit"
    CHECK_PURCHASE = "check_purchase"


CARD_EVENTS = frozenset({FiatEventType.CARD_LOAD, FiatEventType.CARD_PURCHASE, FiatEventType.CARD_ATM, FiatEventType.CARD_REFUND})
CHECK_EVENTS = frozenset({FiatEventType.CHECK_DEPOSIT, FiatEventType.CHECK_PURCHASE})


class CardType(models.TextChoices):
    CREDIT = "credit"
    DEBIT = "debit"
    PREPAID = "prepaid"


class CheckType(models.TextChoices):
    PERSONAL = "personal"
    BUSINESS = "business"
    CASHIER = "cashier"
    MONEY_ORDER = "money_order"


class DepositMethod(models.TextChoices):
    TELLER = "teller"
    ATM = "atm"
    RDC_MOBILE = "rdc_mobile"
    RDC_DESKTOP = "rdc_desktop"


class Source(models.TextChoices):
    API = "api"
    BACKFILL = "backfill"
    INDEXER = "indexer"


# SLA of an alert by severity (issue 4): time to disposition.
SLA_HOURS = {Severity.CRITICAL: 24, Severity.HIGH: 72, Severity.MEDIUM: 7 * 24, Severity.LOW: 14 * 24}

# No event this service monitors happened before the Unix epoch; a year such as 0001 is a placeholder
# or a typo, and the rules' windows, which reach back from each event, cannot start before year 1.
EARLIEST_EVENT = datetime(1970, 1, 1, tzinfo=UTC)
