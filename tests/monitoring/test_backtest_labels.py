"""Backtests scored against labels (uploaded ones and alert dispositions), the parameter sweep, the
jobs run in a worker, and the label upload (POST /v1/monitoring/labels)."""

from datetime import UTC, datetime

import pytest

from common.principal import Principal
from monitoring.alerts.services import alert_dispose
from monitoring.ingestion.services import transactions_ingest_batch
from monitoring.models import Alert, AssetPrice, BacktestJob, EntityLabel
from onboarding.models import Entity, Wallet

pytestmark = pytest.mark.django_db
URL = "/v1/monitoring/rules/large_transfer/backtest"
LABELS = "/v1/monitoring/labels"
RANGE = {"from_date": "2026-01-01T00:00:00Z", "to_date": "2026-02-01T00:00:00Z"}
AMOUNTS = ["6000", "11000", "25000", "12000", "3000", "15000", "20000"]


def _transfer(i: int, amount: str) -> dict:
    return {"chain_id": 1, "from_address": f"0x{i + 1:040x}", "to_address": f"0x{999:040x}", "amount": amount, "asset": "USDC",
            "timestamp": datetime(2026, 1, 10 + i, 12, tzinfo=UTC), "tx_hash": f"0x{i:x}", "log_index": 0}


@pytest.fixture
def book(org):
    """Seven customers C0..C6, one outgoing transfer each (AMOUNTS, USD). C5 and C6 were monitored:
    their large_transfer alerts are disposed true_positive (C5) and false_positive (C6); the others
    are stored unmonitored. Uploaded labels: C0 positive (structuring), C1 and C4 positive (fan_in),
    C2 negative; C3 has none."""
    AssetPrice.objects.update_or_create(organization=org, asset="USDC", defaults={"usd_rate": 1})
    ids = []
    for i in range(len(AMOUNTS)):
        entity = Entity.objects.create(organization=org, mode="test", legal_name=f"C{i}", entity_type="business", jurisdiction="US",
                                       external_id=f"ext-{i}")
        Wallet.objects.create(organization=org, mode="test", entity=entity, chain_id=1, address=f"0x{i + 1:040x}")
        ids.append(str(entity.pk))
    system = Principal.system(org, "test")
    transactions_ingest_batch(principal=system, items=[_transfer(i, AMOUNTS[i]) for i in range(5)], run_monitoring=False)
    transactions_ingest_batch(principal=system, items=[_transfer(i, AMOUNTS[i]) for i in (5, 6)], run_monitoring=True)
    for index, disposition in ((5, "true_positive"), (6, "false_positive")):
        alert = Alert.objects.get(entity_id=ids[index], rule_code="large_transfer")
        alert_dispose(principal=system, alert_id=alert.pk, disposition=disposition, notes="reviewed the counterparty")
    EntityLabel.objects.bulk_create([
        EntityLabel(organization=org, mode="test", entity_id=ids[0], label="positive", typology="structuring"),
        EntityLabel(organization=org, mode="test", entity_id=ids[1], label="positive", typology="fan_in"),
        EntityLabel(organization=org, mode="test", entity_id=ids[4], label="positive", typology="fan_in"),
        EntityLabel(organization=org, mode="test", entity_id=ids[2], label="negative"),
    ])
    return ids


class TestMetrics:
    def test_precision_and_recall_are_those_computed_by_hand(self, api, org, key, book):
        """Current (10,000): flagged C1 C2 C3 C5 C6; positives C0 C1 C4 C5 → TP C1 C5, FP C2 C6 (C3 unlabelled):
        precision 2/4, recall 2/4. Candidate (5,000): C0 too → TP 3, FP 2: precision 3/5, recall 3/4, F1 2·.6·.75/1.35."""
        alerts_before = Alert.objects.count()
        response = api(key(org)).post(URL, {"parameters": {"threshold_usd": "5000"}, **RANGE}, format="json")
        body = response.json()
        assert response.status_code == 200, body
        assert body["labels"] == {"entities": 7, "positives": 4, "negatives": 2, "typologies": {"fan_in": 2, "structuring": 1}}
        current, candidate = body["metrics"]["current"], body["metrics"]["candidate"]
        assert {name: current[name] for name in ("alerts", "flagged_entities", "true_positives", "false_positives", "unlabelled_flagged",
                                                 "precision", "recall", "f1", "alerts_per_1000_entities")} == {
            "alerts": 5, "flagged_entities": 5, "true_positives": 2, "false_positives": 2, "unlabelled_flagged": 1,
            "precision": 0.5, "recall": 0.5, "f1": 0.5, "alerts_per_1000_entities": 714.29}
        assert (candidate["true_positives"], candidate["false_positives"]) == (3, 2)
        assert (candidate["precision"], candidate["recall"], candidate["f1"]) == (0.6, 0.75, 0.6667)
        assert candidate["alerts_per_1000_entities"] == 857.14
        assert candidate["per_typology"] == {
            "fan_in": {"positives": 2, "true_positives": 1, "recall": 0.5, "precision": 0.3333, "f1": 0.4},
            "structuring": {"positives": 1, "true_positives": 1, "recall": 1.0, "precision": 0.3333, "f1": 0.5},
        }
        assert body["dispositions"] == {"alerts": 2, "undisposed": 0, "true_positive": 1, "false_positive": 1, "inconclusive": 0,
                                        "precision": 0.5}
        assert Alert.objects.count() == alerts_before  # a backtest creates nothing

    def test_an_uploaded_label_wins_over_the_dispositions(self, api, org, key, book):
        EntityLabel.objects.create(organization=org, mode="test", entity_id=book[6], label="positive")  # C6 was disposed false_positive
        body = api(key(org)).post(URL, RANGE, format="json").json()
        assert (body["metrics"]["current"]["true_positives"], body["metrics"]["current"]["false_positives"]) == (3, 1)

    def test_without_labels_precision_and_recall_are_null(self, api, org, key, book):
        EntityLabel.objects.all().delete()
        Alert.objects.update(disposition="")
        metrics = api(key(org)).post(URL, RANGE, format="json").json()["metrics"]["current"]
        assert (metrics["precision"], metrics["recall"], metrics["f1"], metrics["unlabelled_flagged"]) == (None, None, None, 5)


class TestSweep:
    def test_every_combination_and_the_best_under_the_constraint(self, api, org, key, book):
        """5,000: precision .6 recall .75; 11,500: C2 C3 C5 C6 → precision 1/3, recall 1/4; 30,000: nothing flagged."""
        body = api(key(org)).post(URL, {**RANGE, "grid": {"threshold_usd": ["5000", "11500", "30000"]},
                                        "objective": {"maximise": "recall", "min_precision": 0.5}}, format="json").json()
        rows = body["sweep"]["combinations"]
        assert [row["parameters"]["threshold_usd"] for row in rows] == ["5000", "11500", "30000"]
        assert [(row["metrics"]["precision"], row["metrics"]["recall"]) for row in rows] == [(0.6, 0.75), (0.3333, 0.25), (None, 0.0)]
        best = body["sweep"]["best"]
        assert best["index"] == 0 and best["parameters"]["threshold_usd"] == "5000" and best["metrics"]["recall"] == 0.75
        assert body["sweep"]["objective"] == {"maximise": "recall", "min_precision": 0.5}
        assert body["metrics"]["current"]["precision"] == 0.5 and body["entities"] == []

    def test_a_grid_of_two_parameters_and_no_combination_within_the_bounds(self, api, org, key, book):
        url = "/v1/monitoring/rules/structuring_below_threshold/backtest"
        body = api(key(org)).post(url, {**RANGE, "grid": {"threshold_usd": ["5000", "9000"], "min_count": [2, 3, 4]},
                                        "objective": {"maximise": "f1", "min_precision": 0.99}}, format="json").json()
        assert [(row["parameters"]["threshold_usd"], row["parameters"]["min_count"]) for row in body["sweep"]["combinations"]] == [
            ("5000", 2), ("5000", 3), ("5000", 4), ("9000", 2), ("9000", 3), ("9000", 4)]
        assert body["sweep"]["best"] is None

    @pytest.mark.parametrize("extra, field", [
        ({"grid": {"threshold_usd": [str(n) for n in range(1000, 52000, 1000)]}}, "grid"),  # 51 combinations
        ({"grid": {"threshold_usd": []}}, "grid.threshold_usd"),
        ({"grid": {"threshold_usd": ["-5"]}}, "grid.threshold_usd"),
        ({"grid": {"nonsense": [1]}}, "grid.nonsense"),
        ({"grid": {"threshold_usd": ["5000"]}, "objective": {"maximise": "alerts"}}, "objective.maximise"),
        ({"grid": {"threshold_usd": ["5000"]}, "objective": {"min_precision": "high"}}, "objective.min_precision"),
        ({"grid": {"threshold_usd": ["5000"]}, "objective": {"min_speed": 1}}, "objective.min_speed"),
        ({"objective": {"maximise": "recall"}}, "objective"),  # no grid to choose from
    ])
    def test_bad_grids_are_a_422(self, api, org, key, book, extra, field):
        response = api(key(org)).post(URL, {**RANGE, **extra}, format="json")
        assert response.status_code == 422 and field in {d["field"] for d in response.json()["error"]["details"]}, response.json()


class TestJobs:
    def test_asynchronous_is_a_202_with_a_job_to_poll(self, api, org, key, book, django_capture_on_commit_callbacks):
        client = api(key(org))
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(URL, {"parameters": {"threshold_usd": "5000"}, **RANGE, "asynchronous": True}, format="json")
        assert response.status_code == 202, response.json()
        job_id = response.json()["id"]
        assert response["Location"] == f"/v1/monitoring/backtests/{job_id}" and response.json()["status"] == "queued"
        job = client.get(response["Location"]).json()
        assert job["status"] == "succeeded" and job["error"] is None and job["finished_at"]
        assert job["result"]["metrics"]["candidate"]["precision"] == 0.6 and job["result"]["events_replayed"] == 7
        assert job["result"]["from_date"] == "2026-01-01T00:00:00Z"
        assert BacktestJob.objects.get(pk=job_id).status == "succeeded"

    def test_a_large_range_goes_to_a_worker(self, api, org, key, book, monkeypatch, django_capture_on_commit_callbacks):
        from monitoring.backtest import services

        monkeypatch.setattr(services, "SYNC_MAX_EVENTS", 5)
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            response = api(key(org)).post(URL, RANGE, format="json")
        assert response.status_code == 202 and len(callbacks) == 1
        assert BacktestJob.objects.get().status == "queued"
        callbacks[0]()
        assert BacktestJob.objects.get().status == "succeeded"
        services.backtest_job_run(job_id=response.json()["id"])  # a second delivery does nothing
        assert BacktestJob.objects.get().result["metrics"]["current"]["recall"] == 0.5

    def test_other_tenants_and_modes_get_a_404_and_roles_are_checked(self, api, org, other_org, key, book,
                                                                     django_capture_on_commit_callbacks):
        with django_capture_on_commit_callbacks(execute=True):
            location = api(key(org)).post(URL, {**RANGE, "asynchronous": True}, format="json")["Location"]
        assert api(key(other_org)).get(location).status_code == 404
        assert api(key(org, mode="live")).get(location).status_code == 404
        assert api(key(org, role="l3_officer")).get(location).status_code == 403
        assert api(key(org, role="l3_officer")).post(URL, {**RANGE, "asynchronous": True}, format="json").status_code == 403
        assert BacktestJob.objects.count() == 1

    def test_the_beat_sweep_hands_a_lost_job_again(self, api, org, key, book, django_capture_on_commit_callbacks):
        from datetime import timedelta

        from django.utils import timezone

        from monitoring import tasks

        with django_capture_on_commit_callbacks(execute=False):  # the message is lost
            job_id = api(key(org)).post(URL, {**RANGE, "asynchronous": True}, format="json").json()["id"]
        tasks.sweep_backtest_jobs.delay()
        assert BacktestJob.objects.get(pk=job_id).status == "queued"  # handed two minutes ago at most: not yet
        BacktestJob.objects.filter(pk=job_id).update(enqueued_at=timezone.now() - timedelta(minutes=3))
        tasks.sweep_backtest_jobs.delay()
        assert BacktestJob.objects.get(pk=job_id).status == "succeeded"

    def test_bad_input_is_refused_before_a_job_is_stored(self, api, org, key, book):
        response = api(key(org)).post(URL, {**RANGE, "asynchronous": True, "parameters": {"threshold_usd": "-1"}}, format="json")
        assert response.status_code == 422 and not BacktestJob.objects.exists()


class TestLabelUpload:
    def test_a_bad_row_gets_its_line_and_the_valid_rows_are_kept(self, api, org, key, book):
        csv = (f"external_id,entity_id,label,typology\n"
               f"ext-1,,positive,cycle\n"
               f",{book[5]},negative,\n"
               f"ext-404,,positive,\n"
               f"ext-2,,maybe,\n"
               f"\n"
               f",{book[6]},true_positive,fan_out\n"
               f"ext-1,,negative,\n").encode()
        response = api(key(org, role="l1_analyst")).post(LABELS, {"file": _upload("labels.csv", csv)}, format="multipart")
        body = response.json()
        assert response.status_code == 200, body
        assert body == {"stored": 3, "created": 2, "updated": 1, "errors": [
            {"line": 4, "message": "no entity of yours has external_id 'ext-404'"},
            {"line": 5, "message": "label must be one of positive, negative, true_positive, false_positive"},
            {"line": 8, "message": "the entity is labelled already at line 2"},
        ]}
        stored = {str(row.entity_id): (row.label, row.typology) for row in EntityLabel.objects.filter(organization=org)}
        assert stored[book[1]] == ("positive", "cycle") and stored[book[5]] == ("negative", "")
        assert stored[book[6]] == ("positive", "fan_out")
        assert stored[book[2]] == ("negative", "")  # line 5 was refused: the earlier label stays

    def test_json_items_are_numbered(self, api, org, key, book):
        response = api(key(org)).post(LABELS, {"labels": [{"external_id": "ext-3", "label": "negative"},
                                                           {"entity_id": "not-a-uuid", "label": "positive"},
                                                           {"label": "positive"}]}, format="json")
        assert response.status_code == 200
        assert response.json()["errors"] == [{"item": 2, "message": "no entity of yours has id 'not-a-uuid'"},
                                             {"item": 3, "message": "entity_id or external_id is required"}]
        assert EntityLabel.objects.get(entity_id=book[3]).label == "negative"

    def test_a_file_without_a_usable_header_is_refused_whole(self, api, org, key, book):
        response = api(key(org)).post(LABELS, {"file": _upload("labels.csv", b"who,what\next-3,positive\n")}, format="multipart")
        assert response.status_code == 422 and response.json()["error"]["details"][0]["field"] == "file"
        assert EntityLabel.objects.count() == 4

    def test_tenancy_and_roles(self, api, org, other_org, key, book):
        body = {"labels": [{"entity_id": book[3], "label": "positive"}]}
        response = api(key(other_org)).post(LABELS, body, format="json")
        assert response.json()["errors"][0]["message"].startswith("no entity of yours has id")  # another tenant's id: unknown
        assert api(key(org, role="viewer")).post(LABELS, body, format="json").status_code == 403
        assert EntityLabel.objects.count() == 4
        listed = api(key(org, role="viewer")).get(LABELS).json()
        assert listed["total"] == 4 and {row["external_id"] for row in listed["data"]} == {"ext-0", "ext-1", "ext-2", "ext-4"}
        assert api(key(other_org)).get(LABELS).json()["total"] == 0


def _upload(name: str, content: bytes):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, content, content_type="text/csv")


class TestLabelConsole:
    """/admin/monitoring/entitylabel/: the labels, and an upload page calling the API's service."""

    def test_upload_shows_the_refused_lines_and_keeps_the_others(self, console, org, book):  # noqa: F811
        from django.urls import reverse

        csv = b"external_id,label,typology\next-3,positive,cycle\next-404,negative,\n"
        response = console.post(reverse("admin:monitoring_entitylabel_upload"), {
            "organization": str(org.pk), "mode": "test", "file": _upload("labels.csv", csv)})
        assert response.status_code == 200
        assert response.context["result"]["errors"] == [{"line": 3, "message": "no entity of yours has external_id 'ext-404'"}]
        assert "no entity of yours has external_id" in response.content.decode()
        assert EntityLabel.objects.get(entity_id=book[3]).typology == "cycle"
        listing = console.get(reverse("admin:monitoring_entitylabel_changelist")).content.decode()
        assert "Upload labels" in listing and "cycle" in listing

    def test_a_clean_file_redirects_and_a_bad_header_is_shown_on_the_form(self, console, org, book):  # noqa: F811
        from django.urls import reverse

        url = reverse("admin:monitoring_entitylabel_upload")
        response = console.post(url, {"organization": str(org.pk), "mode": "test",
                                      "file": _upload("labels.csv", b"external_id,label\next-3,negative\n")})
        assert response.status_code == 302 and EntityLabel.objects.get(entity_id=book[3]).label == "negative"
        response = console.post(url, {"organization": str(org.pk), "mode": "test", "file": _upload("l.csv", b"who,what\n")})
        assert response.status_code == 200 and "file" in response.context["form"].errors


from tests.monitoring.test_configuration_admin import console  # noqa: E402, F401  (fixture)
