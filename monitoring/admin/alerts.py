"""The alert queue: open work first, by severity, overdue highlighted; the alert page with its
evidence, hits and transactions; dispositions through the same service as the API."""

from django import forms
from django.contrib import admin, messages
from django.db.models import Case, IntegerField, Value, When
from django.http import Http404, HttpResponseRedirect
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from common.admin_support import OrganizationFilter, ReadOnlyAdmin, admin_principal, of_members, run_service
from monitoring.alerts import services
from monitoring.alerts.evidence import evidence_table
from monitoring.choices import AlertStatus, Disposition, Severity
from monitoring.models import Alert, AlertHit
from monitoring.templatetags.console_pages import transfers_page

SEVERITY_ORDER = Case(*[When(severity=s, then=Value(i)) for i, s in enumerate(
    [Severity.CRITICAL, Severity.HIGH, Severity.MEDIUM, Severity.LOW])], output_field=IntegerField())
STATUS_ORDER = Case(When(status=AlertStatus.CLOSED, then=Value(1)), default=Value(0), output_field=IntegerField())
SEVERITY_COLOURS = {"critical": "#b91c1c", "high": "#c2410c", "medium": "#a16207", "low": "#4b5563"}


class QueueFilter(admin.SimpleListFilter):
    """The work queue by default: alerts not yet disposed."""

    title = "queue"
    parameter_name = "queue"

    def lookups(self, request, model_admin):
        return [("open", "Open (default)"), ("mine", "In my cases"), ("overdue", "Overdue"), ("closed", "Closed"), ("all", "All")]

    def choices(self, changelist):
        for lookup, title in self.lookup_choices:
            yield {"selected": (self.value() or "open") == lookup, "display": title,
                   "query_string": changelist.get_query_string({self.parameter_name: lookup})}

    def queryset(self, request, queryset):
        value = self.value() or "open"
        if value == "open":
            return queryset.exclude(status=AlertStatus.CLOSED)
        if value == "mine":  # an alert is assigned through its case
            return queryset.exclude(status=AlertStatus.CLOSED).filter(case_link__case__assigned_to=request.user)
        if value == "overdue":
            return queryset.exclude(status=AlertStatus.CLOSED).filter(sla_due_at__lt=timezone.now())
        if value == "closed":
            return queryset.filter(status=AlertStatus.CLOSED)
        return queryset


class HitInline(admin.TabularInline):
    model = AlertHit
    fields = ("triggered_at", "event_kind", "event_id", "measured")
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ("triggered_at",)

    def has_add_permission(self, request, obj=None):
        return False

    @admin.display(description="measured values")
    def measured(self, hit):
        return "; ".join(f"{row.measure} {row.measured}" for row in evidence_table(hit.evidence).rows) or "—"


class DispositionForm(forms.Form):
    disposition = forms.ChoiceField(choices=[("", "— choose —"), *Disposition.choices])  # no decision taken for the officer
    notes = forms.CharField(widget=forms.Textarea(attrs={"rows": 4, "cols": 60}), help_text="Why: what you reviewed and what it showed.",
                            error_messages={"required": services.NOTES_REQUIRED})


@admin.register(Alert)
class AlertAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "severity_badge", "rule_name", "entity", "status", "hit_count", "sla", "disposition", "mode")
    list_filter = (QueueFilter, "severity", "rule_code", "mode", OrganizationFilter)
    # An id, a name, a rule, or a transaction's hash or address (exact, any case).
    search_fields = ("entity__legal_name", "entity__external_id", "rule_code", "=id", "=transactions__tx_hash",
                     "=transactions__from_address", "=transactions__to_address")
    list_select_related = ("entity", "organization")
    readonly_fields = ("organization", "mode", "entity_link", "case_page", "rule_number", "rule_code", "rule_name", "severity",
                       "rule_score", "status", "description", "evidence_shown", "hit_count", "first_triggered_at", "last_triggered_at",
                       "sla", "disposition", "disposition_notes", "disposed_by_name", "disposed_at", "fiat_events_list")
    exclude = ("entity", "evidence", "transactions", "fiat_events", "disposed_by", "sla_breach_notified_at", "sla_due_at", "score",
               "disposed_by_label")  # shown through sla, rule_score and disposed_by_name
    inlines = [HitInline]
    actions = ["dispose"]
    change_form_template = "admin/monitoring/alert/change_form.html"

    def has_view_permission(self, request, obj=None):
        return self.admin_site.has_permission(request)  # every console user: the queue is scoped to their organizations

    def get_queryset(self, request):
        return of_members(super().get_queryset(request).annotate(status_rank=STATUS_ORDER, severity_rank=SEVERITY_ORDER), request)

    def get_ordering(self, request):
        # The changelist orders by this (not by the queryset's order, which the model's Meta.ordering replaced).
        return [STATUS_ORDER.asc(), SEVERITY_ORDER.asc(), "sla_due_at"]

    @admin.display(description="severity", ordering="severity_rank")
    def severity_badge(self, alert):
        return format_html('<strong style="color:{}">{}</strong>', SEVERITY_COLOURS.get(alert.severity, "#000"), alert.severity)

    @admin.display(description="SLA due", ordering="sla_due_at")
    def sla(self, alert):
        overdue = alert.status != AlertStatus.CLOSED and alert.sla_due_at < timezone.now()
        style = "color:#b91c1c;font-weight:bold" if overdue else ""
        return format_html('<span style="{}">{}{}</span>', style, alert.sla_due_at.strftime("%Y-%m-%d %H:%M"),
                           " (overdue)" if overdue else "")

    @admin.display(description="rule score")
    def rule_score(self, alert):
        return format_html("{} <span class='help'>(the rule's score: what it adds to the entity's risk score)</span>", alert.score)

    @admin.display(description="disposed by")
    def disposed_by_name(self, alert):
        return alert.disposed_by_label or self.get_empty_value_display()

    @admin.display(description="entity")
    def entity_link(self, alert):
        return format_html('<a href="{}">{}</a>', reverse("admin:onboarding_entity_change", args=[alert.entity_id]), alert.entity)

    @admin.display(description="case")
    def case_page(self, alert):
        link = getattr(alert, "case_link", None)  # none until the alert joins a case
        if link is None:
            return "—"
        return format_html('<a href="{}">{}</a>', reverse("admin:filings_case_change", args=[link.case_id]), link.case)

    @admin.display(description="fiat events")
    def fiat_events_list(self, alert):
        rows = alert.fiat_events.order_by("timestamp")[:200]
        return format_html_join("", "<div>{} · {} · {} {} · {} · ref {}</div>", (
            (event.timestamp.strftime("%Y-%m-%d %H:%M:%S"), event.event_type, event.amount, event.currency,
             event.counterparty_name or "—", event.reference or "—") for event in rows)) or "—"

    @admin.display(description="evidence (the hit that opened it)")
    def evidence_shown(self, alert):
        unit = "events" if alert.evidence.get("measured") and not alert.transactions.exists() else "transfers"
        return render_to_string("admin/monitoring/includes/evidence.html", {"table": evidence_table(alert.evidence, unit=unit)})

    def change_view(self, request, object_id, form_url="", extra_context=None):
        """The page adds its transactions, 25 a page, and the entity's counterparty graph with them highlighted."""
        alert = self.get_object(request, object_id)
        if alert is not None:
            transactions = transfers_page(request, alert.transactions.order_by("timestamp", "id"))
            extra_context = {**(extra_context or {}), "transactions_page": transactions, "graph_entity": alert.entity,
                             "graph_highlight": f"alert_id={alert.pk}"}
        return super().change_view(request, object_id, form_url, extra_context)

    @admin.action(description="Set a disposition on the selected alerts…")
    def dispose(self, request, queryset):
        form = DispositionForm(request.POST if "apply" in request.POST else None)
        if "apply" in request.POST and form.is_valid():
            done = sum(run_service(request, lambda alert=alert: services.alert_dispose(
                principal=admin_principal(request, alert.organization, alert.mode), alert_id=alert.pk, **form.cleaned_data),
                subject=str(alert)) for alert in queryset)
            label = Disposition(form.cleaned_data["disposition"]).label.lower()
            if done:
                self.message_user(request, f"{done} alert{'s' if done > 1 else ''} closed as {label}.")
            return None
        return TemplateResponse(request, "admin/monitoring/alert/dispose.html", {
            **self.admin_site.each_context(request), "title": "Set a disposition", "alerts": queryset, "form": form,
            "opts": self.model._meta, "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
        })

    def get_urls(self):
        return [path("<uuid:alert_id>/dispose/", self.admin_site.admin_view(self.dispose_one), name="monitoring_alert_dispose"),
                *super().get_urls()]

    def dispose_one(self, request, alert_id):
        """The disposition form for one alert, from its page (the list's action does the same for several)."""
        alert = self.get_object(request, str(alert_id))
        if alert is None:
            raise Http404("No such alert.")
        if alert.status == AlertStatus.CLOSED:  # a disposition is set once: no form to fill in for nothing
            messages.info(request, f"This alert is closed already: {alert.get_disposition_display().lower()}, by "
                                   f"{alert.disposed_by_label or 'the system'} at {alert.disposed_at:%Y-%m-%d %H:%M} UTC.")
            return HttpResponseRedirect(reverse("admin:monitoring_alert_change", args=[alert.pk]))
        page = self.dispose(request, self.get_queryset(request).filter(pk=alert.pk))
        return page or HttpResponseRedirect(reverse("admin:monitoring_alert_change", args=[alert.pk]))
