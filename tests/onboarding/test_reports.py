"""The compliance report (CSV that parses and resists formula injection) and the certificate (a PDF
that opens and names the entity, read back with pdftotext)."""

import csv
import datetime as dt
import hashlib
import io
import logging
import re
import shutil
import subprocess

import pytest

from common.models import AuditLogEntry
from onboarding.models import Entity
from onboarding.reports.compliance_csv import safe_cell
from tests.onboarding.helpers import COMPANY, entity_url, onboard, screened

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(api, org, key):
    return api(key(org, role="l2_investigator"))


def parse(response) -> list[list[str]]:
    text = response.content.decode("utf-8")
    assert text.startswith("\ufeff")
    return list(csv.reader(io.StringIO(text[1:])))


class TestComplianceReport:
    def test_csv_with_checks_status_and_risk(self, client, django_capture_on_commit_callbacks):
        entity = onboard(client, django_capture_on_commit_callbacks, COMPANY, legal_name="=HYPERLINK(\"http://evil\")")
        screened(entity)
        client.post(entity_url(entity, "approve"), {"notes": "ok"}, format="json")
        response = client.get(entity_url(entity, "compliance-report"))
        assert response.status_code == 200 and response["Content-Type"] == "text/csv; charset=utf-8"
        assert response["Content-Disposition"].startswith(f'attachment; filename="compliance-report-{entity["id"]}-')
        rows = parse(response)
        assert rows[0][:2] == ["entity_id", "legal_name"] and rows[1][1] == "'=HYPERLINK(\"http://evil\")"
        header = rows.index(["timestamp", "section", "kind", "summary", "reference", "actor", "details"])
        sections = {row[1] for row in rows[header + 1:]}
        assert {"compliance_check", "status_change", "risk_change"} <= sections
        assert [row[3] for row in rows[header + 1:] if row[1] == "status_change" and row[2] == "active"] == ["pending → active"]
        assert b"\r\n" in response.content

    def test_date_range(self, client):
        entity = client.post("/v1/onboarding/entities", COMPANY, format="json").json()
        rows = parse(client.get(entity_url(entity, "compliance-report"), {"from_date": "2000-01-01T00:00:00Z",
                                                                          "to_date": "2000-12-31T00:00:00Z"}))
        assert rows[-1] == ["timestamp", "section", "kind", "summary", "reference", "actor", "details"]
        assert client.get(entity_url(entity, "compliance-report"), {"from_date": "yesterday"}).status_code == 422
        assert client.get(entity_url(entity, "compliance-report"), {"from_date": "2026-02-01T00:00:00Z",
                                                                    "to_date": "2026-01-01T00:00:00Z"}).status_code == 422

    @pytest.mark.parametrize("value, expected", [("=1+1", "'=1+1"), ("+x", "'+x"), ("-2", "'-2"), ("@SUM", "'@SUM"),
                                                 ("\tx", "'\tx"), ("plain", "plain"), (None, "")])
    def test_formula_guard(self, value, expected):
        assert safe_cell(value) == expected

    def test_an_older_rows_control_and_bidi_characters_are_neutralised(self, client, org):
        """Rows stored before single-line text was enforced: BEL, ESC and U+202E reach no terminal raw."""
        entity = client.post("/v1/onboarding/entities", COMPANY, format="json").json()
        Entity.objects.filter(pk=entity["id"]).update(legal_name="Nova\x07\x1b[2J\u202eTraders\ufeff")
        response = client.get(entity_url(entity, "compliance-report"))
        assert response.status_code == 200
        text = response.content.decode("utf-8")
        assert not any(char in text[1:] for char in "\x07\x1b\u202e\ufeff")  # text[0] is the file's own BOM
        assert parse(response)[1][1] == "Nova[U+0007][U+001B][2J[U+202E]Traders[U+FEFF]"
        assert Entity.objects.get(pk=entity["id"]).legal_name == "Nova\x07\x1b[2J\u202eTraders\ufeff"  # the row is left as it is

    def test_tenancy(self, client, api, other_org, key):
        entity = client.post("/v1/onboarding/entities", COMPANY, format="json").json()
        assert api().get(entity_url(entity, "compliance-report")).status_code == 401
        assert api(key(other_org)).get(entity_url(entity, "compliance-report")).status_code == 404


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils (scripts/debian-packages.txt) is not installed")
class TestCertificate:
    def test_pdf_opens_and_names_the_entity(self, client, django_capture_on_commit_callbacks, tmp_path, org):
        entity = onboard(client, django_capture_on_commit_callbacks, COMPANY)
        response = client.get(entity_url(entity, "compliance-certificate"))
        assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
        assert response["Content-Disposition"] == f'attachment; filename="compliance-certificate-{entity["id"]}.pdf"'
        assert response.content.startswith(b"%PDF")
        path = tmp_path / "certificate.pdf"
        path.write_bytes(response.content)
        text = subprocess.run(["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True, text=True).stdout
        assert "Compliance certificate" in text and "Blue Harbor Trading LLC" in text and org.name in text
        assert "sanctions" in text and response["X-Certificate-Hash"] in text.replace("\n", "").replace(" ", "")
        issued = AuditLogEntry.objects.get(action="entity.certificate_issued", object_id=entity["id"])
        assert issued.after["verification_hash"] == response["X-Certificate-Hash"]
        assert len(response["X-Certificate-Hash"]) == len(hashlib.sha256().hexdigest())

    def test_tenancy(self, client, api, other_org, key):
        entity = client.post("/v1/onboarding/entities", COMPANY, format="json").json()
        assert api().get(entity_url(entity, "compliance-certificate")).status_code == 401
        assert api(key(other_org)).get(entity_url(entity, "compliance-certificate")).status_code == 404


def test_the_certificate_page_neutralises_an_older_rows_characters_and_hashes_the_stored_facts(client, org, monkeypatch):
    """The page shows [U+202E] where the stored name holds one (which would show the rest reversed); the
    verification hash is still over the facts as stored, so it can be recomputed from them."""
    import weasyprint

    from onboarding.reports.certificate import certificate_content, verification_hash

    pages = []

    class Capture:
        def __init__(self, string):
            pages.append(string)

        def write_pdf(self):
            return b"%PDF-1.7"

    monkeypatch.setattr(weasyprint, "HTML", Capture)
    entity = client.post("/v1/onboarding/entities", COMPANY, format="json").json()
    Entity.objects.filter(pk=entity["id"]).update(legal_name="Nova\u202eTraders\x07")
    response = client.get(entity_url(entity, "compliance-certificate"))
    assert response.status_code == 200 and response.content == b"%PDF-1.7"
    (page,) = pages
    assert "Nova[U+202E]Traders[U+0007]" in page and "\u202e" not in page and "\x07" not in page
    issued_at = dt.datetime.fromisoformat(re.search(r"\d{4}-\d\d-\d\dT[\d:.]+\+00:00", page).group())
    stored = certificate_content(Entity.objects.get(pk=entity["id"]), issuer=org, issued_at=issued_at)
    assert stored["entity"]["legal_name"] == "Nova\u202eTraders\x07"
    assert verification_hash(stored) == response["X-Certificate-Hash"]


def test_a_certificate_writes_no_info_lines_of_the_pdf_libraries(client, caplog):
    """WeasyPrint logs each rendering step (weasyprint.progress) and fontTools each font table it subsets
    (fontTools.subset, ...) at INFO: some 130 lines per certificate in make run's log, until the settings'
    LOGGING set them to WARNING."""
    entity = client.post("/v1/onboarding/entities", COMPANY, format="json").json()
    with caplog.at_level(logging.INFO):
        response = client.get(entity_url(entity, "compliance-certificate"))
    assert response.status_code == 200 and response.content.startswith(b"%PDF")
    noisy = [f"{record.name} {record.levelname}: {record.getMessage()}" for record in caplog.records
             if record.name.startswith(("weasyprint.progress", "fontTools")) and record.levelno < logging.WARNING]
    assert noisy == []
