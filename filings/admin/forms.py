"""Forms of the case console. They only collect input; the services decide."""

from uuid import UUID

from django import forms

from common.parsers import loads_object
from filings.choices import CaseStatus
from organizations.choices import Role
from organizations.models import Membership


class AssignForm(forms.Form):
    assignee = forms.ChoiceField(label="Assign to")

    def __init__(self, *args, case, **kwargs):
        super().__init__(*args, **kwargs)
        members = (Membership.objects.filter(organization_id=case.organization_id, role__in=[
            Role.L2_INVESTIGATOR, Role.L3_OFFICER, Role.ADMIN]).select_related("user").order_by("user__email"))
        self.fields["assignee"].choices = [(str(m.user_id), f"{m.user.email} ({m.role})") for m in members]


class StatusForm(forms.Form):
    status = forms.ChoiceField(label="Move to")
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 2, "cols": 60}), required=False,
                             help_text="Required when closing or reopening.")

    def __init__(self, *args, case, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["status"].choices = [(status, CaseStatus(status).label) for status in CaseStatus.targets(case.status)]


class CommentForm(forms.Form):
    body = forms.CharField(label="Comment", widget=forms.Textarea(attrs={"rows": 3, "cols": 60}), max_length=10_000)


class SplitForm(forms.Form):
    alerts = forms.MultipleChoiceField(widget=forms.CheckboxSelectMultiple, label="Alerts to split out")
    reason = forms.CharField(required=False, max_length=500)

    def __init__(self, *args, case, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["alerts"].choices = [(str(a.pk), f"{a.rule_name} ({a.severity})") for a in case.alerts.order_by("created_at")]


class OpenCaseForm(forms.Form):
    organization = forms.ChoiceField()
    mode = forms.ChoiceField(choices=[("live", "live"), ("test", "test")])
    entity_id = forms.UUIDField(label="Entity id")
    alert_ids = forms.CharField(required=False, label="Alert ids", help_text="Comma-separated; taken from their current cases.")
    title = forms.CharField(required=False, max_length=200)
    reason = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2, "cols": 60}))

    def __init__(self, *args, organizations, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["organization"].choices = [(str(org.pk), org.name) for org in organizations]

    def clean_alert_ids(self) -> list[str]:
        ids = [part.strip() for part in self.cleaned_data["alert_ids"].split(",") if part.strip()]
        malformed = [part for part in ids if not _is_uuid(part)]
        if malformed:
            raise forms.ValidationError(f"Not alert ids: {', '.join(malformed)}. Give alert ids (UUIDs) separated by commas.")
        return ids

    def alert_list(self) -> list[str]:
        return self.cleaned_data["alert_ids"]


def _is_uuid(text: str) -> bool:
    try:
        UUID(text)
    except ValueError:
        return False
    return True


class ReportForm(forms.Form):
    """The form data as JSON text (docs/filings.md)."""

    form_data = forms.CharField(widget=forms.Textarea(attrs={"rows": 30, "cols": 120, "style": "font-family:monospace"}),
                                label="Form data (JSON)")

    def clean_form_data(self):
        try:
            return loads_object(self.cleaned_data["form_data"], "The form data")
        except ValueError as error:
            raise forms.ValidationError(str(error)) from None
