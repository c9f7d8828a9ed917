"""`manage.py refresh_sanctions` and the refresh service against a real publisher on loopback
(tests/onboarding/publisher.py) serving the bundled OFAC SDN snapshot, as is or changed: loaded,
unchanged, refused and failed refreshes, what each stores, prints and exits with, the lists-changed
notification, the failures /health reads, the beat task, and SANCTIONS_URL_<SOURCE>_<FILE>."""

import dataclasses
import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from common.models import AuditLogEntry
from config.celery import app as celery_app
from config.env import SanctionsUrls
from onboarding import tasks
from onboarding.models import SanctionsEntry, SanctionsList, SanctionsListVersion, SanctionsRefresh
from onboarding.sanctions import registry
from onboarding.sanctions.records import content_hash
from onboarding.sanctions.refresh import USER_AGENT, sanctions_list_refresh, scheduled_sources
from onboarding.sanctions.registry import list_spec, list_urls, snapshot_blobs
from onboarding.sanctions.selectors import refresh_failures
from onboarding.screening import on_lists_changed, remove_lists_changed
from tests.onboarding.publisher import Publisher

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sanctions_lists", "fresh_index")]

OFAC = list_spec("ofac_sdn")
UN = list_spec("un_consolidated")
BUNDLED = registry.bundled_specs()
BUNDLED_SOURCES = ["bis_dpl", "ofac_consolidated", "ofac_sdn", "un_consolidated", "us_csl"]
NEW_ROW = b'99999,"TESTOVSKY, Boris Ignatievich","individual","SDGT",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"DOB 1961; nationality Russia."\r\n'
BNC = (b"\"a.k.a. 'BNC'.\"", b"\"a.k.a. 'BNC'; a.k.a. 'BANCUBA'.\"")
OFAC_ENTRIES = 8976


@pytest.fixture
def publisher(settings):
    """The publisher on loopback serving the bundled snapshot of every bundled list, and SANCTIONS_URLS pointing at it."""
    with Publisher() as server:
        for spec in BUNDLED:
            server.serve_snapshot(spec)
        settings.SANCTIONS_URLS = server.urls(*BUNDLED)
        yield server


@pytest.fixture
def calls():
    """The lists-changed notifications received during the test (a callback registered for it)."""
    received = []

    def callback(changes):
        received.append(changes)

    on_lists_changed(callback)
    yield received
    remove_lists_changed(callback)


@pytest.fixture
def snapshot() -> dict[str, bytes]:
    """The bundled OFAC files as the publisher serves them (decompressed)."""
    return snapshot_blobs(OFAC)[0]


def edited(blobs: dict[str, bytes], *, drop=(), replace: tuple[bytes, bytes] | None = None, append: bytes = b"") -> dict[str, bytes]:
    """The OFAC files with every row of the `drop` uids gone (from each file, as the publisher would
    delist), a text replaced in sdn.csv and a row added before its end-of-file byte."""
    drop = {str(uid).encode() for uid in drop}
    files = {}
    for name, blob in blobs.items():
        lines = [line for line in blob.splitlines(keepends=True) if line.split(b",", 1)[0] not in drop]
        files[name] = b"".join(lines)
    sdn = files["sdn.csv"]
    if replace:
        assert replace[0] in sdn
        sdn = sdn.replace(replace[0], replace[1])
    eof = sdn.rindex(b"\x1a")
    files["sdn.csv"] = sdn[:eof] + append + sdn[eof:]
    return files


def run(*args) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("refresh_sanctions", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def run_failing(*args) -> tuple[str, str, CommandError]:
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError) as raised:
        call_command("refresh_sanctions", *args, stdout=out, stderr=err)
    assert raised.value.returncode == 1  # manage.py's exit status
    return out.getvalue(), err.getvalue(), raised.value


def ofac() -> SanctionsList:
    return SanctionsList.objects.get(source="ofac_sdn")


def ofac_entries() -> int:
    return SanctionsEntry.objects.filter(sanctions_list__source="ofac_sdn").count()


def last_refresh(source: str = "ofac_sdn") -> SanctionsRefresh:
    return SanctionsRefresh.objects.filter(source=source).order_by("-started_at").first()


def assert_kept(before: SanctionsList) -> None:
    """The list in force is untouched: same content, same load, same entries, no new version."""
    after = ofac()
    assert (after.content_hash, after.loaded_at, after.entry_count) == (before.content_hash, before.loaded_at, OFAC_ENTRIES)
    assert ofac_entries() == OFAC_ENTRIES
    assert list(after.versions.values_list("number", flat=True)) == [1]


def test_the_publishers_files_as_bundled_are_unchanged(publisher, calls, django_capture_on_commit_callbacks):
    before, audit_rows = ofac(), AuditLogEntry.objects.count()
    with django_capture_on_commit_callbacks(execute=True):
        out, err = run("--list", "ofac_sdn")

    assert err == ""
    assert f"ofac_sdn: downloading {publisher.url('ofac_sdn', 'sdn.csv')}" in out
    assert "ofac_sdn: sdn.csv: 2,013,896 bytes in" in out and "ofac_sdn: sdn_comments.csv: 2,256 bytes in" in out
    assert "ofac_sdn: parsed 8976 entries, 23280 names, 13837 addresses, 97 digital-currency addresses; 0 malformed rows" in out
    assert "ofac_sdn: unchanged: the publisher's files are those of version 1\n" in out and "1 list(s) refreshed." in out
    after = ofac()
    assert after.loaded_at == before.loaded_at and after.checked_at > before.checked_at
    assert (after.last_refresh_outcome, after.last_refresh_error, after.refresh_failures) == ("unchanged", "", 0)
    assert SanctionsListVersion.objects.filter(sanctions_list=after).count() == 1 and ofac_entries() == OFAC_ENTRIES
    refresh = last_refresh()
    assert (refresh.outcome, refresh.trigger, refresh.version, refresh.urls) == ("unchanged", "command", None,
                                                                                 list(publisher.urls(OFAC)["ofac_sdn"].values()))
    assert refresh.finished_at >= refresh.started_at and after.last_refresh_at == refresh.finished_at
    assert calls == []
    assert AuditLogEntry.objects.count() == audit_rows
    assert {request["user_agent"] for request in publisher.requests} == {USER_AGENT}
    assert sorted(request["path"] for request in publisher.requests) == sorted(f"/ofac_sdn/{name}" for name in OFAC.files)


def test_make_runs_bundled_load_does_not_roll_a_refreshed_list_back(publisher, snapshot, calls, django_capture_on_commit_callbacks):
    publisher.serve("ofac_sdn", edited(snapshot, append=NEW_ROW))  # the publisher designated 99999 since the snapshot
    with django_capture_on_commit_callbacks(execute=True):
        run("--list", "ofac_sdn")
    assert ofac().entry_count == OFAC_ENTRIES + 1

    out = io.StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_sanctions", stdout=out)  # what make run does on every start

    assert "ofac_sdn: kept, not replaced by the bundled snapshot: version 2 in force came from a download on " in out.getvalue()
    assert "un_consolidated: unchanged" in out.getvalue()  # the others are loaded as before
    after = ofac()
    assert (after.entry_count, list(after.versions.values_list("number", flat=True))) == (OFAC_ENTRIES + 1, [2, 1])
    assert SanctionsEntry.objects.filter(sanctions_list__source="ofac_sdn", uid="99999").exists() and len(calls) == 1

    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_sanctions", "--list", "ofac_sdn", "--replace", "--allow-shrink", stdout=io.StringIO())
    assert ofac().entry_count == OFAC_ENTRIES and ofac().versions.first().origin == "bundled"  # asked for: the snapshot again


def test_a_changed_list_is_loaded_as_a_new_version(publisher, snapshot, calls, django_capture_on_commit_callbacks):
    files = edited(snapshot, drop=["36"], replace=BNC, append=NEW_ROW)
    publisher.serve("ofac_sdn", files)
    changed_before = SanctionsEntry.objects.get(sanctions_list__source="ofac_sdn", uid="306")

    with django_capture_on_commit_callbacks(execute=True):
        out, err = run("--list", "ofac_sdn")

    assert err == "" and "ofac_sdn: loaded as version 2: 1 added, 1 changed, 1 removed\n" in out
    after = ofac()
    assert (after.content_hash, after.entry_count, ofac_entries()) == (content_hash(files), OFAC_ENTRIES, OFAC_ENTRIES)
    assert (after.last_refresh_outcome, after.refresh_failures) == ("loaded", 0)
    version = after.versions.get(number=2)
    assert version.origin == "download" and version.entry_count == OFAC_ENTRIES
    assert version.added == [{"uid": "99999", "name": "TESTOVSKY, Boris Ignatievich"}]
    assert [entry["uid"] for entry in version.changed] == ["306"] and [entry["uid"] for entry in version.removed] == ["36"]
    assert version.source_files == [publisher.url("ofac_sdn", name) for name in OFAC.files]
    refresh = last_refresh()
    assert (refresh.outcome, refresh.version, refresh.message) == ("loaded", version, "loaded as version 2: 1 added, 1 changed, 1 removed")
    # Told once, after the commit, with exactly the diff.
    assert len(calls) == 1 and len(calls[0]) == 1
    change = calls[0][0]
    assert (change.source, change.added_uids, change.changed_uids, change.removed_uids, change.content_hash) == (
        "ofac_sdn", ["99999"], ["306"], ["36"], content_hash(files))
    assert SanctionsEntry.objects.get(pk=changed_before.pk).version_hash != changed_before.version_hash
    assert not SanctionsEntry.objects.filter(sanctions_list__source="ofac_sdn", uid="36").exists()
    audit = AuditLogEntry.objects.get(action="sanctions_list.refresh_loaded")
    assert (audit.actor_type, audit.object_id, audit.after["version"], audit.after["trigger"]) == ("system", str(refresh.pk), 2, "command")
    assert AuditLogEntry.objects.filter(action="sanctions_list.loaded", after__origin="download").count() == 1

    # The same files again: nothing more.
    with django_capture_on_commit_callbacks(execute=True):
        out, _err = run("--list", "ofac_sdn")
    assert "ofac_sdn: unchanged: the publisher's files are those of version 2" in out and len(calls) == 1


def test_a_truncated_file_is_refused_and_the_list_kept(publisher, snapshot, calls, django_capture_on_commit_callbacks):
    before = ofac()
    sdn = snapshot["sdn.csv"]
    publisher.serve("ofac_sdn", {**snapshot, "sdn.csv": sdn[: len(sdn) // 2]})  # cut mid-file: no end-of-file byte

    with django_capture_on_commit_callbacks(execute=True):
        out, err, error = run_failing("--list", "ofac_sdn")

    line = ("ofac_sdn: refused: refusing to load incomplete files, the list is kept as it was: sdn.csv does not end with OFAC's "
            "end-of-file byte (0x1A): the download was cut short; version 1 stays in force")
    assert err.strip() == line and line in str(error) and "1 problem(s) refreshing 1 list(s)" in str(error)
    assert "ofac_sdn: parsed" in out  # parsed, then refused by the loader
    assert_kept(before)
    after = ofac()
    assert (after.last_refresh_outcome, after.refresh_failures) == ("refused", 1)
    assert after.last_refresh_error.startswith("refusing to load incomplete files") and after.last_refresh_at is not None
    refresh = last_refresh()
    assert (refresh.outcome, refresh.version, refresh.message) == ("refused", None, after.last_refresh_error)
    assert AuditLogEntry.objects.get(action="sanctions_list.refresh_refused").after["message"] == after.last_refresh_error
    assert calls == []


def test_a_urls_user_password_and_query_are_never_shown_or_stored(publisher, snapshot, settings, client):
    publisher.serve("ofac_sdn", {name: blob for name, blob in snapshot.items() if name != "sdn.csv"})
    plain = publisher.url("ofac_sdn", "sdn.csv")
    secret = plain.replace("http://", "http://mirroruser:S3cretPw@") + "?token=abc123"
    settings.SANCTIONS_URLS = {**settings.SANCTIONS_URLS, "ofac_sdn": {**settings.SANCTIONS_URLS["ofac_sdn"], "sdn.csv": secret}}

    out, err, _error = run_failing("--list", "ofac_sdn")

    refresh = last_refresh()
    assert err.strip() == f"ofac_sdn: failed: {plain}: HTTP 404 (not served)" and plain in refresh.urls
    stored = [out, err, refresh.message, str(refresh.urls), ofac().last_refresh_error, client.get("/health").content.decode(),
              str(list(AuditLogEntry.objects.filter(action__startswith="sanctions_list.refresh").values_list("after", flat=True)))]
    assert not [text for text in stored if "S3cretPw" in text or "abc123" in text or "mirroruser" in text]


def test_a_404_for_the_required_file_fails(publisher, snapshot):
    before = ofac()
    publisher.serve("ofac_sdn", {name: blob for name, blob in snapshot.items() if name != "sdn.csv"})

    out, err, _error = run_failing("--list", "ofac_sdn")

    url = publisher.url("ofac_sdn", "sdn.csv")
    assert err.strip() == f"ofac_sdn: failed: {url}: HTTP 404 (not served)"
    assert f"ofac_sdn: downloading {url}" in out and "parsed" not in out
    assert_kept(before)
    after = ofac()
    assert (after.last_refresh_outcome, after.refresh_failures, after.last_refresh_error) == ("failed", 1, f"{url}: HTTP 404 (not served)")
    assert last_refresh().outcome == "failed" and AuditLogEntry.objects.filter(action="sanctions_list.refresh_failed").count() == 1


def test_a_server_error_fails_and_other_lists_are_still_refreshed(publisher):
    publisher.files.pop("/un_consolidated/consolidated.xml")
    out, err, error = run_failing()  # SANCTIONS_REFRESH_LISTS unset: every bundled list, each tried
    assert "ofac_sdn: unchanged" in out
    assert "un_consolidated: failed: " in err and "HTTP 404" in err and "1 problem(s) refreshing 5 list(s)" in str(error)
    assert SanctionsList.objects.get(source="un_consolidated").refresh_failures == 1 and ofac().refresh_failures == 0


def test_a_time_out_fails(publisher, settings):
    before = ofac()
    settings.SANCTIONS_DOWNLOAD_TIMEOUT = 0.3
    publisher.delays["/ofac_sdn/sdn.csv"] = 1.5

    _out, err, _error = run_failing("--list", "ofac_sdn")

    assert err.strip() == (f"ofac_sdn: failed: {publisher.url('ofac_sdn', 'sdn.csv')}: timed out (no answer within 0.3 s, "
                           "SANCTIONS_DOWNLOAD_TIMEOUT)")
    assert_kept(before)
    assert (ofac().last_refresh_outcome, ofac().refresh_failures) == ("failed", 1)


def test_a_file_over_the_size_cap_fails(publisher, settings):
    settings.SANCTIONS_DOWNLOAD_MAX_BYTES = 1_000_000
    refresh = sanctions_list_refresh(source="ofac_sdn")
    assert refresh.outcome == "failed"
    assert refresh.message == f"{publisher.url('ofac_sdn', 'sdn.csv')}: 2,013,896 bytes, more than the 1,000,000 allowed " \
                              "(SANCTIONS_DOWNLOAD_MAX_BYTES)"
    assert ofac().entry_count == OFAC_ENTRIES


def test_only_http_and_https_are_downloaded(settings):
    settings.SANCTIONS_URLS = {"ofac_sdn": {name: "file:///etc/passwd" for name in OFAC.files}}  # nothing reaches the network
    refresh = sanctions_list_refresh(source="ofac_sdn")
    assert (refresh.outcome, refresh.message) == ("failed", "file:///etc/passwd: only http and https URLs are downloaded")


def test_a_connection_refused_fails(settings):
    with Publisher() as gone:
        url = gone.url("ofac_sdn", "sdn.csv")
    settings.SANCTIONS_URLS = gone.urls(OFAC)
    refresh = sanctions_list_refresh(source="ofac_sdn")
    assert refresh.outcome == "failed" and refresh.message.startswith(f"{url}: connection failed: ")


def test_a_list_that_fell_by_half_is_refused_unless_forced(publisher, snapshot, calls, django_capture_on_commit_callbacks):
    before = ofac()
    uids = [line.split(b",", 1)[0].decode() for line in snapshot["sdn.csv"].splitlines() if line[:1].isdigit()]
    assert len(uids) == OFAC_ENTRIES
    delisted = uids[::2]
    publisher.serve("ofac_sdn", edited(snapshot, drop=delisted))

    with django_capture_on_commit_callbacks(execute=True):
        _out, err, _error = run_failing("--list", "ofac_sdn")

    assert err.strip() == ("ofac_sdn: refused: the list would fall by 50 % (4,488 of its 8,976 entries removed, more than the 10 % "
                           "allowed): version 1 stays in force. If the publisher really delisted them, refresh with --force "
                           "(manage.py refresh_sanctions --list ofac_sdn --force)")
    assert_kept(before)
    assert (ofac().last_refresh_outcome, ofac().refresh_failures) == ("refused", 1) and calls == []

    with django_capture_on_commit_callbacks(execute=True):
        out, err = run("--list", "ofac_sdn", "--force")

    assert err == "" and "ofac_sdn: loaded as version 2: 0 added, 0 changed, 4488 removed" in out
    after = ofac()
    assert (after.entry_count, ofac_entries(), after.last_refresh_outcome, after.refresh_failures) == (4488, 4488, "loaded", 0)
    assert sorted(entry["uid"] for entry in after.versions.get(number=2).removed) == sorted(delisted)
    assert len(calls) == 1 and sorted(calls[0][0].removed_uids) == sorted(delisted)


def test_a_good_refresh_resets_the_failures(publisher, snapshot):
    sdn = publisher.files.pop("/ofac_sdn/sdn.csv")
    first = sanctions_list_refresh(source="ofac_sdn", trigger="beat")
    sanctions_list_refresh(source="ofac_sdn", trigger="beat")
    assert (ofac().last_refresh_outcome, ofac().refresh_failures) == ("failed", 2)
    [failure] = refresh_failures()
    assert (failure.source, failure.name, failure.outcome, failure.failures) == ("ofac_sdn", OFAC.name, "failed", 2)
    assert failure.since == first.started_at and failure.error == ofac().last_refresh_error
    assert failure.as_dict()["since"] == first.started_at.isoformat()

    publisher.files["/ofac_sdn/sdn.csv"] = sdn
    good = sanctions_list_refresh(source="ofac_sdn", trigger="beat")

    assert good.outcome == "unchanged"
    after = ofac()
    assert (after.last_refresh_outcome, after.last_refresh_error, after.refresh_failures) == ("unchanged", "", 0)
    assert refresh_failures() == []
    assert list(SanctionsRefresh.objects.filter(source="ofac_sdn").order_by("started_at").values_list("outcome", flat=True)) == [
        "failed", "failed", "unchanged"]


def test_a_list_never_loaded_records_its_failure_and_then_loads(publisher, snapshot, calls, django_capture_on_commit_callbacks):
    SanctionsList.objects.filter(source="un_consolidated").delete()  # as an EU list before its first download
    xml = publisher.files.pop("/un_consolidated/consolidated.xml")

    refresh = sanctions_list_refresh(source="un_consolidated")

    assert (refresh.outcome, refresh.finished_at is not None) == ("failed", True)
    assert not SanctionsList.objects.filter(source="un_consolidated").exists()
    assert [failure.source for failure in refresh_failures()] == ["un_consolidated"]

    publisher.files["/un_consolidated/consolidated.xml"] = xml
    with django_capture_on_commit_callbacks(execute=True):
        loaded = sanctions_list_refresh(source="un_consolidated")

    assert (loaded.outcome, loaded.message) == ("loaded", "loaded as version 1: 1003 added, 0 changed, 0 removed")
    stored = SanctionsList.objects.get(source="un_consolidated")
    assert (stored.entry_count, stored.last_refresh_outcome, stored.refresh_failures) == (1003, "loaded", 0)
    assert refresh_failures() == [] and [change.source for change in calls[0]] == ["un_consolidated"]


def test_an_optional_file_not_served_is_skipped_unless_the_version_in_force_had_it(publisher, snapshot, calls,
                                                                                   django_capture_on_commit_callbacks):
    before = ofac()
    publisher.files.pop("/ofac_sdn/alt.csv")  # every alias would go

    refused = sanctions_list_refresh(source="ofac_sdn")

    assert refused.outcome == "refused" and refused.message.startswith("alt.csv could not be had (no URL or HTTP 404) but the "
                                                                       "version in force was read from it")
    assert refused.message.endswith("--force (manage.py refresh_sanctions --list ofac_sdn --force); version 1 stays in force")
    assert_kept(before)

    publisher.files.pop("/ofac_sdn/sdn_comments.csv")
    publisher.files["/ofac_sdn/alt.csv"] = snapshot["alt.csv"]
    with django_capture_on_commit_callbacks(execute=True):
        out, _err = run("--list", "ofac_sdn", "--force")  # the publisher really dropped the comments file
    assert "HTTP 404 (not served); sdn_comments.csv is optional, skipped" in out and "ofac_sdn: loaded as version 2: 0 added" in out
    assert ofac().versions.get(number=2).source_files == [publisher.url("ofac_sdn", name) for name in ("sdn.csv", "add.csv", "alt.csv")]

    # The version in force no longer has it: its 404 is skipped without --force.
    assert sanctions_list_refresh(source="ofac_sdn").outcome == "unchanged"


def test_a_parser_error_fails(publisher, monkeypatch):
    def broken(blobs):
        raise KeyError("SDN_Name")

    monkeypatch.setitem(registry.KNOWN, "ofac_sdn", dataclasses.replace(OFAC, parse=broken))  # a ListSpec is frozen
    refresh = sanctions_list_refresh(source="ofac_sdn")
    assert (refresh.outcome, refresh.message) == ("failed", "the files could not be parsed: KeyError: 'SDN_Name'")
    assert ofac().entry_count == OFAC_ENTRIES


def test_an_unknown_scheduled_list_is_recorded_as_failed(publisher, settings):
    settings.SANCTIONS_REFRESH_LISTS = ["ofac_sdn", "ofax_sdn"]
    _out, err, _error = run_failing()
    assert "ofax_sdn: failed: No list 'ofax_sdn'" in err
    assert last_refresh("ofax_sdn").outcome == "failed"
    with pytest.raises(CommandError, match="No list 'nope'"):
        run("--list", "nope")


def test_the_beat_task_refreshes_the_scheduled_lists(publisher, settings, snapshot, calls, django_capture_on_commit_callbacks):
    celery_app.finalize()  # as beat does at start
    entry = celery_app.conf.beat_schedule["onboarding.refresh_sanctions"]
    assert entry == {"task": "onboarding.refresh_sanctions", "schedule": 86400.0}
    assert sorted(scheduled_sources()) == BUNDLED_SOURCES  # by default the bundled lists
    settings.SANCTIONS_REFRESH_LISTS = ["ofac_sdn"]
    publisher.serve("ofac_sdn", edited(snapshot, append=NEW_ROW))

    with django_capture_on_commit_callbacks(execute=True):
        tasks.refresh_sanctions.delay()  # eager in the tests: each list's task runs at once

    assert list(SanctionsRefresh.objects.values_list("source", "trigger", "outcome")) == [("ofac_sdn", "beat", "loaded")]
    assert ofac().entry_count == OFAC_ENTRIES + 1 and calls[0][0].added_uids == ["99999"]

    settings.SANCTIONS_REFRESH_LISTS = []
    tasks.refresh_sanctions.delay()
    assert sorted(SanctionsRefresh.objects.filter(outcome="unchanged").values_list("source", "trigger")) == [
        (source, "beat") for source in BUNDLED_SOURCES]


def test_urls_come_from_the_environment(settings):
    settings.SANCTIONS_PUBLISHER_URLS = True  # the suite's default is off: no test may reach a publisher
    settings.SANCTIONS_URLS = SanctionsUrls({"SANCTIONS_URL_OFAC_SDN_SDN_CSV": "https://mirror.example/sdn.csv",
                                            "SANCTIONS_URL_UN_CONSOLIDATED_CONSOLIDATED_XML": " https://mirror.example/un.xml ",
                                            "SANCTIONS_URL_OFAC_SDN_ADD_CSV": "", "PATH": "/usr/bin"})
    urls = list_urls(OFAC)
    assert urls["sdn.csv"] == "https://mirror.example/sdn.csv"
    assert urls["add.csv"] == OFAC.urls["add.csv"] and urls["alt.csv"] == OFAC.urls["alt.csv"]  # unset or empty: the publisher's
    assert list_urls(UN) == {"consolidated.xml": "https://mirror.example/un.xml"}
    assert SanctionsUrls({}).get("ofac_sdn") is None and not SanctionsUrls({"PATH": "/usr/bin"})
    settings.SANCTIONS_PUBLISHER_URLS = False  # mirrors only: a file without a configured URL has none
    assert list_urls(OFAC) == {"sdn.csv": "https://mirror.example/sdn.csv"}
