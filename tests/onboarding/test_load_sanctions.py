"""`manage.py load_sanctions`: loading, no-op reloads, atomic replacement, the lists-changed hook,
and the screening index following the database."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from common.models import AuditLogEntry
from onboarding.models import SanctionsEntry, SanctionsList, SanctionsName
from onboarding.sanctions import loader
from onboarding.sanctions.formats.ofac import parse_ofac
from onboarding.sanctions.loader import sanctions_list_load
from onboarding.screening import on_lists_changed, remove_lists_changed, screen_name
from onboarding.screening.index import get_index

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sanctions_load_output", "fresh_index")]

NEW_ROW = '99999,"TESTOVSKY, Boris Ignatievich","individual","SDGT",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"DOB 1961; nationality Russia."\r\n'


@pytest.fixture
def calls():
    """A lists-changed callback registered for the test: the list of calls it received."""
    received = []

    def callback(changes):
        received.append(changes)

    on_lists_changed(callback)
    yield received
    remove_lists_changed(callback)


def load(*args) -> str:
    out = io.StringIO()
    call_command("load_sanctions", *args, stdout=out)
    return out.getvalue()


def edit_sdn(directory, *, drop: str = "", replace: tuple[str, str] | None = None, append: str = "") -> None:
    """Change the copy's sdn.csv: drop the row of one ent_num, rewrite text, append a row."""
    path = directory / "sdn.csv"
    lines = path.read_text().splitlines(keepends=True)
    lines = [line for line in lines if not (drop and line.startswith(f"{drop},"))]
    text = "".join(lines)
    if replace:
        assert replace[0] in text
        text = text.replace(replace[0], replace[1])
    eof = text.rindex("\x1a")
    path.write_text(text[:eof] + append + text[eof:])


def ofac_list() -> SanctionsList:
    return SanctionsList.objects.get(source="ofac_sdn")


def test_initial_load_reports_and_stores_both_lists(sanctions_load_output):
    assert "ofac_sdn: parsed 8976 entries, 23280 names, 13837 addresses, 97 digital-currency addresses" in sanctions_load_output
    assert "0 malformed rows skipped" in sanctions_load_output
    assert "un_consolidated: parsed 1003 entries, 4117 names, 811 addresses, 0 digital-currency addresses" in sanctions_load_output
    assert "ofac_sdn: loaded in" in sanctions_load_output and "8976 added, 0 changed, 0 removed" in sanctions_load_output
    assert "Done in" in sanctions_load_output
    ofac, un = ofac_list(), SanctionsList.objects.get(source="un_consolidated")
    assert (ofac.entry_count, ofac.name_count, ofac.address_count, ofac.digital_address_count) == (8976, 23280, 13837, 97)
    assert (un.entry_count, un.name_count, un.version) == (1003, 4117, "2026-02-27T00:00:09.554Z")
    assert SanctionsEntry.objects.filter(sanctions_list=ofac).count() == 8976
    zambada = SanctionsEntry.objects.get(sanctions_list=ofac, uid="7226")
    assert zambada.names.get(kind="primary").normalized == "ismael zambada garcia"
    assert zambada.birth_dates == ["1948-01-01", "1952-12-06", "1951-09-03"] and zambada.countries == ["MX"]
    assert SanctionsEntry.objects.get(sanctions_list=ofac, uid="30518").digital_addresses.filter(
        address="0x7db418b5d567a4e0e8c59ad71be1fce48f3e6107", address_as_listed="0x7Db418b5D567A4e0E8c59Ad71BE1FcE48f3E6107", currency="ETH"
    ).exists()


def test_reloading_identical_files_is_a_no_op(calls):
    before = ofac_list()
    ids = set(SanctionsEntry.objects.values_list("id", flat=True))
    audit_rows = AuditLogEntry.objects.count()
    output = load()
    assert "ofac_sdn: unchanged (same content hash), nothing written" in output
    assert "un_consolidated: unchanged (same content hash), nothing written" in output
    assert "0 list(s) changed" in output
    after = ofac_list()
    assert after.loaded_at == before.loaded_at and after.checked_at > before.checked_at
    assert set(SanctionsEntry.objects.values_list("id", flat=True)) == ids
    assert AuditLogEntry.objects.count() == audit_rows
    assert calls == []


def test_changed_list_is_reconciled_and_the_hook_is_called(ofac_copy, un_copy, calls):
    unchanged = SanctionsEntry.objects.get(sanctions_list__source="ofac_sdn", uid="173")
    changed = SanctionsEntry.objects.get(sanctions_list__source="ofac_sdn", uid="306")
    edit_sdn(ofac_copy, drop="36", replace=('"a.k.a. \'BNC\'."', "\"a.k.a. 'BNC'; a.k.a. 'BANCUBA'.\""), append=NEW_ROW)

    output = load("--ofac-dir", str(ofac_copy), "--un-file", str(un_copy))

    assert "ofac_sdn: loaded in" in output and "1 added, 1 changed, 1 removed" in output
    assert "un_consolidated: unchanged" in output and "Re-screening hooks called for: ofac_sdn" in output
    assert len(calls) == 1 and len(calls[0]) == 1
    change = calls[0][0]
    assert (change.source, change.added_uids, change.changed_uids, change.removed_uids) == ("ofac_sdn", ["99999"], ["306"], ["36"])
    assert change.content_hash == ofac_list().content_hash
    # Unchanged entries keep their rows; a changed one keeps its id and gets a new version hash.
    assert SanctionsEntry.objects.get(pk=unchanged.pk).updated_at == unchanged.updated_at
    reloaded = SanctionsEntry.objects.get(pk=changed.pk)
    assert reloaded.version_hash != changed.version_hash
    assert sorted(reloaded.names.filter(kind="weak_alias").values_list("name", flat=True)) == ["BANCUBA", "BNC"]
    assert not SanctionsEntry.objects.filter(sanctions_list__source="ofac_sdn", uid="36").exists()
    assert not SanctionsName.objects.filter(name="AEROCARIBBEAN AIRLINES").exists()
    assert ofac_list().entry_count == 8976
    # The index of this process follows: the new entry is screened at once.
    hits = screen_name("Boris Testovsky", kind="individual")
    assert hits[0].entry_uid == "99999" and hits[0].score >= 0.85


def test_a_failure_mid_load_leaves_the_previous_list(ofac_copy, monkeypatch, calls):
    before = ofac_list()
    bank_hash = SanctionsEntry.objects.get(sanctions_list=before, uid="306").version_hash
    edit_sdn(ofac_copy, drop="36", replace=('"a.k.a. \'BNC\'."', "\"a.k.a. 'BANCUBA'.\""), append=NEW_ROW)

    def fail(pairs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(loader, "_write_children", fail)
    with pytest.raises(RuntimeError, match="disk full"):
        load("--ofac-dir", str(ofac_copy), "--only", "ofac")

    after = ofac_list()
    assert (after.content_hash, after.loaded_at, after.entry_count) == (before.content_hash, before.loaded_at, 8976)
    assert SanctionsEntry.objects.filter(sanctions_list=after).count() == 8976
    aero = SanctionsEntry.objects.get(sanctions_list=after, uid="36")
    assert list(aero.names.values_list("name", flat=True)) == ["AERO-CARIBBEAN", "AEROCARIBBEAN AIRLINES"]
    assert SanctionsEntry.objects.get(sanctions_list=after, uid="306").version_hash == bank_hash
    assert not SanctionsEntry.objects.filter(uid="99999").exists()
    assert calls == []


def test_files_that_give_no_entries_never_empty_a_list(tmp_path):
    directory = tmp_path / "ofac"
    directory.mkdir()
    (directory / "sdn.csv").write_text('x,"BROKEN"\r\n1,"TOO SHORT"\r\n')
    with pytest.raises(CommandError, match="no entries .2 rows skipped.; refusing to empty the list"):
        load("--ofac-dir", str(directory), "--only", "ofac")
    assert ofac_list().entry_count == 8976 and SanctionsEntry.objects.filter(sanctions_list__source="ofac_sdn").count() == 8976


def assert_ofac_intact(before: SanctionsList) -> None:
    after = ofac_list()
    assert (after.content_hash, after.loaded_at, after.entry_count) == (before.content_hash, before.loaded_at, 8976)
    assert SanctionsEntry.objects.filter(sanctions_list=after).count() == 8976


class TestDamagedDownloadsAreRefused:
    """docs/screening.md: an empty or truncated download cannot wipe a list. Before, a sdn.csv cut to
    10 % of its bytes loaded 1,336 entries and removed 7,640 ("Done"), a cut UN file removed 906."""

    def test_a_truncated_ofac_file_is_refused(self, ofac_copy, calls):
        before = ofac_list()
        sdn = ofac_copy / "sdn.csv"
        sdn.write_bytes(sdn.read_bytes()[: sdn.stat().st_size // 10])
        audit_rows = AuditLogEntry.objects.count()

        with pytest.raises(CommandError, match=r"sdn.csv does not end with OFAC's end-of-file byte .0x1A.: the download was cut short"):
            load("--ofac-dir", str(ofac_copy), "--only", "ofac")

        assert_ofac_intact(before)
        assert AuditLogEntry.objects.count() == audit_rows and calls == []

    def test_a_truncated_alias_file_is_refused(self, ofac_copy, calls):
        before = ofac_list()
        alt = ofac_copy / "alt.csv"
        alt.write_bytes(alt.read_bytes()[:-200])
        with pytest.raises(CommandError, match="alt.csv does not end with OFAC's end-of-file byte"):
            load("--ofac-dir", str(ofac_copy), "--only", "ofac")
        assert_ofac_intact(before)
        assert calls == []

    def test_a_truncated_un_file_is_refused(self, un_copy, calls):
        before = SanctionsList.objects.get(source="un_consolidated")
        un_copy.write_bytes(un_copy.read_bytes()[: un_copy.stat().st_size // 10])

        with pytest.raises(CommandError, match="un_consolidated: refusing to load incomplete files.*is not well-formed XML"):
            load("--un-file", str(un_copy), "--only", "un")

        after = SanctionsList.objects.get(source="un_consolidated")
        assert (after.content_hash, after.loaded_at, after.entry_count) == (before.content_hash, before.loaded_at, 1003)
        assert SanctionsEntry.objects.filter(sanctions_list=after).count() == 1003
        assert calls == []

    def test_more_than_one_percent_malformed_rows_is_refused(self, ofac_copy, calls):
        before = ofac_list()
        alt = ofac_copy / "alt.csv"
        lines = alt.read_text().splitlines(keepends=True)
        # Every 20th alias row loses its last columns (5 %): the end-of-file byte is still there.
        damaged = [line.split(",")[0] + ',"CUT"\r\n' if index % 20 == 1 else line for index, line in enumerate(lines)]
        alt.write_text("".join(damaged))
        rows = len(lines) - 1  # the last line is the end-of-file byte
        cut = len(range(1, rows, 20))

        with pytest.raises(CommandError, match=rf"ofac_sdn: {cut} of the {rows} rows of alt.csv are malformed \(5.0%, more than 1%\); "
                                               "refusing to load damaged files, the list is kept as it was"):
            load("--ofac-dir", str(ofac_copy), "--only", "ofac")
        assert_ofac_intact(before)
        assert calls == []

    def test_a_few_malformed_rows_still_load(self, ofac_copy, calls):
        edit_sdn(ofac_copy, append='99998,"TOO SHORT"\r\n' + NEW_ROW)
        output = load("--ofac-dir", str(ofac_copy), "--only", "ofac")
        assert "1 malformed rows skipped" in output and "1 added, 0 changed, 0 removed" in output
        assert ofac_list().skipped_count == 1 and [c.added_uids for c in calls[0]] == [["99999"]]

    def test_removing_more_than_a_tenth_needs_allow_shrink(self, ofac_copy, calls):
        before = ofac_list()
        sdn = ofac_copy / "sdn.csv"
        lines = sdn.read_text().splitlines(keepends=True)
        sdn.write_text("".join(lines[:100] + lines[1100:]))  # 1,000 entries (11 %) delisted, end-of-file byte kept
        delisted = {line.split(",")[0] for line in lines[100:1100]}
        for name in ("alt.csv", "add.csv"):  # with their aliases and addresses, as the publisher would
            path = ofac_copy / name
            path.write_text("".join(line for line in path.read_text().splitlines(keepends=True) if line.split(",")[0] not in delisted))

        with pytest.raises(CommandError, match=r"ofac_sdn: the files would remove 1000 of the 8976 listed entries \(11%, more than "
                                               r"10%\); refusing, the list is kept as it was.*--allow-shrink"):
            load("--ofac-dir", str(ofac_copy), "--only", "ofac")
        assert_ofac_intact(before)
        assert calls == []

        output = load("--ofac-dir", str(ofac_copy), "--only", "ofac", "--allow-shrink")

        assert "0 added, 0 changed, 1000 removed" in output and "0 malformed rows skipped" in output
        assert ofac_list().entry_count == 7976 and calls[0][0].removed_uids and len(calls[0][0].removed_uids) == 1000


def test_missing_files_are_a_command_error(tmp_path):
    with pytest.raises(CommandError, match="cannot read the list"):
        load("--ofac-dir", str(tmp_path / "nowhere"), "--only", "ofac")


def test_one_list_from_a_local_file(tmp_path, un_copy, calls):
    edited = tmp_path / "consolidated.xml"
    edited.write_text(un_copy.read_text().replace("<FIRST_NAME>ADF</FIRST_NAME>", "<FIRST_NAME>ADF RENAMED</FIRST_NAME>"))
    load()  # the bundled lists first

    output = load("--list", "un_consolidated", "--file", str(edited))

    assert "un_consolidated: loaded in" in output and "0 added, 1 changed, 0 removed" in output
    assert [change.source for change in calls[-1]] == ["un_consolidated"] and calls[-1][0].changed_uids == ["6908402"]
    assert SanctionsEntry.objects.get(sanctions_list__source="un_consolidated", uid="6908402").primary_name == "ADF RENAMED"
    version = SanctionsList.objects.get(source="un_consolidated").versions.order_by("-number").first()
    assert (version.number, version.origin, version.changed) == (2, "file", [{"uid": "6908402", "name": "ADF RENAMED"}])
    assert version.source_files == [str(edited)]


def test_files_need_a_named_list(tmp_path):
    with pytest.raises(CommandError, match="name it with --list"):
        load("--file", str(tmp_path / "x.csv"))
    with pytest.raises(CommandError, match="No list 'nope'"):
        load("--list", "nope")


def test_a_failing_callback_does_not_stop_the_others(ofac_copy, calls):
    def broken(changes):
        raise ValueError("queue down")

    on_lists_changed(broken)
    try:
        edit_sdn(ofac_copy, append=NEW_ROW)
        with pytest.raises(CommandError, match="1 lists-changed callback.s. failed: .*broken"):
            load("--ofac-dir", str(ofac_copy), "--only", "ofac")
    finally:
        from onboarding.screening.hooks import remove_lists_changed as unregister

        unregister(broken)
    assert len(calls) == 1 and calls[0][0].added_uids == ["99999"]
    assert SanctionsEntry.objects.filter(sanctions_list__source="ofac_sdn", uid="99999").exists()


def test_another_process_load_reaches_this_index_at_the_next_check(ofac_copy):
    index = get_index(max_age=0)
    assert not any(entry.uid == "99999" for entry in index.entries)
    edit_sdn(ofac_copy, append=NEW_ROW)

    # What another process would do: the loader only, without this process's invalidate_index().
    result = sanctions_list_load(parse_ofac(ofac_copy))

    assert result.changed and result.added_uids == ["99999"]
    assert get_index(max_age=3600) is index  # between checks the process keeps its index
    rebuilt = get_index(max_age=0)  # a check compares the lists' hashes and load times
    assert rebuilt is not index and any(entry.uid == "99999" for entry in rebuilt.entries)
    assert rebuilt.lists["ofac_sdn"].content_hash == result.content_hash
