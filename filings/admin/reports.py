"""The console's report flow for a case's SAR/STR/SMR or a rule-24 alert's CTR/LCTR/TTR:
what a SAR covers (the case's alerts, ticked) → draft → preview → validate (errors shown) → file
(validates and saves what will be filed), with a confirm page. The filing goes through
filings.reports.filing, so roles, the review rule, four-eyes and audit apply as in the API."""

import json

from django.contrib import messages
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse

from common.admin_support import admin_principal, run_service
from common.errors import ServiceError
from filings.admin.forms import ReportForm
from filings.api.serializers import deadline_of
from filings.reports import coverage, drafts, filing
from filings.reports.drafts import Subject


def _subject(principal, case, alert) -> Subject:
    if alert is not None:
        return drafts.ctr_subject(principal, case.entity_id, alert_id=alert.pk)
    return drafts.sar_subject(principal, case.pk)


def report_view(model_admin, request, case, alert=None):
    principal = admin_principal(request, case.organization, case.mode)
    case_url = reverse("admin:filings_case_change", args=[case.pk])
    try:
        subject = _subject(principal, case, alert)
    except ServiceError as exc:
        messages.error(request, exc.message)
        return HttpResponseRedirect(case_url)
    if request.method == "POST" and request.POST.get("do") == "select" and alert is None:
        return _select(request, principal, subject)
    stored = subject.stored()
    context = {**model_admin.admin_site.each_context(request), "opts": model_admin.model._meta, "case": case, "alert": alert,
               "subject": subject, "renderer": subject.renderer, "stored": stored, "case_url": case_url,
               "deadline": deadline_of(case) if alert is None else None, "four_eyes": filing.four_eyes_applies(subject),
               "coverage": subject.coverage() if alert is None else None,
               "title": f"{subject.renderer.kind} for {case.entity.legal_name} ({case.reference})"}
    if request.method != "POST":
        data, source, _ = drafts.current_form(subject, principal)
        form = ReportForm(initial={"form_data": json.dumps(data, indent=2, ensure_ascii=False)})
        return TemplateResponse(request, "admin/filings/case/report.html", {**context, "form": form, "source": source})
    form = ReportForm(request.POST)
    if not form.is_valid():
        return TemplateResponse(request, "admin/filings/case/report.html", {**context, "form": form, "source": "edited"})
    return _act(request, principal, subject, form, context)


def _select(request, principal, subject: Subject):
    """The coverage form: the alerts ticked are covered. Only what differs from the default is kept
    as the investigator's choice (drafts.sar_selection_set; the draft is prefilled again)."""
    ticked = set(request.POST.getlist("include"))
    include, exclude = [], []
    for alert in subject.case.alerts.all():
        wanted, default = str(alert.pk) in ticked, coverage.default_of(alert)[0]
        if wanted != default:
            (include if wanted else exclude).append(alert.pk)
    run_service(request, lambda: drafts.sar_selection_set(principal=principal, case_id=subject.case.pk, include=include,
                                                          exclude=exclude, reset=True),
                success="What the report covers was changed; the draft was prefilled again from it.")
    return HttpResponseRedirect(request.path)


def _act(request, principal, subject: Subject, form: ReportForm, context: dict):
    data, action = form.cleaned_data["form_data"], request.POST.get("do")
    if action == "confirm":
        return _file(request, principal, subject, data, form, context)
    review = subject.renderer.review(data)
    if action in ("preview", "validate", "file") and review.rendering is not None:  # File… validates what it will file
        run_service(request, lambda: drafts.draft_save(principal=principal, subject=subject, form_data=data,
                                                       review=review if action != "preview" else None))
    context = {**context, "form": form, "source": "edited", "review": review, "action": action}
    if action == "preview" and review.rendering is not None:
        context["document"] = review.rendering.document.decode("utf-8", errors="replace")
    if action == "file":
        context["form_json"] = json.dumps(data, ensure_ascii=False)
        context["summary"] = _summary(review)
        return TemplateResponse(request, "admin/filings/case/confirm_file.html", context)
    return TemplateResponse(request, "admin/filings/case/report.html", context)


def _file(request, principal, subject: Subject, data: dict, form: ReportForm, context: dict):
    filed = {}

    def act():
        if subject.case is not None and subject.alert is None:
            filed["record"] = filing.sar_file(principal=principal, case_id=subject.case.pk, form_data=data)
        else:
            filed["record"] = filing.ctr_file(principal=principal, entity_id=subject.entity.pk, form_data=data,
                                              alert_id=subject.alert.pk)

    if run_service(request, act):
        record = filed["record"]
        messages.success(request, f"{record.kind} filed as {record.tracking_id}.")
        return HttpResponseRedirect(reverse("admin:filings_filingrecord_change", args=[record.pk]))
    return TemplateResponse(request, "admin/filings/case/report.html", {**context, "form": form, "source": "edited"})


def _summary(review) -> dict | None:
    form = review.form
    if form is None:
        return None
    activity = getattr(form, "activity", None)
    return {"filer": form.filer.legal_name, "subjects": [subject.display_name for subject in form.subjects],
            "transactions": len(form.transactions), "amount": activity.amount_involved if activity else None,
            "currency": activity.currency if activity else None, "start": activity.start_date if activity else None,
            "end": activity.end_date if activity else None, "reference": form.report_reference,
            "amendment": form.amendment.type.value}
