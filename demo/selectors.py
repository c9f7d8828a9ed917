"""Reads of the demo portfolio's mark."""

from demo.models import DemoPortfolio
from organizations.choices import Mode


def demo_portfolio_of(*, organization, mode: str = Mode.TEST) -> DemoPortfolio | None:
    return DemoPortfolio.objects.filter(organization=organization, mode=mode).first()
