"""The console's rule settings (every rule of an organization, edited through `rule_setting_update`)
and the lists the rules read (asset prices, address tags, block list, code lists), each change made
by the same services the API and the commands use, so the same validation and audit apply."""

from datetime import UTC, datetime, time, timedelta
from functools import partial

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse

from common.admin_support import (
    OrganizationFilter,
    ServiceSaveAdmin,
    TenantAdmin,
    admin_principal,
    visible_organizations,
)
from common.errors import NotFound, ServiceError, ValidationFailed
from monitoring.backtest import rule_backtest
from monitoring.choices import Severity
from monitoring.configuration import selectors, services
from monitoring.models import AddressTag, AssetPrice, BlockedAddress, CodeListEntry, RuleSetting, Transaction
from onboarding.selectors import entities_of
from organizations.choices import Mode


def _as_text(value) -> str:
    return "" if value is None else ", ".join(map(str, value)) if isinstance(value, list) else str(value)


# --- Rule settings -----------------------------------------------------------------------------

def _shown_parameters(view: dict) -> list[tuple[str, str, bool]]:
    """(name, value in force, overridden?) for the rules table."""
    return [(name, _as_text(value), name in view["overrides"]) for name, value in view["parameters"].items()]


class RuleSettingForm(forms.Form):
    """enabled, severity and one text box per parameter: blank means the default; lists are comma-separated."""

    enabled = forms.BooleanField(required=False)
    shadow = forms.BooleanField(required=False, label="Shadow mode",
                                help_text="Evaluated and recorded on the events, but raises no alert: watch a change on live traffic.")
    severity = forms.ChoiceField(required=False)

    def __init__(self, *args, view: dict, **kwargs):
        initial = {"enabled": view["enabled"], "shadow": view["shadow"],
                   "severity": view["severity"] if view["severity"] != view["default_severity"] else "",
                   **{f"param_{name}": _as_text(value) for name, value in view["overrides"].items()}}
        super().__init__(*args, initial=initial, **kwargs)
        self.view = view
        self.fields["severity"].choices = [("", f"default ({view['default_severity']})"), *Severity.choices]
        for param in view["parameter_schema"]:
            hints = [param["description"], f"default: {_as_text(param['default']) or '(empty)'}"]
            hints += [f"{bound} {param[bound]}" for bound in ("minimum", "maximum") if bound in param]
            hints += [f"one or more of: {', '.join(param['choices'])}"] if "choices" in param else []
            if param["type"] in ("strings", "dates"):
                hints.append("comma-separated")
            self.fields[f"param_{param['name']}"] = forms.CharField(required=False, label=param["name"], help_text="; ".join(hints))

    def overrides(self) -> dict:
        """Every parameter (None = default), and None for stored names the rule no longer has."""
        kinds = {param["name"]: param["type"] for param in self.view["parameter_schema"]}
        values = {name: None for name in self.view["overrides"] if name not in kinds}
        for name, kind in kinds.items():
            text = self.cleaned_data.get(f"param_{name}", "").strip()
            values[name] = None if not text else [item.strip() for item in text.split(",") if item.strip()] \
                if kind in ("strings", "dates") else text
        return values

    def add_service_errors(self, error: ValidationFailed) -> None:
        for detail in error.details:
            name = (detail.get("field") or "").removeprefix("parameters.")
            target = "severity" if name == "severity" else f"param_{name}"
            self.add_error(target if target in self.fields else None, detail["message"])


BACKTEST_ROWS_SHOWN = 500


class BacktestRangeForm(forms.Form):
    """Which stored history a backtest replays: a mode and whole days (UTC), both ends included."""

    mode = forms.ChoiceField(choices=Mode.choices, initial=Mode.LIVE)
    from_date = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}))
    to_date = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}))
    grid = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3, "cols": 60}), help_text=(
        "A sweep (optional): one line per parameter, name = value, value, … (at most 50 combinations), over the parameters above."))
    maximise = forms.ChoiceField(choices=[(metric, metric) for metric in ("f1", "recall", "precision")], initial="f1", required=False)
    min_precision = forms.FloatField(required=False, min_value=0, max_value=1,
                                     help_text="With a sweep: the best keeps precision at least this.")
    min_recall = forms.FloatField(required=False, min_value=0, max_value=1)

    def clean_grid(self) -> dict | None:
        """{name: [values]} from the lines; None without one."""
        grid = {}
        for number, line in enumerate(self.cleaned_data.get("grid", "").splitlines(), start=1):
            if not line.strip():
                continue
            name, sep, values = line.partition("=")
            if not sep or not name.strip() or not values.strip():
                raise forms.ValidationError(f"Line {number}: write name = value, value, …")
            grid[name.strip()] = [value.strip() for value in values.split(",") if value.strip()]
        return grid or None

    def objective(self) -> dict:
        bounds = {name: self.cleaned_data[name] for name in ("min_precision", "min_recall") if self.cleaned_data.get(name) is not None}
        return {"maximise": self.cleaned_data.get("maximise") or "f1", **bounds}

    def __init__(self, *args, default_mode: str = Mode.LIVE, **kwargs):
        today = datetime.now(UTC).date()
        super().__init__(*args, prefix="backtest", initial={"mode": default_mode, "from_date": today - timedelta(days=30),
                                                            "to_date": today}, **kwargs)

    def bounds(self) -> tuple[datetime, datetime]:
        start = datetime.combine(self.cleaned_data["from_date"], time.min, tzinfo=UTC)
        return start, datetime.combine(self.cleaned_data["to_date"], time.max, tzinfo=UTC)

    def add_service_errors(self, error: ValidationFailed) -> None:
        for detail in error.details:
            self.add_error(detail.get("field") if detail.get("field") in self.fields else None, detail["message"])


def mode_with_history(organization) -> str:
    """The mode a backtest starts on: live once live transfers are stored, else test when only test
    ones are (an organization trying the service, as the demo does), else live."""
    if Transaction.objects.filter(organization=organization, mode=Mode.LIVE).exists():
        return Mode.LIVE
    return Mode.TEST if Transaction.objects.filter(organization=organization, mode=Mode.TEST).exists() else Mode.LIVE


@admin.register(RuleSetting)
class RuleSettingAdmin(admin.ModelAdmin):
    """The changelist lists all 50 rules of one organization, with or without a stored setting."""

    def has_add_permission(self, request):
        return False  # a setting exists once a rule is edited

    def has_delete_permission(self, request, obj=None):
        return False  # "Reset to defaults" on the rule's page, through the service

    def get_urls(self):
        edit = path("<uuid:organization_id>/<str:rule_id>/edit/", self.admin_site.admin_view(self.rule_view),
                    name="monitoring_rulesetting_rule")
        return [edit, *super().get_urls()]

    def _context(self, request, **extra):
        return {**self.admin_site.each_context(request), "opts": self.model._meta, **extra}

    def changelist_view(self, request, extra_context=None):
        if not self.has_view_or_change_permission(request):
            raise PermissionDenied
        organizations = list(visible_organizations(request))
        chosen = request.GET.get("organization", "")
        organization = next((org for org in organizations if str(org.pk) == chosen), organizations[0] if organizations else None)
        context = self._context(request, title="Rule settings", organizations=organizations, organization=organization)
        if organization is not None:
            context["rules"] = [{**view, "shown_parameters": _shown_parameters(view)} for view in selectors.rule_views(organization)]
            context["lists"] = selectors.lists_summary(organization)
        return TemplateResponse(request, "admin/monitoring/rulesetting/rules.html", context)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        setting = RuleSetting.objects.filter(pk=object_id, organization__in=visible_organizations(request)).first()
        if setting is None:
            return HttpResponseRedirect(reverse("admin:monitoring_rulesetting_changelist"))
        return HttpResponseRedirect(reverse("admin:monitoring_rulesetting_rule", args=[setting.organization_id, setting.rule_code]))

    def rule_view(self, request, organization_id, rule_id):
        if not self.has_view_or_change_permission(request):
            raise PermissionDenied
        organization = visible_organizations(request).filter(pk=organization_id).first()
        try:
            view = selectors.rule_view_of(organization, rule_id) if organization else None
        except NotFound:
            view = None
        if view is None:
            raise Http404("No such rule or organization.")
        form = RuleSettingForm(request.POST or None, view=view)
        backtest = BacktestRangeForm(request.POST if "_backtest" in request.POST else None, default_mode=mode_with_history(organization))
        report = None
        if "_backtest" in request.POST:
            report = self._backtest(request, organization, form, backtest)
        elif request.method == "POST" and form.is_valid() and self._save(request, organization, form):
            messages.success(request, f"Rule {view['number']} ({view['code']}) saved for {organization.name}.")
            return HttpResponseRedirect(f"{reverse('admin:monitoring_rulesetting_changelist')}?organization={organization.pk}")
        title = f"Rule {view['number']}: {view['code']}"
        return TemplateResponse(request, "admin/monitoring/rulesetting/rule.html", self._context(
            request, title=title, rule=view, form=form, organization=organization, backtest=backtest, report=report))

    def _backtest(self, request, organization, form: RuleSettingForm, backtest: BacktestRangeForm) -> dict | None:
        """The parameters as the form shows them (blank = default) replayed against the current
        settings, through the API's service; nothing is saved or created."""
        if not (form.is_valid() & backtest.is_valid()):
            return None
        start, end = backtest.bounds()
        mode = backtest.cleaned_data["mode"]
        try:
            report = rule_backtest(principal=admin_principal(request, organization, mode), rule_id=form.view["code"],
                                   parameters=form.overrides(), start=start, end=end, grid=backtest.cleaned_data["grid"],
                                   objective=backtest.objective() if backtest.cleaned_data["grid"] else None)
        except ValidationFailed as error:
            for detail in error.details:  # parameter problems beside their boxes, range problems beside the dates
                field = detail.get("field") or ""
                target = form if field.startswith("parameters") else backtest
                if field.startswith(("grid", "objective")):
                    detail = {**detail, "field": "grid"}
                target.add_service_errors(ValidationFailed(details=[detail]))
            return None
        except ServiceError as error:
            messages.error(request, error.message)
            return None
        names = {str(pk): name for pk, name in entities_of(organization=organization, mode=mode).filter(
            pk__in=[row["entity_id"] for row in report["entities"]]).values_list("pk", "legal_name")}
        shown = sorted(report["entities"], key=lambda row: (row["change"] == "unchanged", str(row["entity_id"])))
        report["rows"] = [{**row, "legal_name": names.get(str(row["entity_id"]), "")} for row in shown[:BACKTEST_ROWS_SHOWN]]
        report["rows_hidden"] = max(0, len(shown) - BACKTEST_ROWS_SHOWN)
        return report

    def _save(self, request, organization, form: RuleSettingForm) -> bool:
        principal = admin_principal(request, organization)
        if "_reset" in request.POST:
            changes = {"enabled": True, "shadow": False, "severity": "", "parameters": dict.fromkeys(form.overrides())}
        else:
            changes = {"enabled": form.cleaned_data["enabled"], "shadow": form.cleaned_data["shadow"],
                       "severity": form.cleaned_data["severity"], "parameters": form.overrides()}
        try:
            services.rule_setting_update(principal=principal, rule_id=form.view["code"], **changes)
        except ValidationFailed as error:
            form.add_service_errors(error)
            return False
        except ServiceError as error:
            messages.error(request, error.message)
            return False
        return True


# --- Lists -------------------------------------------------------------------------------------

class ListEntryForm(forms.ModelForm):
    """Field checks first, then the service's own cleaning (so the form shows exactly what the
    service would refuse), then Django's unique checks on the normalised values."""

    def clean(self):
        cleaned = super().clean()
        if self._errors:
            return cleaned
        kind = services.list_kind(self._meta.model)
        try:
            cleaned.update(kind.clean(**{name: cleaned.get(name) for name in (*kind.key, *kind.values)}))
        except ValidationFailed as error:
            for detail in error.details:
                self.add_error(detail["field"] if detail["field"] in self.fields else None, detail["message"])
        return cleaned


class ListEntryAdmin(TenantAdmin, ServiceSaveAdmin):
    """Adds, edits and removals call monitoring.configuration.services (role check and audit included)."""

    form = ListEntryForm
    list_select_related = ("organization",)

    def get_readonly_fields(self, request, obj=None):
        return ("organization", "created_at", "updated_at") if obj else ()

    def save_model(self, request, obj, form, change):
        kind = services.list_kind(self.model)
        principal = admin_principal(request, obj.organization)
        fields = {name: form.cleaned_data[name] for name in (*kind.key, *kind.values)}
        saved = {}

        def save():
            if change:
                saved["entry"] = services.list_entry_update(principal=principal, kind=kind.name, entry_id=obj.pk, fields=fields)
            else:
                saved["entry"] = services.list_entry_add(principal=principal, kind=kind.name, fields=fields)

        if self.save_through(request, save):
            obj.pk, obj._state.adding = saved["entry"].pk, False

    def delete_model(self, request, obj, *, subject: str = "") -> bool:
        principal = admin_principal(request, obj.organization)
        kind = services.list_kind(self.model)
        return self.delete_through(
            request, obj, partial(services.list_entry_remove, principal=principal, kind=kind.name, entry_id=obj.pk),
            subject=subject)

    def delete_queryset(self, request, queryset):
        super().delete_queryset(request, queryset.select_related("organization"))


@admin.display(description="chain", ordering="chain_id")
def chain(obj) -> str:
    return "every chain" if obj.chain_id is None else str(obj.chain_id)


@admin.register(AssetPrice)
class AssetPriceAdmin(ListEntryAdmin):
    list_display = ("asset", "usd_rate", "decimals", "organization", "updated_at")
    list_filter = (OrganizationFilter,)
    search_fields = ("asset",)
    fields = ("organization", "asset", "usd_rate", "decimals")


@admin.register(AddressTag)
class AddressTagAdmin(ListEntryAdmin):
    list_display = ("address", chain, "category", "source", "organization", "updated_at")
    list_filter = ("category", "source", OrganizationFilter)
    search_fields = ("address",)
    fields = ("organization", "chain_id", "address", "category", "source")

    def changelist_view(self, request, extra_context=None):
        counts = selectors.sanctions_address_counts()
        return super().changelist_view(request, {**(extra_context or {}), "sanctions_addresses": sum(counts.values()),
                                                 "sanctions_by_list": counts})


@admin.register(BlockedAddress)
class BlockedAddressAdmin(ListEntryAdmin):
    list_display = ("address", chain, "reason", "organization", "updated_at")
    list_filter = (OrganizationFilter,)
    search_fields = ("address", "reason")
    fields = ("organization", "chain_id", "address", "reason")


@admin.register(CodeListEntry)
class CodeListEntryAdmin(ListEntryAdmin):
    list_display = ("code", "list_name", "note", "organization", "updated_at")
    list_filter = ("list_name", OrganizationFilter)
    search_fields = ("code", "note")
    fields = ("organization", "list_name", "code", "note")
