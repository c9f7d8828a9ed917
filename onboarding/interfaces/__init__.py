"""Where other apps plug into onboarding (monitoring, cases, filings, transfers), one module per seam:

- monitoring_data: transaction statistics and counterparties of entities (peer group, related entities)
- activity: the entity activity feed's sources
- search: the global search's per-type searchers
- reports: the compliance report's sections
- risk factors: onboarding.risk.register_risk_factor

Each is a small registry with built-in defaults; an app registers its own in AppConfig.ready().
docs/onboarding.md ("Integration points") shows each signature.
"""
