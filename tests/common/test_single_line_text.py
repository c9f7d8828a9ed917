"""Single-line text (common.text, StrictSerializer): control characters, bidirectional controls, the
BOM and zero-width characters are a 422 naming the field, in every request body, and nothing is
stored. Multi-line fields (notes, reasons) keep their line breaks."""

import pytest

from common.models import AuditLogEntry
from common.text import printable, single_line_problem
from onboarding.models import Entity, Wallet
from webhooks.models import WebhookEndpoint

pytestmark = pytest.mark.django_db
URL = "/v1/onboarding/entities"
COMPANY = {"legal_name": "Blue Harbor Trading LLC", "entity_type": "business", "jurisdiction": "US"}
REFUSED = [("\x07", "a control character (U+0007)"), ("\x1b[31m", "a control character (U+001B)"),
           ("\r", "a control character (U+000D)"), ("\n", "a control character (U+000A)"), ("\x85", "a control character (U+0085)"),
           ("\u202e", "a bidirectional control (U+202E)"), ("\u2066", "a bidirectional control (U+2066)"),
           ("\ufeff", "an invisible character (U+FEFF)"), ("\u200b", "an invisible character (U+200B)"),
           ("\u200d", "an invisible character (U+200D)"), ("\u2028", "a line separator (U+2028)")]


@pytest.fixture
def client(api, org, key):
    return api(key(org, role="admin"))


def refusal(response, field: str, kind: str, position: int) -> None:
    assert response.status_code == 422, response.json()
    message = f"Contains {kind} at position {position}; single-line text takes visible characters only."
    assert response.json()["error"] == {"code": "VALIDATION_ERROR", "message": f"{field}: {message}",
                                        "details": [{"field": field, "message": message}]}


@pytest.mark.parametrize(("char", "kind"), REFUSED)
def test_a_legal_name_with_it_is_refused_and_nothing_stored(client, char, kind):
    refusal(client.post(URL, {**COMPANY, "legal_name": f"Nova{char}Traders"}, format="json"), "legal_name", kind, 5)
    assert not Entity.objects.exists() and not AuditLogEntry.objects.filter(action__startswith="entity.").exists()


@pytest.mark.parametrize(("char", "kind"), REFUSED)
def test_an_off_chain_wallet_identifier_with_it_is_refused(client, char, kind):
    response = client.post(URL, {**COMPANY, "wallets": [{"chain_id": 0, "address": f"acct{char}778"}]}, format="json")
    refusal(response, "wallets.0.address", kind, 5)
    assert not Entity.objects.exists() and not Wallet.objects.exists()
    entity = client.post(URL, COMPANY, format="json").json()
    refusal(client.post(f"{URL}/{entity['id']}/wallets", {"chain_id": 0, "address": f"acct{char}778"}, format="json"), "address", kind, 5)
    assert not Wallet.objects.exists()


def test_nested_objects_lists_and_updates_are_held_too(client, org):
    address = {"line1": "1 Main St", "city": "Spring\u202efield", "country": "US"}
    refusal(client.post(URL, {**COMPANY, "address": address}, format="json"), "address.city",
            "a bidirectional control (U+202E)", 7)
    endpoint = {"url": "https://hooks.example.com/in", "event_types": ["alert.created\x01"]}
    refusal(client.post("/v1/developer/webhook-endpoints", endpoint, format="json"), "event_types.0", "a control character (U+0001)", 14)
    assert not Entity.objects.exists() and not WebhookEndpoint.objects.exists()


def test_multi_line_fields_keep_line_breaks_and_plain_text_passes(client, django_capture_on_commit_callbacks):
    from tests.onboarding.helpers import entity_url, screened

    name = "Société Générale – Zürich 株式会社 O'Brien & Co."
    entity = client.post(URL, {**COMPANY, "legal_name": name}, format="json").json()
    assert Entity.objects.get().legal_name == name
    screened(entity)
    response = client.post(entity_url(entity, "approve"), {"notes": "Checked the register.\nFiled the extract.\tOK"}, format="json")
    assert response.status_code == 200, response.json()


def test_printable_shows_what_it_neutralises():
    assert printable("Nova\x07\x1b[31m\u202eTraders\ufeff") == "Nova[U+0007][U+001B][31m[U+202E]Traders[U+FEFF]"
    assert printable("Notes\r\nline two\tend") == "Notes\r\nline two\tend"  # multi-line text's own characters
    assert single_line_problem("Plain name") is None
