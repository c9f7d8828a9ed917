"""The rule engine's pure core: 53 monitoring rules over a prepared context (see docs/rules.md).

No database, no clock: storage builds the context, `evaluate` returns hits and skips with evidence.
"""

from monitoring.rules.context import (
    AddressKey,
    CounterpartyEntity,
    Entity,
    EntityContext,
    EntityHistory,
    Event,
    FiatEvent,
    HistoryView,
    NameMatch,
    NameScreener,
    OrgLists,
    OrgNetwork,
    PeerGroupStats,
    RuleInput,
    ScreeningUnavailable,
    Transaction,
    TransferGraph,
)
from monitoring.rules.engine import (
    DEFAULT_SETTINGS,
    ActiveRule,
    EngineSettings,
    InvalidSettings,
    Lookback,
    RuleResult,
    RuleSetting,
    evaluate,
    evaluate_in_order,
)
from monitoring.rules.names import SanctionsNameIndex
from monitoring.rules.registry import RULES, Family, InvalidParameters, Param, Rule, Severity, get_rule, validate_overrides

__all__ = [
    "DEFAULT_SETTINGS", "RULES", "ActiveRule", "AddressKey", "CounterpartyEntity", "EngineSettings", "Entity", "EntityContext",
    "EntityHistory", "Event", "Family", "FiatEvent", "HistoryView", "InvalidParameters", "InvalidSettings", "Lookback", "NameMatch",
    "NameScreener", "OrgLists", "OrgNetwork", "Param", "PeerGroupStats", "Rule", "RuleInput", "RuleResult", "RuleSetting",
    "SanctionsNameIndex", "ScreeningUnavailable", "Severity", "Transaction", "TransferGraph", "evaluate", "evaluate_in_order",
    "get_rule", "validate_overrides",
]  # fmt: skip
