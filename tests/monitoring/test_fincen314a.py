"""FinCEN 314(a): POST /v1/monitoring/314a/upload, GET .../files, GET .../files/{id}/matches,
POST .../matches/{id}/review; the matching task and its sweep; the scores."""

import datetime as dt
import uuid
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from common.crypto import tax_id_fields
from common.models import AuditLogEntry
from monitoring import tasks
from monitoring.fincen314a import matching
from monitoring.fincen314a.services import file_match
from monitoring.models import Fincen314aFile, Fincen314aMatch, Fincen314aSubject
from onboarding.models import Entity
from webhooks.models import Event

pytestmark = pytest.mark.django_db
BASE = "/v1/monitoring/314a"
HEADER = "Name,SSN_ITIN,DOB,Address,City,State,Zip,Phone,Email,Type,EIN\n"


def entity(org, name, *, mode="test", kind="individual", tax_id=None, dob=None, address=None, registration="", **fields) -> Entity:
    return Entity.objects.create(organization=org, mode=mode, legal_name=name, entity_type=kind, jurisdiction="US",
                                 date_of_birth=dob, address=address or {}, registration_number=registration, **fields,
                                 **tax_id_fields(tax_id))


def csv_file(text: str, name: str = "314a_2026-11-03.csv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode() if isinstance(text, str) else text, content_type="text/csv")


def upload(client, text, name="314a_2026-11-03.csv", **form):
    return client.post(f"{BASE}/upload", {"file": csv_file(text, name), **form}, format="multipart")


@pytest.fixture
def officer(api, key, org):
    return api(key(org, role="l3_officer"))


@pytest.fixture
def uploaded(officer, django_capture_on_commit_callbacks):
    """upload_and_match(text) → the response of an upload whose matching task ran (on commit, through Celery)."""

    def run(text, **kwargs):
        with django_capture_on_commit_callbacks(execute=True) as callbacks:
            response = upload(officer, text, **kwargs)
        assert response.status_code == 200, response.json()
        assert any(getattr(getattr(c, "args", [None])[0], "name", "") == "monitoring.match_314a_file" for c in callbacks)
        return response

    return run


def errors(response) -> list[dict]:
    assert response.status_code == 422, (response.status_code, response.json())
    body = response.json()["error"]
    assert body["code"] == "VALIDATION_ERROR"
    return body["details"]


class TestUpload:
    def test_anonymous(self, api):
        assert upload(api(), HEADER + "John Smith,,,,,,,,,,\n").status_code == 401

    @pytest.mark.parametrize("role", ["viewer", "l1_analyst", "l2_investigator"])
    def test_below_l3_officer(self, api, key, org, role):
        response = upload(api(key(org, role=role)), HEADER + "John Smith,,,,,,,,,,\n")
        assert response.status_code == 403 and response.json()["error"]["code"] == "FORBIDDEN"
        assert not Fincen314aFile.objects.exists()

    def test_stored_processing_then_matched_on_commit(self, officer, org, django_capture_on_commit_callbacks):
        john = entity(org, "John Smith", dob=dt.date(1980, 1, 2))
        text = (HEADER + "\"SMITH, JOHN\",123-45-6789,1980-01-02,1 Main St,Springfield,IL,62701,,,Individual,\n"
                "Acme Corp,,,,,,,,,Business,12-3456789\n")
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            response = upload(officer, text)
        assert response.status_code == 200, response.json()
        body = response.json()
        stored = Fincen314aFile.objects.get()
        assert set(body) == {"file_id", "filename", "period", "subjects_count", "status", "uploaded_at", "estimated_completion",
                             "response_deadline"}
        assert body["file_id"] == str(stored.pk) and body["filename"] == "314a_2026-11-03.csv" and body["period"] == "2026-11-03"
        assert body["subjects_count"] == 2 and body["status"] == "processing"
        assert stored.response_deadline - stored.created_at == timedelta(days=14) and stored.estimated_completion > stored.created_at
        subjects = list(Fincen314aSubject.objects.filter(file=stored))
        assert [(s.row_number, s.name, s.subject_type, s.tracking_number) for s in subjects] == [
            (2, "SMITH, JOHN", "Individual", "20261103-00002"), (3, "Acme Corp", "Business", "20261103-00003")]
        assert subjects[0].ssn_itin_last4 == "6789" and "123456789" not in subjects[0].ssn_itin_encrypted
        assert AuditLogEntry.objects.filter(action="fincen_314a.file_uploaded", object_id=str(stored.pk)).exists()
        assert not Fincen314aMatch.objects.exists()
        (enqueue,) = callbacks
        enqueue()  # the on-commit enqueue: the task runs through Celery (eager in tests)
        stored.refresh_from_db()
        assert stored.status == "completed" and stored.completed_at is not None and stored.entities_searched == 1
        found = Fincen314aMatch.objects.get()
        assert (found.entity_id, found.subject.name, found.score) == (john.pk, "SMITH, JOHN", 0.94)  # exact name 0.9 + DOB 0.04

    def test_period_from_the_form_else_the_upload_date(self, officer):
        assert upload(officer, HEADER + "A B,,,,,,,,,,\n", name="list.csv", period="2026-10-20").json()["period"] == "2026-10-20"
        assert upload(officer, HEADER + "C D,,,,,,,,,,\n", name="list.csv").json()["period"] == timezone.now().date().isoformat()

    def test_a_future_period(self, officer):
        future = (timezone.now().date() + timedelta(days=3)).isoformat()
        assert errors(upload(officer, HEADER + "A B,,,,,,,,,,\n", period=future))[0]["field"] == "period"
        assert not Fincen314aFile.objects.exists()

    @pytest.mark.parametrize("period, name", [("0001-01-01", "list.csv"), ("2002-09-25", "list.csv"), (None, "314a_1999-01-01.csv")])
    def test_a_period_before_314a_began(self, officer, period, name):
        form = {"period": period} if period else {}
        (error,) = errors(upload(officer, HEADER + "A B,,,,,,,,,,\n", name=name, **form))
        assert error["field"] == "period" and "before 314(a) requests began (2002-09-26)" in error["message"]
        assert not Fincen314aFile.objects.exists()
        assert upload(officer, HEADER + "A B,,,,,,,,,,\n", name="list.csv", period="2002-09-26").status_code == 200

    def test_the_same_list_twice(self, officer):
        first = upload(officer, HEADER + "A B,,,,,,,,,,\n")
        again = upload(officer, HEADER + "A B,,,,,,,,,,\n", name="again.csv")
        assert again.status_code == 409 and first.json()["file_id"] in again.json()["error"]["message"]
        assert Fincen314aFile.objects.count() == 1

    def test_tracking_numbers_and_other_names_columns(self, officer):
        assert upload(officer, "Name,Tracking_Number,Alt_Names\nJohn Smith,T-1,Johnny Smith; J. Smith\n").status_code == 200
        subject = Fincen314aSubject.objects.get()
        assert (subject.tracking_number, subject.alt_names) == ("T-1", ["Johnny Smith", "J. Smith"])


class TestUploadValidation:
    @pytest.mark.parametrize(("text", "row", "column", "words"), [
        ("SSN_ITIN,DOB\n123456789,1980-01-01\n", 1, "Name", "no Name column"),
        (HEADER + ",123456789,,,,,,,,,\n", 2, "Name", "Required"),
        (HEADER + "A B,,1980-13-01,,,,,,,,\n", 2, "DOB", "YYYY-MM-DD"),
        (HEADER + "A B,,01/02/1980,,,,,,,,\n", 2, "DOB", "YYYY-MM-DD"),
        (HEADER + "A B,,2999-01-01,,,,,,,,\n", 2, "DOB", "not a possible"),
        (HEADER + "A B,,,,,Illinois,,,,,\n", 2, "State", "two-letter"),
        (HEADER + "A B,,,,,ZZ,,,,,\n", 2, "State", "two-letter"),
        (HEADER + "A B,,,,,,,,,Company,\n", 2, "Type", "Individual or Business"),
        (HEADER + "A B,12345,,,,,,,,,\n", 2, "SSN_ITIN", "9 digits"),
        (HEADER + "A B,,,,,,,,,,12-345\n", 2, "EIN", "9 digits"),
        (HEADER + "A B,,,,,,1234,,,,\n", 2, "Zip", "ZIP"),
        (HEADER + "A B,,,,,,,,not-an-email,,\n", 2, "Email", "e-mail"),
        ("Name,Name\nA,B\n", 1, "Name", "twice"),
        ("Name,Colour\nA,red\n", 1, "Colour", "Unknown column"),
        (HEADER + "A B,,,\n", 2, None, "cells"),
        # Other scripts' digits: their hash is not the ASCII number's, so the subject would silently match no customer.
        (HEADER + "A B,\u0661\u0662\u0663-\u0664\u0665-\u0666\u0667\u0668\u0669,,,,,,,,,\n", 2, "SSN_ITIN", "9 digits"),
        (HEADER + "A B,,,,,,,,,,\u0661\u0662-\u0663\u0664\u0665\u0666\u0667\u0668\u0669\n", 2, "EIN", "9 digits"),
        (HEADER + "A B,,,,,,\uff11\uff12\uff13\uff14\uff15,,,,\n", 2, "Zip", "ZIP"),
    ])
    def test_a_problem_names_its_line_and_column(self, officer, text, row, column, words):
        (problem, *_) = errors(upload(officer, text))
        assert (problem["field"], problem["row"], problem["column"]) == ("file", row, column)
        assert words in problem["message"] and f"line {row}" in problem["message"]
        assert not Fincen314aFile.objects.exists() and not Fincen314aSubject.objects.exists()

    def test_the_message_names_the_first_problem_in_one_sentence(self, officer):
        response = upload(officer, HEADER + "A B,,1980-01-01,,,,,,,,\nC D,,1980-13-01,,,,,,,,\nE F,,,,,XX,,,,,\n")
        assert response.status_code == 422
        assert response.json()["error"]["message"] == ("The 314(a) file has 2 problems; the first: line 3, column DOB: '1980-13-01' "
                                                       "is not a date in the form YYYY-MM-DD. Nothing was stored.")
        assert not Fincen314aFile.objects.exists() and not Fincen314aSubject.objects.exists()

    def test_every_problem_is_listed(self, officer):
        details = errors(upload(officer, HEADER + "A,,1980-99-01,,,,,,,,\n,,,,,XX,,,,,\nB,,,,,,,,,Alien,\n"))
        assert [(d["row"], d["column"]) for d in details] == [(2, "DOB"), (3, "Name"), (3, "State"), (4, "Type")]

    @pytest.mark.parametrize(("content", "words"), [
        (b"", "empty"),
        (b"   \n", "empty"),
        ("Name,City\nJos\u00e9,M\u00fcnchen\n".encode("latin-1"), "UTF-8"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "NUL"),
        (bytes(range(256)) * 4, "NUL"),
        (HEADER.encode(), "no subject rows"),
        (b'Name\n"unterminated\n', "not valid CSV"),
    ])
    def test_not_a_csv_list(self, officer, content, words):
        details = errors(upload(officer, content))
        assert words in details[0]["message"], details
        assert not Fincen314aFile.objects.exists()

    def test_a_file_that_is_not_csv_by_name(self, officer):
        assert errors(upload(officer, HEADER + "A B,,,,,,,,,,\n", name="list.pdf"))[0]["field"] == "file"

    def test_the_subject_limit(self, officer, settings):
        settings.FINCEN_314A_MAX_SUBJECTS = 3
        details = errors(upload(officer, "Name\n" + "".join(f"Person {i}\n" for i in range(4))))
        assert "more than 3 subjects" in details[0]["message"]
        assert upload(officer, "Name\n" + "".join(f"Person {i}\n" for i in range(3))).status_code == 200

    def test_the_size_limit(self, officer, settings):
        settings.FINCEN_314A_MAX_BYTES = 100
        response = upload(officer, "Name\n" + "A Person\n" * 20)
        assert response.status_code == 413 and response.json()["error"]["code"] == "PAYLOAD_TOO_LARGE"
        assert "100 bytes" in response.json()["error"]["message"]
        assert not Fincen314aFile.objects.exists()

    def test_no_file_field(self, officer):
        assert errors(officer.post(f"{BASE}/upload", {"period": "2026-11-01"}, format="multipart"))[0]["field"] == "file"

    def test_an_unknown_form_field(self, officer):
        response = officer.post(f"{BASE}/upload", {"file": csv_file(HEADER + "A B,,,,,,,,,,\n"), "colour": "red"}, format="multipart")
        assert errors(response)[0]["field"] == "colour"

    def test_two_files(self, officer):
        response = officer.post(f"{BASE}/upload", {"file": [csv_file("Name\nA\n"), csv_file("Name\nB\n", "b.csv")]}, format="multipart")
        assert errors(response)[0]["field"] == "file"
        assert not Fincen314aFile.objects.exists()

    def test_json_instead_of_a_form(self, officer):
        response = officer.post(f"{BASE}/upload", {"file": "Name\nA\n"}, format="json")
        assert response.status_code == 415 and response.json()["error"]["code"] == "UNSUPPORTED_MEDIA_TYPE"
        assert response.json()["error"]["message"] == ('Unsupported media type "application/json" in request. '
                                                       "This operation takes `multipart/form-data`.")
        assert not Fincen314aFile.objects.exists()

    @pytest.mark.parametrize("content_type", [None, "multipart/form-data; boundary=x"])
    def test_no_body_is_a_422_naming_the_file(self, officer, content_type):
        response = officer.generic("POST", f"{BASE}/upload", b"", **({"content_type": content_type} if content_type else {}))
        assert response.status_code == 422, response.content
        assert response.json()["error"] == {"code": "VALIDATION_ERROR", "message": "file: No file was submitted.",
                                            "details": [{"field": "file", "message": "No file was submitted."}]}
        assert not Fincen314aFile.objects.exists() and not Fincen314aSubject.objects.exists()

    @pytest.mark.parametrize(("body", "content_type"), [
        (b"--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\n\r\nName\nA", "multipart/form-data; boundary=x"),
        (b"\x00\x01\x02junk", "multipart/form-data; boundary=x"),
        (b"\x00\x01\x02junk", "multipart/form-data"),
        (b"\xff\xfe\xfd", "application/octet-stream"),
        (b"Name\nA\n", "text/csv"),
    ])
    def test_malformed_bodies_are_4xx(self, officer, body, content_type):
        response = officer.generic("POST", f"{BASE}/upload", body, content_type=content_type)
        assert 400 <= response.status_code < 500 and "error" in response.json(), (response.status_code, response.content[:200])
        assert not Fincen314aFile.objects.exists()


class TestMatchingTask:
    def test_scores_and_fields(self, org, uploaded):
        ssn = entity(org, "Totally Different Name", tax_id="123-45-6789")
        ein = entity(org, "Other Name Inc", kind="business", registration="98-7654321")
        partial = entity(org, "Maria Elena Garcia")
        fuzzy = entity(org, "Jon Smyth")
        corroborated = entity(org, "José Müller", dob=dt.date(1970, 5, 6),
                              address={"line1": "12 Elm Street", "city": "Austin", "state": "TX", "postal_code": "73301", "country": "US"})
        entity(org, "Maria Garcia", dob=dt.date(1990, 1, 1))  # the same words reordered: 0.8; the DOB differs: no effect
        entity(org, "Unrelated Person")
        entity(org, "Maria Elena Garcia", mode="live")  # another mode is not searched
        text = ("Name,SSN_ITIN,EIN,DOB,Address,City,State,Zip,Type\n"
                "Nobody Known,123456789,,,,,,,Individual\n"
                "Some Business,,987654321,,,,,,Business\n"
                "GARCIA MARIA,,,1975-03-04,,,,,Individual\n"
                "John Smith,,,,,,,,Individual\n"
                "\"MULLER, JOSE\",,,1970-05-06,12 Elm St.,Austin,TX,73301,Individual\n")
        file_id = uploaded(text).json()["file_id"]
        found = {(m.subject.row_number, m.entity_id): (m.score, m.match_fields) for m in Fincen314aMatch.objects.filter(file_id=file_id)}
        maria_garcia = Entity.objects.get(legal_name="Maria Garcia").pk
        assert found[(2, ssn.pk)] == (1.0, ["ssn_itin"])
        assert found[(3, ein.pk)] == (1.0, ["ein"])
        assert found[(4, partial.pk)] == (0.7, ["name"])
        assert found[(4, maria_garcia)] == (0.8, ["name"])
        score, fields = found[(5, fuzzy.pk)]
        assert fields == ["name_fuzzy"] and 0.5 <= score < 0.6
        assert found[(6, corroborated.pk)] == (0.95, ["name", "dob", "city", "state", "zip"])  # exact 0.9 + DOB 0.04 + place 0.01
        assert len(found) == 6

    def test_one_event_per_match_with_the_payload(self, org, uploaded):
        john = entity(org, "John Smith", tax_id="123456789")
        file_id = uploaded(HEADER + "John Smith,123-45-6789,,,,,,,,Individual,\n").json()["file_id"]
        stored = Fincen314aFile.objects.get(pk=file_id)
        found = Fincen314aMatch.objects.get()
        (event,) = Event.objects.filter(type="fincen_314a.match_found")
        assert (event.organization_id, event.mode) == (org.pk, "test")
        assert event.data == {"match_id": str(found.pk), "file_id": file_id, "entity_id": str(john.pk), "subject_name": "John Smith",
                              "match_score": 1.0, "match_fields": ["ssn_itin", "name"],
                              "response_deadline": stored.response_deadline.isoformat().replace("+00:00", "Z")}

    def test_no_match_completes_without_events(self, org, uploaded):
        entity(org, "Somebody Else")
        file_id = uploaded(HEADER + "John Smith,,,,,,,,,,\n").json()["file_id"]
        assert Fincen314aFile.objects.get(pk=file_id).status == "completed"
        assert not Fincen314aMatch.objects.exists() and not Event.objects.filter(type="fincen_314a.match_found").exists()

    def test_a_second_run_changes_nothing(self, org, uploaded):
        entity(org, "John Smith")
        file_id = uploaded(HEADER + "John Smith,,,,,,,,,,\n").json()["file_id"]
        completed_at = Fincen314aFile.objects.get(pk=file_id).completed_at
        tasks.match_314a_file.delay(file_id)
        assert Fincen314aMatch.objects.count() == 1 and Event.objects.filter(type="fincen_314a.match_found").count() == 1
        assert Fincen314aFile.objects.get(pk=file_id).completed_at == completed_at

    def test_the_sweep_hands_a_lost_file_again(self, officer, org):
        entity(org, "John Smith")
        file_id = upload(officer, HEADER + "John Smith,,,,,,,,,,\n").json()["file_id"]  # on-commit message never sent
        tasks.sweep_314a_files.delay()
        assert Fincen314aFile.objects.get(pk=file_id).status == "processing"  # handed minutes ago: not yet
        Fincen314aFile.objects.filter(pk=file_id).update(enqueued_at=timezone.now() - timedelta(minutes=11))
        tasks.sweep_314a_files.delay()
        assert Fincen314aFile.objects.get(pk=file_id).status == "completed" and Fincen314aMatch.objects.count() == 1

    def test_the_beat_schedule_runs_the_sweeps(self):
        from config.celery import app

        tasks_scheduled = {entry["task"] for entry in app.conf.beat_schedule.values()}
        assert {"monitoring.sweep_314a_files", "monitoring.expire_314b_requests"} <= tasks_scheduled

    def test_a_missing_file_id_is_nothing(self):
        assert file_match(file_id=uuid.uuid4()) is None


class TestMatcher:
    def test_partial_name_needs_two_words_or_the_whole_name(self):
        subject = matching.party(id="s", names=["Smith"], individual=True)
        assert matching.score(subject, matching.party(id="e", names=["John Smith"], individual=True)) is None
        assert matching.score(subject, matching.party(id="e", names=["SMITH"], individual=True)).score == 0.9  # the whole name: exact

    def test_accents_punctuation_and_order_do_not_matter(self):
        subject = matching.party(id="s", names=["O'BRIEN, SEÁN"], individual=True)
        found = matching.score(subject, matching.party(id="e", names=["Sean Obrien"], individual=True))
        assert (found.score, found.fields) == (0.9, ("name",))  # exact once normalised

    def test_blocking_finds_what_a_full_scan_finds(self):
        names = ["John Smith", "Jon Smyth", "Maria Garcia", "Maria Elena Garcia", "Li Wei", "Wei Li Holdings", "Acme Trading",
                 "Mohammed Ali", "Muhammad Ali", "Ali Hassan", "Smith John Robert"]
        entities = [matching.party(id=i, names=[n], individual=True) for i, n in enumerate(names)]
        subjects = [matching.party(id=f"s{i}", names=[n], individual=True) for i, n in enumerate(
            ["John Smith", "Garcia Maria", "Li Wei", "Mohamed Ali", "Acme", "Robert Smith"])]
        index = matching.EntityIndex(entities)
        blocked = {(f.subject_id, f.entity_id, f.score) for f in matching.match(subjects, index)}
        scanned = {(f.subject_id, f.entity_id, f.score) for s in subjects for e in entities if (f := matching.score(s, e))}
        assert blocked == scanned and len(blocked) >= 8


def files(client, **query):
    response = client.get(f"{BASE}/files", query)
    assert response.status_code == 200, response.json()
    return response.json()


class TestFilesList:
    def test_counts_and_tenancy(self, api, key, org, other_org, uploaded, officer):
        entity(org, "John Smith")
        entity(org, "John Smith Jr")
        file_id = uploaded(HEADER + "John Smith,,,,,,,,,,\n").json()["file_id"]
        first, second = Fincen314aMatch.objects.all()
        officer.post(f"{BASE}/matches/{first.pk}/review", {"result": "positive", "notes": "Same person"}, format="json")
        upload(api(key(other_org, role="l3_officer")), HEADER + "Other Org Subject,,,,,,,,,,\n")
        upload(api(key(org, role="l3_officer", mode="live")), HEADER + "Live Subject,,,,,,,,,,\n")
        body = files(api(key(org, role="l2_investigator")))
        assert body["total"] == 1 and body["has_more"] is False and [f["file_id"] for f in body["files"]] == [file_id]
        record = body["files"][0]
        assert (record["matches_count"], record["positive_matches"], record["negative_matches"], record["pending_review"]) == (2, 1, 0, 1)
        assert record["status"] == "completed" and record["completed_at"] and record["response_deadline"]
        assert record["uploaded_by"].startswith("api_key:") and record["entities_searched"] == 2

    def test_paging(self, officer):
        for i in range(3):
            upload(officer, HEADER + f"Person Number{i},,,,,,,,,,\n")
        body = files(officer, limit=2, offset=1)
        assert (body["total"], len(body["files"]), body["limit"], body["offset"], body["has_more"]) == (3, 2, 2, 1, False)
        assert officer.get(f"{BASE}/files", {"limit": 101}).status_code == 422
        assert officer.get(f"{BASE}/files", {"colour": "red"}).status_code == 422

    def test_viewer_and_l1_are_refused(self, api, key, org):
        for role in ("viewer", "l1_analyst"):
            assert api(key(org, role=role)).get(f"{BASE}/files").status_code == 403


class TestMatchesList:
    def test_the_match_record(self, org, uploaded, officer):
        john = entity(org, "John Smith", tax_id="123456789")
        file_id = uploaded(HEADER + "\"SMITH, JOHN\",123-45-6789,1980-01-02,1 Main St,Springfield,IL,62701,,,Individual,\n",
                           name="list.csv").json()["file_id"]
        body = officer.get(f"{BASE}/files/{file_id}/matches").json()
        assert body["file_id"] == file_id and body["total"] == 1 and body["file_status"] == "completed"
        (record,) = body["matches"]
        assert record["subject"] == {"name": "SMITH, JOHN", "alt_names": [], "address": "1 Main St, Springfield, IL 62701",
                                     "id_number": "•••••6789", "tracking_number": f"{timezone.now():%Y%m%d}-00002",
                                     "type": "Individual", "date_of_birth": "1980-01-02"}
        assert record["matched_entity"] == {"entity_id": str(john.pk), "legal_name": "John Smith", "jurisdiction": "US",
                                            "match_score": 1.0, "match_fields": ["ssn_itin", "name"]}
        assert (record["review_status"], record["reviewed_at"], record["reviewer"], record["notes"]) == ("pending", None, None, None)

    def test_filter_and_other_tenants(self, api, key, org, other_org, uploaded, officer):
        entity(org, "John Smith")
        file_id = uploaded(HEADER + "John Smith,,,,,,,,,,\n").json()["file_id"]
        assert officer.get(f"{BASE}/files/{file_id}/matches", {"review_status": "positive"}).json()["total"] == 0
        assert officer.get(f"{BASE}/files/{file_id}/matches", {"review_status": "maybe"}).status_code == 422
        for client in (api(key(other_org, role="admin")), api(key(org, role="admin", mode="live"))):
            response = client.get(f"{BASE}/files/{file_id}/matches")
            assert response.status_code == 404 and response.json()["error"]["code"] == "NOT_FOUND"
        assert officer.get(f"{BASE}/files/{uuid.uuid4()}/matches").status_code == 404


class TestReview:
    @pytest.fixture
    def found(self, org, uploaded):
        entity(org, "John Smith")
        uploaded(HEADER + "John Smith,,,,,,,,,,\n")
        return Fincen314aMatch.objects.get()

    def review(self, client, found, **body):
        return client.post(f"{BASE}/matches/{found.pk}/review", body, format="json")

    def test_positive(self, api, key, org, found):
        response = self.review(api(key(org, role="l2_investigator")), found, result="positive", notes="DOB and address agree")
        assert response.status_code == 200, response.json()
        body = response.json()
        found.refresh_from_db()
        assert body == {"match_id": str(found.pk), "review_status": "positive", "notes": "DOB and address agree",
                        "reviewed_at": body["reviewed_at"], "reviewer": found.reviewer}
        assert found.review_status == "positive" and found.reviewed_at and found.reviewer.startswith("api_key:")
        entry = AuditLogEntry.objects.get(action="fincen_314a.match_reviewed")
        assert entry.object_id == str(found.pk) and entry.after["review_status"] == "positive"

    def test_a_second_review_is_a_conflict(self, officer, found):
        assert self.review(officer, found, result="negative", notes="Different DOB").status_code == 200
        again = self.review(officer, found, result="positive", notes="Changed my mind")
        assert again.status_code == 409 and again.json()["error"]["code"] == "CONFLICT"
        found.refresh_from_db()
        assert (found.review_status, found.notes) == ("negative", "Different DOB")
        assert AuditLogEntry.objects.filter(action="fincen_314a.match_reviewed").count() == 1

    @pytest.mark.parametrize(("body", "field"), [
        ({"result": "positive"}, "notes"), ({"result": "positive", "notes": "  "}, "notes"), ({"result": "maybe", "notes": "x"}, "result"),
        ({"notes": "x"}, "result"), ({"result": "positive", "notes": "x", "extra": 1}, "extra"),
    ])
    def test_bad_bodies(self, officer, found, body, field):
        assert field in {d["field"] for d in errors(self.review(officer, found, **body))}
        found.refresh_from_db()
        assert found.review_status == "pending"

    def test_roles_and_tenancy(self, api, key, org, other_org, found):
        assert self.review(api(key(org, role="l1_analyst")), found, result="positive", notes="x").status_code == 403
        for client in (api(key(other_org, role="admin")), api(key(org, role="admin", mode="live"))):
            assert self.review(client, found, result="positive", notes="x").status_code == 404
        found.refresh_from_db()
        assert found.review_status == "pending"
