"""ai-summary and ai-sar-narrative: built from the case's facts only; deterministic by default; an
OpenAI-compatible model on loopback when configured, its answer discarded when it invents figures."""

import re
from decimal import Decimal

import pytest

from filings.cases.attach import cases_attach_alerts
from filings.generation.text import figures
from filings.models import Case
from monitoring.models import Alert, FiatEvent, Transaction
from tests.filings.conftest import BASE, ingest_fiat, make_alert
from tests.onboarding.loopback import LoopbackServer

pytestmark = pytest.mark.django_db


@pytest.fixture
def case(officer, org, onboard, priced, settings):
    settings.OPENAI_BASE_URL = ""
    entity = onboard("US", legal_name="Blue Harbor Trading LLC", industry="payment processor",
                     ubos=[{"name": "Ana Lima", "nationality": "BR"}])
    make_alert(entity, transactions=3, severity="high")
    ingest_fiat(officer, entity, amounts=["12000", "9500.50"], event_type="wire_in")
    attached = cases_attach_alerts(organization=org, mode="test", alerts=Alert.objects.filter(entity=entity))
    case = Case.objects.get(pk=next(iter(attached.values())))
    # the report covers every alert (all still open: the investigator selects them), so the narrative's facts are the case's
    selected = officer.post(f"{BASE}/cases/{case.pk}/sar-selection", {"include": [str(a.pk) for a in case.alerts.all()]}, format="json")
    assert selected.status_code == 200, selected.json()
    return case


def facts_from_the_database(case) -> tuple[set[str], set[Decimal], set[str]]:
    """Dates, numbers and names the case's stored records hold, derived independently of the generator."""
    txs = list(Transaction.objects.filter(alerts__case_link__case=case).distinct())
    fiat = list(FiatEvent.objects.filter(alerts__case_link__case=case).distinct())
    alerts = list(Alert.objects.filter(case_link__case=case))
    dates = {t.timestamp.date().isoformat() for t in [*txs, *fiat]}
    dates |= {d.date().isoformat() for a in alerts for d in (a.first_triggered_at, a.last_triggered_at, a.created_at)}
    dates |= {case.created_at.date().isoformat(), case.detected_at.date().isoformat(), case.report_due_at.date().isoformat()}
    usd = [t.usd_value for t in [*txs, *fiat] if t.usd_value is not None]
    inbound = [t.usd_value for t in txs] + [e.usd_value for e in fiat if e.event_type == "wire_in"]
    numbers = {sum(usd, Decimal(0)), sum(inbound, Decimal(0)), Decimal(0), Decimal(len(txs) + len(fiat)), Decimal(len(inbound)),
               Decimal(len(alerts)), Decimal(len(txs)), Decimal(len(fiat)), sum((Decimal(t.amount) for t in txs), Decimal(0)),
               sum((e.amount for e in fiat), Decimal(0)), Decimal(len({t.from_address for t in txs}))}
    for alert in alerts:
        numbers |= figures(alert.description)[1] | {Decimal(alert.rule_number), Decimal(alert.hit_count)}
    names = {case.entity.legal_name, *(o.name for o in case.entity.ubos.all()), *(e.counterparty_name for e in fiat),
             *(e.counterparty_bank for e in fiat), *(a.rule_name for a in alerts)}
    return dates, numbers, names


def test_the_deterministic_narrative_uses_only_the_cases_facts(officer, case):
    first = officer.post(f"{BASE}/cases/{case.pk}/ai-sar-narrative").json()
    assert first == officer.post(f"{BASE}/cases/{case.pk}/ai-sar-narrative").json()
    assert first["generator"] == "deterministic" and first["model"] is None and first["fallback_reason"] is None
    narrative = first["narrative"]
    dates, numbers, names = facts_from_the_database(case)
    written_dates, written_numbers = figures(narrative)
    assert written_dates and written_dates <= dates
    assert written_numbers and written_numbers <= numbers, written_numbers - numbers
    for name in ("Blue Harbor Trading LLC", "Ana Lima", "Caisse Populaire Ünion", "First Bank"):
        assert name in narrative and name in names
    named = re.search(r"Named counterparties: (.*?)\.", narrative).group(1)
    assert set(named.split(" and ")) <= names
    assert set(first["facts"]) == {"case", "who", "what", "why", "filings"}
    assert "a total value of 24,503.50 USD" in narrative  # 3 transfers of 1,000-1,002 USDC and wires of 12,000 and 9,500.50


def test_summary_says_where_the_case_stands(api, key, org, case):
    body = api(key(org, role="l1_analyst")).get(f"{BASE}/cases/{case.pk}/ai-summary").json()
    assert body["generator"] == "deterministic" and body["case_id"] == str(case.pk)
    assert body["summary"].startswith(f"Case {case.reference} is open with high priority, not assigned.")
    assert case.report_due_at.date().isoformat() in body["summary"]


def test_a_configured_model_writes_it(officer, case, settings):
    def reply(request):
        return 200, {"choices": [{"message": {"role": "assistant",
                                              "content": "Blue Harbor Trading LLC received wires from First Bank."}}]}

    with LoopbackServer(reply) as server:
        settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY, settings.OPENAI_MODEL = server.url + "/v1", "sk-llm", "tiny-model"
        body = officer.post(f"{BASE}/cases/{case.pk}/ai-sar-narrative").json()
    assert body["generator"] == "llm" and body["model"] == "tiny-model"
    assert body["narrative"] == "Blue Harbor Trading LLC received wires from First Bank."
    sent = server.requests[0]
    assert sent["path"] == "/v1/chat/completions" and sent["headers"]["Authorization"] == "Bearer sk-llm"
    assert sent["body"]["temperature"] == 0 and "Do not add names" in sent["body"]["messages"][0]["content"]
    assert "Blue Harbor Trading LLC" in sent["body"]["messages"][1]["content"]


def test_a_model_that_invents_figures_is_overruled(officer, case, settings):
    def reply(request):
        return 200, {"choices": [{"message": {"content": "On 2019-07-04 the customer moved 987,654.32 USD to Panama."}}]}

    with LoopbackServer(reply) as server:
        settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY, settings.OPENAI_MODEL = server.url, "k", "m"
        body = officer.get(f"{BASE}/cases/{case.pk}/ai-summary").json()
    assert body["generator"] == "deterministic" and "2019-07-04" in body["fallback_reason"]
    assert "987654.32" in body["fallback_reason"] and "Panama" not in body["summary"]


def test_a_failing_model_falls_back(officer, case, settings):
    with LoopbackServer(lambda request: (503, {"error": "overloaded"})) as server:
        settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY, settings.OPENAI_MODEL = server.url, "k", "m"
        body = officer.post(f"{BASE}/cases/{case.pk}/ai-sar-narrative").json()
    assert body["generator"] == "deterministic" and "HTTPError" in body["fallback_reason"]
