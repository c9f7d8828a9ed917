"""Backtests: how one rule with candidate parameters would have behaved on stored history, compared
with its current settings, measured against the organization's labels (docs/backtests.md)."""

from monitoring.backtest.services import BACKTEST_ROLE, rule_backtest  # noqa: F401
