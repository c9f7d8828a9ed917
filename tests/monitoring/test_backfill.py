"""backfill: CSV and JSON Lines, invalid lines reported by number, idempotent, resumable; run_monitoring --since."""

import io
import json
import warnings
from datetime import UTC, datetime

import pytest
from django.core.management import CommandError, call_command, execute_from_command_line
from django.db import connections

from monitoring.models import FiatEvent, Transaction
from onboarding.models import Entity, Wallet

pytestmark = pytest.mark.django_db
HEADER = "chain_id,from_address,to_address,amount,asset,timestamp,tx_hash\n"


@pytest.fixture
def customer(org):
    entity = Entity.objects.create(organization=org, mode="live", legal_name="C", entity_type="business", jurisdiction="US")
    Wallet.objects.create(organization=org, mode="live", entity=entity, chain_id=1, address=f"0x{1:040x}")
    return entity


def run(*args) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("backfill", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def rows(n: int, start: int = 0) -> str:
    return "".join(f"1,0x{1:040x},0x{999:040x},{100 + i},USDC,2026-02-01T00:{i % 60:02d}:00Z,0x{i:064x}\n"
                   for i in range(start, start + n))


def run_rejecting(*args) -> tuple[str, str, str]:
    """A run with rejected lines: (stdout, stderr, the closing error)."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError) as failed:
        call_command("backfill", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue(), str(failed.value)


def test_csv_with_a_bad_line_stores_the_rest_unmonitored(org, customer, tmp_path):
    path = tmp_path / "h.csv"
    path.write_text(HEADER + rows(3) + "1,0x12,0xab,-5,USDC,not-a-date,0xbad\n" + rows(2, start=3))
    out, err, failure = run_rejecting(str(path), "--org", org.slug)
    assert [line.split(": ")[:2] for line in err.splitlines()] == [["line 5", "amount"], ["line 5", "timestamp"]]
    assert failure.startswith("1 line(s) rejected, listed above; the other lines are stored.")
    assert Transaction.objects.filter(organization=org, monitored=False).count() == 5
    assert "Done: 5 stored, 0 already there, 1 invalid." in out
    assert "Now run: .venv/bin/python manage.py run_monitoring --org acme --mode live" in out
    assert Transaction.objects.filter(from_entity=customer).count() == 5


def test_a_run_monitoring_column_is_ignored_backfill_never_monitors(org, customer, tmp_path):
    path = tmp_path / "h.csv"
    path.write_text(HEADER.replace("\n", ",run_monitoring\n") + "".join(line + ",true\n" for line in rows(2).splitlines()))
    out, err = run(str(path), "--org", org.slug)
    assert err == "" and "Done: 2 stored, 0 already there, 0 invalid." in out
    assert Transaction.objects.filter(organization=org, monitored=False).count() == 2


def test_rejected_lines_exit_non_zero_and_a_fixed_file_stores_only_them(org, customer, tmp_path, capsys, monkeypatch):
    path = tmp_path / "h.csv"
    path.write_text(HEADER + rows(2) + "1,0x12,0xab,-5,USDC,not-a-date,0xbad\n")
    monkeypatch.setattr(connections, "close_all", lambda: None)  # the command line closes them; the test's transaction goes on
    with pytest.raises(SystemExit) as exit_status:
        execute_from_command_line(["manage.py", "backfill", str(path), "--org", org.slug])
    assert exit_status.value.code == 1
    err = capsys.readouterr().err
    assert "line 4: amount: " in err and "line 4: timestamp: " in err and "CommandError: 1 line(s) rejected" in err
    assert Transaction.objects.count() == 2
    path.write_text(HEADER + rows(3))  # the bad line fixed: a changed file is read again, stored lines skipped
    out, err = run(str(path), "--org", org.slug)
    assert err == "" and "Done: 1 stored, 2 already there, 0 invalid." in out and Transaction.objects.count() == 3


def test_rerun_and_resume(org, customer, tmp_path):
    path = tmp_path / "h.csv"
    path.write_text(HEADER + rows(2500))
    run(str(path), "--org", org.slug)
    out, _ = run(str(path), "--org", org.slug)
    assert "Resuming after line 2501" in out and Transaction.objects.count() == 2500
    out, _ = run(str(path), "--org", org.slug, "--restart")
    assert "0 stored, 2500 already there" in out and Transaction.objects.count() == 2500


def test_json_lines_with_fiat_events(org, customer, tmp_path):
    path = tmp_path / "h.jsonl"
    good = {"entity_id": str(customer.pk), "event_type": "wire_in", "amount": "5000", "event_timestamp": "2026-02-01T10:00:00Z",
            "reference": "W1"}
    path.write_text(json.dumps(good) + "\n{not json\n" + json.dumps({**good, "event_type": "teleport", "reference": "W2"})
                    + "\n5\n" + "[" * 100_000 + "]" * 100_000 + "\n")
    out, err, failure = run_rejecting(str(path), "--org", org.slug)
    assert "line 2: the line is not valid JSON" in err and "line 3: event_type: " in err and failure.startswith("4 line(s) rejected")
    assert "line 4: the line must be a JSON object" in err and "line 5: the line nests objects or arrays more than 64" in err
    assert FiatEvent.objects.get().reference == "W1" and FiatEvent.objects.get().monitored is False


def test_unknown_org_and_file(org, tmp_path):
    with pytest.raises(CommandError):
        run(str(tmp_path / "missing.csv"), "--org", org.slug)
    with pytest.raises(CommandError):
        run(str(tmp_path), "--org", "nope")


class TestRunMonitoringSince:
    TIMES = ["2026-01-31T22:00:00Z", "2026-01-31T23:59:00Z", "2026-02-01T00:00:00Z", "2026-02-01T08:00:00Z"]

    @pytest.fixture
    def stored(self, org, customer, tmp_path):
        path = tmp_path / "h.csv"
        path.write_text(HEADER + "".join(f"1,0x{1:040x},0x{999:040x},100,USDC,{at},0x{i:064x}\n" for i, at in enumerate(self.TIMES)))
        run(str(path), "--org", org.slug)
        return Transaction.objects.filter(organization=org)

    @pytest.mark.parametrize(("since", "cutoff", "evaluated"), [
        ("2026-02-01", "2026-02-01T00:00:00+00:00", 2),                  # a bare date: midnight UTC
        ("2026-02-01T08:00:00", "2026-02-01T08:00:00+00:00", 1),         # no offset: UTC
        ("2026-02-01T01:00:00+02:00", "2026-02-01T01:00:00+02:00", 3),   # its own offset: 23:00 UTC the day before
        ("2026-01-31T23:59:00Z", "2026-01-31T23:59:00+00:00", 3),
    ])
    def test_cutoff_without_a_naive_datetime_warning(self, org, stored, since, cutoff, evaluated):
        out = io.StringIO()
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)  # "received a naive datetime while time zone support is active"
            call_command("run_monitoring", "--org", org.slug, "--since", since, stdout=out)
        assert f"{evaluated} events to evaluate (at or after {cutoff})." in out.getvalue()
        monitored = sorted(tx.timestamp.isoformat().replace("+00:00", "Z") for tx in stored.filter(monitored=True))
        assert monitored == self.TIMES[-evaluated:]

    @pytest.mark.parametrize("since", ["yesterday", "2026-13-01", "2026-02-30", "01/02/2026", ""])
    def test_bad_input_is_a_command_error_and_evaluates_nothing(self, org, stored, since):
        with pytest.raises(CommandError, match="is not a date"):
            call_command("run_monitoring", "--org", org.slug, "--since", since, stdout=io.StringIO())
        assert not stored.filter(monitored=True).exists()

    def test_an_event_stored_before_1970_is_named_and_left_the_others_evaluated(self, org, stored):
        """Stored before ingestion refused such times (a traceback and nothing evaluated before)."""
        early = stored.first()
        Transaction.objects.filter(pk=early.pk).update(timestamp=datetime(1, 1, 2, tzinfo=UTC))
        out, err = io.StringIO(), io.StringIO()
        call_command("run_monitoring", "--org", org.slug, stdout=out, stderr=err)
        assert "3 events to evaluate." in out.getvalue() and "Done: 3 events evaluated." in out.getvalue()
        assert err.getvalue().startswith("1 stored event(s) dated before 1970-01-01 are left unmonitored")
        assert set(stored.filter(monitored=False).values_list("pk", flat=True)) == {early.pk}
