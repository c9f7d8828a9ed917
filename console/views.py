"""The dashboard's context for the console's index (console.site.ConsoleSite.index): which
organization and mode it shows (?organization=, ?mode=), the member's role there, the panels
(console.dashboard) and the charts (console.charts)."""

from django.conf import settings
from django.contrib.staticfiles import finders
from django.core.cache import cache

from common.admin_support import admin_principal, visible_organizations
from common.choices import Mode
from console import charts, dashboard
from monitoring.models import Alert

CHART_LIBRARY = "console/lib/chart.js/chart.umd.min.js"


def dashboard_context(request) -> dict:
    organizations = list(visible_organizations(request))
    if not organizations:
        return {"dashboard": None}
    chosen = request.GET.get("organization", "")
    organization = next((org for org in organizations if str(org.pk) == chosen), organizations[0])
    mode = request.GET.get("mode") if request.GET.get("mode") in Mode.values else default_mode(organization)
    scope = dashboard.Scope(organization=organization, mode=mode, user=request.user, role=admin_principal(request, organization).role)
    built, charts_as_of = cached_charts(scope)
    return {
        "dashboard": {
            "scope": scope, "organizations": organizations, "modes": Mode.values,
            "my_work": dashboard.my_work(scope), "alert_queue": dashboard.alert_queue(scope), "case_queue": dashboard.case_queue(scope),
            "overdue": dashboard.overdue(scope), "sar_deadlines": dashboard.sar_deadlines(scope),
            "fincen_314a": dashboard.fincen_314a_due(scope), "entity_reviews": dashboard.entity_reviews(scope),
            "sanctions": dashboard.sanctions_freshness(), "chains": dashboard.chain_lag(scope.now),
        },
        "charts": built, "charts_as_of": charts_as_of,
        "charts_json": [chart.as_json() for chart in built],
        "chart_library": CHART_LIBRARY if chart_library_installed() else None,
    }


def cached_charts(scope) -> tuple[list, object]:
    """The charts and when they were read: read again once CONSOLE_CHARTS_CACHE_SECONDS have passed
    (a trend over 90 days does not change by the minute; 100,000 alerts take a while to count). The
    key names whether SARs may be seen, so a chart below SAR_ROLE is never one read above it."""
    key = f"console:charts:{scope.organization.pk}:{scope.mode}:{'sar' if scope.sar_cleared else 'no-sar'}"
    cached = cache.get(key) if settings.CONSOLE_CHARTS_CACHE_SECONDS else None
    if cached is None:
        cached = (charts.charts(scope), scope.now)
        if settings.CONSOLE_CHARTS_CACHE_SECONDS:
            cache.set(key, cached, settings.CONSOLE_CHARTS_CACHE_SECONDS)
    return cached


def default_mode(organization) -> str:
    """Live once the organization has live alerts, else test when it has test ones (trying the service)."""
    if Alert.objects.filter(organization=organization, mode=Mode.LIVE).exists():
        return Mode.LIVE
    return Mode.TEST if Alert.objects.filter(organization=organization, mode=Mode.TEST).exists() else Mode.LIVE


def chart_library_installed() -> bool:
    """Chart.js is served from console/node_modules (scripts/npm-deps console) or, after collectstatic, STATIC_ROOT."""
    return bool(finders.find(CHART_LIBRARY)) or (settings.STATIC_ROOT / CHART_LIBRARY).is_file()
