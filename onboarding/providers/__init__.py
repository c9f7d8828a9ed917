"""PEP and adverse-media providers: `screening_provider()` is the configured one, or None."""

from django.conf import settings

from onboarding.providers.base import ProviderAnswer, ScreeningProvider, Subject  # noqa: F401
from onboarding.providers.http import HttpScreeningProvider


def screening_provider() -> ScreeningProvider | None:
    if not settings.SCREENING_PROVIDER_URL:
        return None
    return HttpScreeningProvider(
        url=settings.SCREENING_PROVIDER_URL, key=settings.SCREENING_PROVIDER_KEY, name=settings.SCREENING_PROVIDER_NAME,
        timeout=settings.SCREENING_PROVIDER_TIMEOUT_SECONDS, monitor_webhook_url=settings.SCREENING_PROVIDER_MONITOR_WEBHOOK_URL,
    )
