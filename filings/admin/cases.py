"""The case queue (mine, unassigned, overdue, by status) and the case page: alerts, transactions,
timeline and comments, with assign, status, comment and split through the services."""

import re
from uuid import UUID

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Exists, OuterRef, Value
from django.http import Http404, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html

from common.admin_support import OrganizationFilter, admin_principal, of_members, run_service, visible_organizations
from filings.admin import reports
from filings.admin.forms import AssignForm, CommentForm, OpenCaseForm, SplitForm, StatusForm
from filings.cases import regroup, selectors, services
from filings.cases.regroup import REGROUP_ROLE
from filings.choices import CaseStatus, FilingStatus
from filings.models import Case
from filings.renderers import large_transaction_report_kind
from monitoring.templatetags.console_pages import collapsed, transfers_page
from organizations.choices import Role
from organizations.models import Membership

PRIORITY_COLOURS = {"critical": "#b91c1c", "high": "#c2410c", "medium": "#a16207", "low": "#4b5563"}


class QueueFilter(admin.SimpleListFilter):
    """The work queue by default: cases not closed."""

    title = "queue"
    parameter_name = "queue"

    def lookups(self, request, model_admin):
        return [("open", "Open (default)"), ("mine", "Mine"), ("unassigned", "Unassigned"), ("overdue", "Overdue"),
                ("closed", "Closed"), ("all", "All")]

    def choices(self, changelist):
        for lookup, title in self.lookup_choices:
            yield {"selected": (self.value() or "open") == lookup, "display": title,
                   "query_string": changelist.get_query_string({self.parameter_name: lookup})}

    def queryset(self, request, queryset):
        value = self.value() or "open"
        not_closed = queryset.exclude(status=CaseStatus.CLOSED)
        return {"open": not_closed, "mine": not_closed.filter(assigned_to=request.user),
                "unassigned": not_closed.filter(assigned_to__isnull=True),
                "overdue": not_closed.filter(sla_due_at__lt=timezone.now()),
                "closed": queryset.filter(status=CaseStatus.CLOSED)}.get(value, queryset)


class FilingStatusFilter(admin.SimpleListFilter):
    """By filing status, among the cases whose reports the console user may see (filings_shown)."""

    title = "filing status"
    parameter_name = "filing_status"

    def lookups(self, request, model_admin):
        return FilingStatus.choices

    def queryset(self, request, queryset):
        return queryset.filter(filing_status=self.value(), filings_shown=True) if self.value() else queryset


@admin.register(Case)
class CaseAdmin(admin.ModelAdmin):
    list_display = ("reference_link", "entity", "status", "priority_badge", "assigned_to", "alert_total", "sla", "report_due",
                    "filing_status_shown", "mode")
    list_filter = (QueueFilter, "status", "priority", FilingStatusFilter, "mode", OrganizationFilter)
    search_fields = ("entity__legal_name", "entity__external_id", "=number", "=id")
    list_select_related = ("entity", "assigned_to", "organization")
    actions = ["merge"]

    def has_view_permission(self, request, obj=None):
        return self.admin_site.has_permission(request)

    def has_change_permission(self, request, obj=None):
        return self.admin_site.has_permission(request)

    def has_add_permission(self, request):
        return self.admin_site.has_permission(request)

    def has_delete_permission(self, request, obj=None):
        return False

    def get_queryset(self, request):
        cases = super().get_queryset(request).annotate(alert_count=Count("alert_links", distinct=True),
                                                       filings_shown=self._filings_shown(request))
        return of_members(cases, request)

    @staticmethod
    def _filings_shown(request):
        """Whether the console user may see the case's reports: the API's role for them, in the case's organization."""
        if request.user.is_superuser:
            return Value(True)
        roles = [role for role in Role.values if Role.at_least(role, selectors.FILINGS_ROLE)]
        return Exists(Membership.objects.filter(organization=OuterRef("organization"), user=request.user, role__in=roles))

    def get_search_results(self, request, queryset, search_term):
        """'CASE-000042' (a case's reference, as shown everywhere) finds case 42."""
        reference = re.fullmatch(r"\s*CASE-0*(\d+)\s*", search_term, re.IGNORECASE)
        if reference:
            return queryset.filter(number=int(reference.group(1))), False
        return super().get_search_results(request, queryset, search_term)

    def get_ordering(self, request):
        return ["sla_due_at", "number"]  # the soonest due first (the changelist ignored the queryset's order)

    def get_urls(self):
        view = self.admin_site.admin_view
        return [path("<uuid:case_id>/report/", view(self.sar_view), name="filings_case_report"),
                path("<uuid:case_id>/ctr/<uuid:alert_id>/", view(self.ctr_view), name="filings_case_ctr"), *super().get_urls()]

    # --- The queue ---------------------------------------------------------------------------

    @admin.display(description="case", ordering="number")
    def reference_link(self, case):
        return case.reference  # the first column: the list links it to the case (a link of its own would nest, an empty link)

    @admin.display(description="priority", ordering="priority")
    def priority_badge(self, case):
        return format_html('<strong style="color:{}">{}</strong>', PRIORITY_COLOURS.get(case.priority, "#000"), case.priority)

    @admin.display(description="filing status")  # no ordering: sorting would tell what the column hides
    def filing_status_shown(self, case):
        return case.filing_status if case.filings_shown else "—"

    @admin.display(description="alerts")
    def alert_total(self, case):
        return case.alert_count

    @admin.display(description="SLA due", ordering="sla_due_at")
    def sla(self, case):
        overdue = not case.is_closed and case.sla_due_at < timezone.now()
        return format_html('<span style="{}">{}{}</span>', "color:#b91c1c;font-weight:bold" if overdue else "",
                           case.sla_due_at.strftime("%Y-%m-%d %H:%M"), " (overdue)" if overdue else "")

    @admin.display(description="report due", ordering="report_due_at")
    def report_due(self, case):
        if case.report_due_at is None:
            return "—"
        overdue = not case.is_closed and case.report_due_at < timezone.now()
        return format_html('<span style="{}">{}</span>', "color:#b91c1c;font-weight:bold" if overdue else "",
                           case.report_due_at.strftime("%Y-%m-%d"))

    @admin.action(description="Merge the selected cases into one…")
    def merge(self, request, queryset):
        cases = list(queryset.select_related("entity").order_by("number"))
        target_id = request.POST.get("target")
        if "apply" in request.POST and target_id:
            target = next((case for case in cases if str(case.pk) == target_id), None)
            if target is not None and run_service(request, lambda: regroup.cases_merge(
                    principal=admin_principal(request, target.organization, target.mode), case_id=target.pk,
                    source_case_ids=[case.pk for case in cases if case.pk != target.pk], reason=request.POST.get("reason", "")),
                    success=f"Merged into {target.reference}."):
                return HttpResponseRedirect(reverse("admin:filings_case_change", args=[target.pk]))
            return None
        return TemplateResponse(request, "admin/filings/case/merge.html", {
            **self.admin_site.each_context(request), "title": "Merge cases", "cases": cases, "opts": self.model._meta,
            "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME})

    # --- Open a case by hand -----------------------------------------------------------------

    def add_view(self, request, form_url="", extra_context=None):
        organizations = list(visible_organizations(request))
        form = OpenCaseForm(request.POST or None, organizations=organizations,
                            initial={"entity_id": request.GET.get("entity"), "mode": request.GET.get("mode", "live")})
        if request.method == "POST" and form.is_valid():
            organization = next(org for org in organizations if str(org.pk) == form.cleaned_data["organization"])
            principal = admin_principal(request, organization, form.cleaned_data["mode"])
            opened = {}
            if run_service(request, lambda: opened.setdefault("case", regroup.case_open(
                    principal=principal, entity_id=form.cleaned_data["entity_id"], alert_ids=form.alert_list(),
                    title=form.cleaned_data["title"], reason=form.cleaned_data["reason"]))):
                messages.success(request, f"{opened['case'].reference} opened.")
                return HttpResponseRedirect(reverse("admin:filings_case_change", args=[opened["case"].pk]))
        return TemplateResponse(request, "admin/filings/case/open.html", {
            **self.admin_site.each_context(request), "title": "Open a case", "form": form, "opts": self.model._meta})

    # --- The case page -----------------------------------------------------------------------

    def visible_case(self, request, case_id) -> Case:
        try:
            case_id = UUID(str(case_id))
        except ValueError:  # /admin/filings/case/<anything>/change/: not a case's id
            raise Http404("No such case.") from None
        case = self.get_queryset(request).select_related("entity", "assigned_to", "organization").filter(pk=case_id).first()
        if case is None:
            raise Http404("No such case.")
        return case

    def change_view(self, request, object_id, form_url="", extra_context=None):
        if not self.has_view_permission(request):
            raise PermissionDenied
        case = self.visible_case(request, object_id)
        if request.method == "POST":
            self._act(request, case)
            return HttpResponseRedirect(request.path)
        return TemplateResponse(request, "admin/filings/case/case.html", self._page(request, case))

    def _act(self, request, case: Case) -> None:
        principal, action = admin_principal(request, case.organization, case.mode), request.POST.get("do")
        forms = {"assign": AssignForm, "status": StatusForm, "comment": CommentForm, "split": SplitForm}
        if action not in forms:
            messages.error(request, "Unknown action.")
            return
        form = forms[action](request.POST, case=case) if action != "comment" else CommentForm(request.POST)
        if not form.is_valid():
            messages.error(request, "; ".join(f"{field}: {', '.join(errors)}" for field, errors in form.errors.items()))
            return
        data = form.cleaned_data
        calls = {
            "assign": (lambda: services.case_assign(principal=principal, case_id=case.pk, assignee_id=data.get("assignee")), "Assigned."),
            "status": (lambda: services.case_status_set(principal=principal, case_id=case.pk, status=data.get("status"),
                                                        reason=data.get("reason", "")), f"Moved to {data.get('status')}."),
            "comment": (lambda: services.case_comment_add(principal=principal, case_id=case.pk, body=data.get("body")), "Comment added."),
            "split": (lambda: regroup.case_split(principal=principal, case_id=case.pk, alert_ids=data.get("alerts", []),
                                                 reason=data.get("reason", "")), "Alerts split into a new case."),
        }
        call, success = calls[action]
        run_service(request, call, success=success)

    def _page(self, request, case: Case) -> dict:
        alerts = list(selectors.case_alerts(case))
        rule24 = [alert for alert in alerts if alert.rule_code == "large_fiat_transaction"]
        role = admin_principal(request, case.organization, case.mode).role
        visible = selectors.filings_visible(role)
        detail = selectors.case_detail(organization=case.organization, mode=case.mode, case_id=case.pk, with_filings=visible)
        return {
            **self.admin_site.each_context(request), "title": f"{case.reference} — {case.entity.legal_name}", "case": case,
            "opts": self.model._meta, "alerts": alerts, "timeline": collapsed(detail.events.all(), same=_same_step),
            "filings": detail.filings.all(), "transactions_page": transfers_page(request, selectors.case_transactions(case)),
            "fiat_events": selectors.case_fiat_events(case)[:200], "fiat_event_count": selectors.case_fiat_events(case).count(),
            "ctr_alerts": rule24 if visible and large_transaction_report_kind(case.entity.jurisdiction) else [],
            "filings_visible": visible, "allowed": _allowed(case, role, alerts), "graph_highlight": f"case_id={case.pk}",
            "assign_form": AssignForm(case=case), "status_form": StatusForm(case=case), "comment_form": CommentForm(),
            "split_form": SplitForm(case=case), "now": timezone.now(),
        }

    # --- Report flows ------------------------------------------------------------------------

    def sar_view(self, request, case_id):
        return reports.report_view(self, request, self.visible_case(request, case_id))

    def ctr_view(self, request, case_id, alert_id):
        case = self.visible_case(request, case_id)
        alert = case.alerts.filter(pk=alert_id, rule_code="large_fiat_transaction").first()
        if alert is None:
            raise Http404("No large-fiat-transaction alert of this case has this id.")
        return reports.report_view(self, request, case, alert=alert)


def _allowed(case: Case, role: str | None, alerts: list) -> dict[str, bool]:
    """The actions the case's state and the console user's role allow: only those are offered (the
    services refuse the others anyway)."""
    def at_least(minimum):
        return role is not None and Role.at_least(role, minimum)

    reopening = case.is_closed
    return {"assign": not case.is_closed and at_least(services.ASSIGN_ROLE),
            "status": bool(CaseStatus.targets(case.status)) and at_least(services.REOPEN_ROLE if reopening else services.STATUS_ROLE),
            "comment": at_least(services.COMMENT_ROLE),
            "split": not case.is_closed and len(alerts) > 1 and at_least(REGROUP_ROLE)}


def _same_step(event) -> tuple:
    """Timeline steps shown as one row when repeated: same kind, actor, text and status change."""
    return event.kind, event.actor_label, event.body, event.data.get("previous_status"), event.data.get("new_status")
