"""The list formats beside OFAC SDN and the UN list: OFAC Consolidated, the US Consolidated Screening
List, the BIS Denied Persons List (their bundled snapshots), the EU Financial Sanctions Files, the UK
Sanctions List and OpenSanctions exports (sample files in sanctions_samples/, written for these
tests from the publishers' documented formats; every party in them is invented).

For each: the parse (counts, one entry in detail), damaged files (skipped rows counted, cut or
headless files marked incomplete and refused by the loader), and a load through the real
`load_sanctions` command, inside the test's transaction, after which `screen_name` finds the entry on
that list under the publisher's id.
"""

import gzip
import io
import re
import shutil
from collections import Counter
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from onboarding.models import SanctionsEntry, SanctionsList
from onboarding.sanctions.files import read_blob
from onboarding.sanctions.formats.csl import parse_csl
from onboarding.sanctions.formats.dates import birth_date
from onboarding.sanctions.formats.dpl import parse_dpl
from onboarding.sanctions.formats.eu import parse_eu
from onboarding.sanctions.formats.ofac import CONSOLIDATED_FILES, parse_ofac
from onboarding.sanctions.formats.opensanctions import dataset_spec, parse_ftm
from onboarding.sanctions.formats.parties import derived_uid, guess_kind
from onboarding.sanctions.formats.uk import parse_uk
from onboarding.sanctions.registry import SNAPSHOT_DIR, UnknownList, bundled_specs, known_specs, list_spec, list_urls, snapshot_blobs
from onboarding.screening import screen_name

SAMPLES = Path(__file__).resolve().parent / "sanctions_samples"
EU_SAMPLE, UK_SAMPLE = SAMPLES / "eu_fsf.xml", SAMPLES / "uk_sanctions.xml"
OS_SANCTIONS, OS_PEPS = SAMPLES / "opensanctions_sanctions.ftm.json", SAMPLES / "opensanctions_peps.ftm.json"
CONS_DIR = SNAPSHOT_DIR / "ofac_consolidated"
CSL_FILE = SNAPSHOT_DIR / "us_csl" / "consolidated.csv.gz"
DPL_FILE = SNAPSHOT_DIR / "bis_dpl" / "dpl.txt.gz"
CSL_SDN = "Specially Designated Nationals (SDN) - Treasury Department"

in_db = pytest.mark.django_db
fresh = pytest.mark.usefixtures("fresh_index")


def by_uid(parsed) -> dict:
    return {entry.uid: entry for entry in parsed.entries}


def names_of(entry, kind=None) -> list[str]:
    return [name.name for name in entry.names if kind is None or name.kind == kind]


def load(*args) -> str:
    out = io.StringIO()
    call_command("load_sanctions", *args, stdout=out)
    return out.getvalue()


def hit_on(source: str, name: str, **kwargs):
    """The best hit of `name` on list `source`."""
    hits = [hit for hit in screen_name(name, **kwargs) if hit.source == source]
    assert hits, f"no hit on {source} for {name!r}"
    return hits[0]


def assert_stored(source: str, *, entries: int, category: str = "sanctions", origin: str = "file") -> SanctionsList:
    """The list row and its first version, as a first load writes them."""
    stored = SanctionsList.objects.get(source=source)
    assert (stored.category, stored.entry_count) == (category, entries)
    assert SanctionsEntry.objects.filter(sanctions_list=stored).count() == entries
    version = stored.versions.get()
    assert (version.number, version.origin, version.entry_count, len(version.added), version.removed) == (1, origin, entries, entries, [])
    assert version.content_hash == stored.content_hash and len(stored.content_hash) == 64
    return stored


def refused(*args, match: str) -> None:
    """The command refuses the files and stores nothing."""
    source = args[args.index("--list") + 1]
    with pytest.raises(CommandError, match=match):
        load(*args)
    assert not SanctionsList.objects.filter(source=source).exists()


def text_of(path: Path) -> str:
    return read_blob(path).decode("utf-8")


class TestRegistry:
    def test_every_list_is_known_and_the_us_lists_are_bundled(self):
        assert [spec.source for spec in bundled_specs()] == ["bis_dpl", "ofac_consolidated", "ofac_sdn", "un_consolidated", "us_csl"]
        assert {spec.source for spec in known_specs()} >= {"eu_fsf", "uk_sanctions"}
        for spec in bundled_specs():
            blobs, paths = snapshot_blobs(spec)
            assert spec.required_file in blobs and paths

    def test_publisher_urls(self, settings):
        settings.SANCTIONS_URLS, settings.SANCTIONS_PUBLISHER_URLS = {}, True
        assert list_urls(list_spec("ofac_consolidated"))["cons_prim.csv"] == (
            "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/CONS_PRIM.CSV")
        assert list_urls(list_spec("us_csl")) == {
            "consolidated.csv": "https://data.trade.gov/downloadable_consolidated_screening_list/v1/consolidated.csv"}
        assert list_urls(list_spec("bis_dpl")) == {"dpl.txt": "https://www.bis.doc.gov/dpl/dpl.txt"}
        assert list_urls(list_spec("uk_sanctions")) == {
            "UK-Sanctions-List.xml": "https://sanctionslist.fcdo.gov.uk/docs/UK-Sanctions-List.xml"}
        # The EU file's URL carries a per-user token: none by default, the operator's when set.
        assert list_urls(list_spec("eu_fsf")) == {}
        settings.SANCTIONS_URLS = {"eu_fsf": {"eu_fsf.xml": "https://webgate.example/fsd/fsf/public/files/xmlFullSanctionsList_1_1/content?token=t"}}
        assert list_urls(list_spec("eu_fsf")) == {"eu_fsf.xml": settings.SANCTIONS_URLS["eu_fsf"]["eu_fsf.xml"]}

    @pytest.mark.parametrize(("value", "stored"), [
        ("1966-09-08", "1966-09-08"), ("1966-09-08T00:00:00", "1966-09-08"), ("1966-9", "1966-09"), ("1966", "1966"),
        ("08/09/1966", "1966-09-08"), ("00/09/1966", "1966-09"), ("00/00/1966", "1966"), ("31/02/1966", ""),
        ("08 Sep 1966", "1966-09-08"), ("circa 1966", "1966"), ("1962 to 1960", "1960/1962"), ("1960-1962", "1960/1962"),
        ("unknown", ""), ("", ""),
    ])
    def test_dates_of_birth_take_the_stored_forms(self, value, stored):
        assert birth_date(value) == stored

    def test_month_first_dates(self):
        assert birth_date("10/16/2017", day_first=False) == "2017-10-16"

    def test_derived_uids_ignore_case_spacing_and_punctuation(self):
        assert derived_uid("ACME  Ltd.", "1 Main St") == derived_uid("acme ltd", "1, MAIN ST") != derived_uid("acme ltd", "2 Main St")
        assert re.fullmatch(r"DPL-[0-9a-f]{24}", derived_uid("x", prefix="DPL-"))

    @pytest.mark.parametrize(("name", "kind"), [
        ("ADRIAN MANUEL HERNANDEZ", "individual"), ("AIR FREIGHT LTD", "entity"), ("BAHAR SAFWA GENERAL TRADING", "entity"),
        ("183rd Guard Air Defense Missile Regiment", "entity"), ("SYNAPTIX.NET", "entity"), ("PEARL LI", "individual"),
        ("SEGURIDAD Y ELECTRONICA MAFO, S.A.", "entity"),
    ])
    def test_kind_is_guessed_from_the_name_where_the_list_does_not_say(self, name, kind):
        assert guess_kind(name) == kind


class TestOfacConsolidated:
    @pytest.fixture(scope="class")
    @classmethod
    def parsed(cls):
        spec = list_spec("ofac_consolidated")
        return spec.parse(snapshot_blobs(spec)[0])

    def test_snapshot(self, parsed):
        assert parsed.source == "ofac_consolidated" and len(parsed.entries) == 442
        assert Counter(entry.kind for entry in parsed.entries) == {"entity": 363, "individual": 79}
        assert Counter(name.kind for entry in parsed.entries for name in entry.names) == {"primary": 442, "alias": 1071, "weak_alias": 69}
        assert parsed.address_count == 574 and parsed.report.skipped == 0 and parsed.report.incomplete == []
        assert parsed.report.rows == {"cons_prim.csv": 442, "cons_alt.csv": 1073, "cons_add.csv": 574, "cons_comments.csv": 10}
        haniya = by_uid(parsed)["9639"]
        assert (haniya.primary_name, haniya.kind, haniya.programs, haniya.birth_dates) == (
            "HANIYA, Ismail Abdul Salah", "individual", ["NS-PLC"], ["1962"])
        assert names_of(haniya, "alias") == ["HANIYA, Ismail", "HANIYYA, Ismaeel"]
        bank = by_uid(parsed)["17014"]
        assert bank.kind == "entity" and bank.countries == ["RU"] and bank.programs == ["UKRAINE-EO13662", "RUSSIA-EO14024"]
        # The weak a.k.a. is the end of a remark OFAC cut at 1,000 characters (cons_comments.csv).
        assert names_of(bank, "weak_alias") == ["RUSAG"] and "ROSSELKHOZBANK" in names_of(bank, "alias")

    def test_same_parse_as_the_sdn_reader_with_the_consolidated_names(self, parsed):
        again = parse_ofac(CONS_DIR, files=CONSOLIDATED_FILES, source="ofac_consolidated")
        assert again.content_hash == parsed.content_hash
        assert [entry.version_hash for entry in again.entries] == [entry.version_hash for entry in parsed.entries]

    @pytest.fixture
    def cons_copy(self, tmp_path) -> Path:
        for path in CONS_DIR.glob("*.gz"):
            (tmp_path / path.name.removesuffix(".gz")).write_bytes(read_blob(path))
        return tmp_path

    def test_damaged_files(self, cons_copy):
        prim = cons_copy / "cons_prim.csv"
        text = prim.read_text()
        eof = text.rindex("\x1a")
        prim.write_text(text[:eof] + '99001,"SHORT ROW"\r\n' + text[eof:])
        parsed = parse_ofac(cons_copy, files=CONSOLIDATED_FILES, source="ofac_consolidated")
        assert len(parsed.entries) == 442 and parsed.report.skipped == 1 and parsed.report.rows["cons_prim.csv"] == 443
        assert parsed.report.samples == [{"file": "cons_prim.csv", "line": 443, "reason": "2 columns, expected 12"}]
        prim.write_text(text[: len(text) // 2])
        parsed = parse_ofac(cons_copy, files=CONSOLIDATED_FILES, source="ofac_consolidated")
        assert parsed.report.incomplete == ["cons_prim.csv does not end with OFAC's end-of-file byte (0x1A): the download was cut short"]

    @in_db
    def test_cut_file_is_refused(self, cons_copy):
        prim = cons_copy / "cons_prim.csv"
        prim.write_text(prim.read_text()[:20000])
        refused("--list", "ofac_consolidated", "--dir", str(cons_copy), match="cons_prim.csv does not end with OFAC's end-of-file byte")

    @in_db
    @fresh
    def test_load_and_screen(self):
        output = load("--list", "ofac_consolidated")
        assert "ofac_consolidated: parsed 442 entries, 1582 names, 574 addresses" in output
        assert_stored("ofac_consolidated", entries=442, origin="bundled")
        hit = hit_on("ofac_consolidated", "Ismail Abdul Salah Haniya", kind="individual")
        assert (hit.entry_uid, hit.entry_kind, hit.primary_name) == ("9639", "individual", "HANIYA, Ismail Abdul Salah")
        assert hit_on("ofac_consolidated", "Rosselkhozbank").entry_uid == "17014"


class TestUsCsl:
    @pytest.fixture(scope="class")
    @classmethod
    def parsed(cls):
        return parse_csl(read_blob(CSL_FILE))

    def test_snapshot(self, parsed):
        assert parsed.source == "us_csl" and len(parsed.entries) == 115 and parsed.report.rows == {"consolidated.csv": 115}
        assert parsed.report.skipped == 0 and parsed.report.incomplete == []
        assert Counter(entry.kind for entry in parsed.entries) == {"entity": 72, "individual": 41, "vessel": 2}
        assert Counter(name.kind for entry in parsed.entries for name in entry.names) == {"primary": 115, "alias": 161}
        akbari = by_uid(parsed)["27271"]
        assert (akbari.primary_name, akbari.kind, akbari.birth_dates) == ("AKBARI, Mohammadreza Ali", "individual", ["1967-10-31"])
        assert names_of(akbari, "alias") == ["AKBARI, Ali", "ALI-AKBARI, Mohammadreza", "ALIAKBARI, Mohammad Reza Abbas"]
        # The row's source list comes first among the programs: a hit says which list it is on.
        assert akbari.programs == [CSL_SDN, "SDGT"]
        minister = by_uid(parsed)["15205"]
        assert minister.title == "Minister of Information" and minister.countries == ["SY"]  # place of birth "Damascus, Syria"
        vessel = by_uid(parsed)["27304"]
        assert vessel.kind == "vessel" and names_of(vessel, "alias") == ["GRACE 1"] and vessel.countries == ["IR"]

    def test_rows_without_an_ofac_number_get_a_stable_derived_uid(self, parsed):
        derived = [entry for entry in parsed.entries if not entry.uid.isdigit()]
        assert len(derived) == 47 and all(re.fullmatch(r"[A-Z]{2,4}-[0-9a-f]{24}", entry.uid) for entry in derived)
        finance = next(entry for entry in derived if entry.primary_name == "A.P. Finance Limited")
        assert finance.uid.startswith("EL-") and finance.programs == ["Entity List (EL) - Bureau of Industry and Security"]
        assert finance.kind == "entity" and finance.listed_on == date(2011, 8, 15) and finance.countries == ["GB"]
        assert [(a.street, a.country_code) for a in finance.addresses] == [
            ("38, Princes Court-88 Brompton Road Knightsbridge, London, SW3 1ES", "GB"),
            ("Enterprise House, 113/115 George Lane, London, E18 1AB", "GB"),
        ]
        person = next(entry for entry in derived if entry.primary_name == "ADRIAN MANUEL HERNANDEZ")
        assert person.uid.startswith("DPL-") and person.kind == "individual"
        assert [entry.uid for entry in parse_csl(read_blob(CSL_FILE)).entries] == [entry.uid for entry in parsed.entries]

    def test_damaged_files(self):
        text = text_of(CSL_FILE)
        lines = text.splitlines(keepends=True)
        headless = parse_csl("".join(lines[1:]).encode())
        assert headless.entries == []
        assert headless.report.incomplete[0].startswith("consolidated.csv has no header row with the columns source, name")
        bad = parse_csl("".join([*lines[:10], "Entity List (EL) - Bureau of Industry and Security,,,\n", *lines[10:]]).encode())
        assert len(bad.entries) == 115 and bad.report.skipped == 1 and bad.report.incomplete == []
        assert bad.report.samples == [{"file": "consolidated.csv", "line": 11, "reason": "4 columns, expected 28"}]
        cut = parse_csl(text[: text.index("AKBARI, Mohammadreza Ali") + 30].encode())
        assert cut.report.incomplete == ["consolidated.csv: the last row is incomplete: the download was cut short"]

    @in_db
    def test_headless_file_is_refused(self, tmp_path):
        path = tmp_path / "consolidated.csv"
        path.write_text("".join(text_of(CSL_FILE).splitlines(keepends=True)[1:]))
        refused("--list", "us_csl", "--file", str(path), match="no header row")

    @in_db
    @fresh
    def test_load_and_screen(self):
        assert "us_csl: parsed 115 entries, 276 names" in load("--list", "us_csl")
        assert_stored("us_csl", entries=115, origin="bundled")
        hit = hit_on("us_csl", "Mohammadreza Ali Akbari", kind="individual")
        assert (hit.entry_uid, hit.entry_kind) == ("27271", "individual")
        assert hit.explanation["programs"][0] == CSL_SDN
        el = hit_on("us_csl", "AP Finance Limited")
        assert el.entry_uid.startswith("EL-") and el.explanation["programs"] == ["Entity List (EL) - Bureau of Industry and Security"]


class TestBisDpl:
    @pytest.fixture(scope="class")
    @classmethod
    def parsed(cls):
        return parse_dpl(read_blob(DPL_FILE))

    def test_snapshot(self, parsed):
        # 546 rows: a party at each of its addresses, three rows repeated word for word (read once).
        assert parsed.source == "bis_dpl" and parsed.report.rows == {"dpl.txt": 546} and len(parsed.entries) == 539
        assert parsed.report.skipped == 0 and parsed.report.incomplete == []
        assert Counter(entry.kind for entry in parsed.entries) == {"individual": 402, "entity": 137}
        assert parsed.version == "2019-06-12"  # the newest Last_Update (one row's "3017-08-22" is a typing error)
        hernandez = next(entry for entry in parsed.entries if entry.primary_name == "ADRIAN MANUEL HERNANDEZ")
        # The derived uid is pinned: it must not change from one version of this code to the next.
        assert hernandez.uid == "DPL-67fd3be547621988ca0dedb0"
        assert hernandez.kind == "individual" and hernandez.listed_on == date(2017, 10, 16) and hernandez.countries == ["US"]
        assert [(a.street, a.city, a.state_province, a.postal_code, a.country_code) for a in hernandez.addresses] == [
            ("3037 S. 69TH DRIVE", "PHONEIX", "AZ", "85043", "US")]
        assert "82 F.R. 48792 10/20/2017" in hernandez.remarks
        pearl = next(entry for entry in parsed.entries if entry.primary_name == "PEARL LI")
        assert names_of(pearl, "alias") == ["NEI-CHIEN CHU"]  # listed as "PEARL (A.K.A. NEI-CHIEN CHU) LI"
        assert names_of(next(e for e in parsed.entries if e.primary_name == "FUYI SUN"), "alias") == ["FRANK SUN"]
        airline = next(entry for entry in parsed.entries if entry.primary_name == "AL NASER AIRLINES")
        assert airline.kind == "entity" and airline.countries == ["IQ"]
        assert next(e for e in parsed.entries if e.primary_name == "JOHNSON HU").countries == ["CN"]  # Country "PRC"

    def test_damaged_files(self):
        text = text_of(DPL_FILE)
        lines = text.splitlines(keepends=True)
        headless = parse_dpl("".join(lines[1:]).encode())
        assert headless.entries == [] and "has no header row" in headless.report.incomplete[0]
        bad = parse_dpl("".join([*lines[:5], '"SHORT ROW"\t"1 MAIN ST"\n', *lines[5:]]).encode())
        assert len(bad.entries) == 539 and bad.report.skipped == 1 and bad.report.incomplete == []
        assert bad.report.samples == [{"file": "dpl.txt", "line": 6, "reason": "2 columns, expected 12"}]
        cut = parse_dpl(text[: len(text) - 40].encode())
        assert cut.report.incomplete == ["dpl.txt: the last row is incomplete: the download was cut short"]

    @in_db
    def test_cut_file_is_refused_a_stray_bad_row_is_not(self, tmp_path):
        text = text_of(DPL_FILE)
        cut = tmp_path / "cut" / "dpl.txt"
        cut.parent.mkdir()
        cut.write_text(text[: len(text) - 40])
        refused("--list", "bis_dpl", "--file", str(cut), match="the last row is incomplete")
        lines = text.splitlines(keepends=True)
        one_bad = tmp_path / "dpl.txt"
        one_bad.write_text("".join([*lines[:5], '"SHORT ROW"\t"1 MAIN ST"\n', *lines[5:]]))
        assert "1 malformed rows skipped" in load("--list", "bis_dpl", "--file", str(one_bad))
        assert SanctionsList.objects.get(source="bis_dpl").skipped_count == 1

    @in_db
    @fresh
    def test_load_and_screen(self):
        assert "bis_dpl: parsed 539 entries" in load("--list", "bis_dpl")
        stored = assert_stored("bis_dpl", entries=539, origin="bundled")
        assert stored.version == "2019-06-12"
        hit = hit_on("bis_dpl", "Adrian Manuel Hernandez", kind="individual")
        assert (hit.entry_uid, hit.entry_kind) == ("DPL-67fd3be547621988ca0dedb0", "individual")
        assert hit_on("bis_dpl", "Nei-Chien Chu").matched_name in {"NEI-CHIEN CHU"}


class TestEuFsf:
    @pytest.fixture(scope="class")
    @classmethod
    def parsed(cls):
        return parse_eu(EU_SAMPLE.read_bytes())

    def test_sample(self, parsed):
        assert parsed.source == "eu_fsf" and len(parsed.entries) == 8 and parsed.report.rows == {"eu_fsf.xml": 8}
        assert parsed.report.skipped == 0 and parsed.report.incomplete == []
        assert parsed.version == "2026-03-02T17:45:12.345+01:00"
        assert parsed.published_at == datetime(2026, 3, 2, 16, 45, 12, 345000, tzinfo=UTC)
        assert Counter(entry.kind for entry in parsed.entries) == {"individual": 4, "entity": 4}
        person = by_uid(parsed)["990101"]
        assert (person.primary_name, person.kind, person.reference) == ("Borislav Arkadyevich Tverdokhlebov", "individual", "EU.9001.11")
        assert [(name.name, name.kind, name.qualifier) for name in person.names[1:]] == [
            ("Борислав Аркадьевич Твердохлебов", "original_script", "ru"), ("Borya", "weak_alias", "")]
        assert person.birth_dates == ["1968-04-23"] and person.countries == ["RU"] and person.programs == ["RUS"]
        assert person.title == "Deputy Director of Zvezdny Arms Export" and person.listed_on == date(2022, 3, 15)
        assert [(a.street, a.city, a.postal_code, a.country_code) for a in person.addresses] == [
            ("Ulitsa Primernaya 12", "Moscow", "101000", "RU")]
        company = by_uid(parsed)["990103"]
        assert company.kind == "entity" and company.programs == ["BLR", "RUS"] and company.listed_on == date(2023, 6, 23)
        assert names_of(company, "weak_alias") == ["PZL"] and names_of(company, "original_script") == ["АО «Полярная Звезда Логистика»"]
        assert by_uid(parsed)["990102"].birth_dates == ["1975"] and names_of(by_uid(parsed)["990102"], "alias") == ["Abu Farzan"]
        assert by_uid(parsed)["990105"].birth_dates == ["1958/1961"]
        belarusian = by_uid(parsed)["990107"]  # firstName / middleName / lastName, no wholeName; a month of birth
        assert belarusian.primary_name == "Aliaksandr Piatrovich Zimaharau" and belarusian.birth_dates == ["1972-11"]
        assert by_uid(parsed)["990106"].countries == ["AE"]  # the "00" (unknown) address gives no country
        assert names_of(by_uid(parsed)["990108"], "original_script") == ["해빛해양수산회사"]

    def test_without_a_namespace_it_reads_the_same(self, parsed):
        plain = EU_SAMPLE.read_text().replace(' xmlns="http://eu.europa.eu/fsd/fsf/public/xsd/fsf_publicexport.xsd"', "")
        assert [entry.version_hash for entry in parse_eu(plain.encode()).entries] == [entry.version_hash for entry in parsed.entries]

    def test_damaged_files(self):
        text = EU_SAMPLE.read_text()
        cut = parse_eu(text[: text.index('logicalId="990105"') + 200].encode())
        assert cut.report.incomplete and cut.report.incomplete[0].startswith("eu_fsf.xml is not well-formed XML")
        assert len(cut.entries) >= 4 and cut.report.skipped >= 1
        bad = text.replace('logicalId="990102"', 'logicalId=""').replace('logicalId="990104"', 'logicalId="990103"')
        bad = parse_eu(bad.encode())
        assert len(bad.entries) == 6 and bad.report.skipped == 2 and bad.report.incomplete == []
        assert sorted(sample["reason"] for sample in bad.report.samples) == ["logicalId 990103 repeated", "no logicalId"]
        other = parse_eu(b"<html><body>Service unavailable</body></html>")
        assert other.entries == []
        assert other.report.incomplete == ["eu_fsf.xml is not the expected document: its root is <html>, not <export>"]

    @in_db
    def test_cut_file_is_refused(self, tmp_path):
        path = tmp_path / "eu.xml"
        path.write_text(EU_SAMPLE.read_text()[:5000])
        refused("--list", "eu_fsf", "--file", str(path), match="refusing to load incomplete files")

    @in_db
    def test_without_a_file_it_is_not_loaded(self):
        refused("--list", "eu_fsf", match="no snapshot is bundled")

    @in_db
    @fresh
    def test_load_and_screen(self):
        assert "eu_fsf: parsed 8 entries" in load("--list", "eu_fsf", "--file", str(EU_SAMPLE))
        stored = assert_stored("eu_fsf", entries=8)
        assert stored.version == "2026-03-02T17:45:12.345+01:00"
        assert stored.published_at == datetime(2026, 3, 2, 16, 45, 12, 345000, tzinfo=UTC)
        assert stored.versions.get().published_at == stored.published_at
        hit = hit_on("eu_fsf", "Borislav Tverdokhlebov", kind="individual", date_of_birth=date(1968, 4, 23))
        assert (hit.entry_uid, hit.entry_kind, hit.primary_name) == ("990101", "individual", "Borislav Arkadyevich Tverdokhlebov")
        assert hit_on("eu_fsf", "Tabriz Precision Components").entry_uid == "990104"
        assert hit_on("eu_fsf", "Борислав Твердохлебов").entry_uid == "990101"


class TestUkSanctions:
    @pytest.fixture(scope="class")
    @classmethod
    def parsed(cls):
        return parse_uk(UK_SAMPLE.read_bytes())

    def test_sample(self, parsed):
        assert parsed.source == "uk_sanctions" and len(parsed.entries) == 6 and parsed.report.rows == {"UK-Sanctions-List.xml": 6}
        assert parsed.report.skipped == 0 and parsed.report.incomplete == []
        assert parsed.version == "2026-03-01T06:00:12" and parsed.published_at == datetime(2026, 3, 1, 6, 0, 12, tzinfo=UTC)
        assert Counter(entry.kind for entry in parsed.entries) == {"individual": 3, "entity": 2, "vessel": 1}
        person = by_uid(parsed)["RUS9901"]
        assert (person.primary_name, person.kind, person.reference, person.programs) == (
            "Gennady Viktorovich OSTROVERKHOV", "individual", "99001", ["Russia"])
        assert [(name.name, name.kind) for name in person.names[1:]] == [
            ("Gennadiy OSTROVERHOV", "alias"), ("Gena OSTROVERKHOV", "weak_alias"), ("Геннадий Викторович ОСТРОВЕРХОВ", "original_script")]
        assert person.birth_dates == ["1963-02-14"] and person.countries == ["RU"] and person.listed_on == date(2022, 3, 15)
        assert person.title == "Member of the Board, Severny Narodny Bank"
        assert [(a.street, a.postal_code, a.country_code) for a in person.addresses] == [("Prospekt Primerny 7, Moscow", "119019", "RU")]
        assert by_uid(parsed)["IRQ9903"].birth_dates == ["1960", "1961-06"]  # "00/00/1960", "00/06/1961"
        ship = by_uid(parsed)["DPR9905"]
        assert ship.kind == "vessel" and ship.countries == ["KP"] and names_of(ship, "alias") == ["HAE BIT BYOL"]
        assert names_of(by_uid(parsed)["CYB9904"], "weak_alias") == ["GHC"]

    def test_the_generation_date_may_be_an_attribute(self):
        text = UK_SAMPLE.read_text().replace("  <DateGenerated>2026-03-01T06:00:12</DateGenerated>\n", "")
        text = text.replace("<Designations ", '<Designations DateGenerated="01/03/2026" ')
        parsed = parse_uk(text.encode())
        assert parsed.published_at == datetime(2026, 3, 1, tzinfo=UTC) and len(parsed.entries) == 6

    def test_damaged_files(self):
        text = UK_SAMPLE.read_text()
        cut = parse_uk(text[: text.index("<UniqueID>CYB9904") + 10].encode())
        assert cut.report.incomplete[0].startswith("UK-Sanctions-List.xml is not well-formed XML") and cut.report.skipped >= 1
        bad = parse_uk(text.replace("<UniqueID>IRQ9903</UniqueID>", "<UniqueID></UniqueID>")
                       .replace("<Name6>GREY HERON COLLECTIVE</Name6>", "<Name6></Name6>").replace("<Name6>GHC</Name6>", "").encode())
        assert len(bad.entries) == 4 and bad.report.skipped == 2 and bad.report.incomplete == []
        assert sorted(sample["reason"] for sample in bad.report.samples) == ["no UniqueID", "no name"]

    @in_db
    def test_cut_file_is_refused(self, tmp_path):
        path = tmp_path / "UK-Sanctions-List.xml"
        path.write_text(UK_SAMPLE.read_text()[:3000])
        refused("--list", "uk_sanctions", "--file", str(path), match="refusing to load incomplete files")

    @in_db
    @fresh
    def test_load_and_screen(self, tmp_path):
        compressed = tmp_path / "UK-Sanctions-List.xml.gz"
        compressed.write_bytes(gzip.compress(UK_SAMPLE.read_bytes()))
        assert "uk_sanctions: parsed 6 entries" in load("--list", "uk_sanctions", "--file", str(compressed))
        stored = assert_stored("uk_sanctions", entries=6)
        assert stored.published_at == datetime(2026, 3, 1, 6, 0, 12, tzinfo=UTC) and stored.source_files == [str(compressed)]
        hit = hit_on("uk_sanctions", "Gennady Ostroverkhov", kind="individual", date_of_birth=date(1963, 2, 14))
        assert (hit.entry_uid, hit.entry_kind) == ("RUS9901", "individual")
        assert hit_on("uk_sanctions", "Sea Bright Star").entry_uid == "DPR9905"


class TestOpenSanctions:
    def test_dataset_specs(self, settings):
        settings.SANCTIONS_PUBLISHER_URLS = True
        peps = list_spec("os_peps")
        assert (peps.source, peps.category, peps.publisher, peps.bundled) == ("os_peps", "pep", "OpenSanctions", False)
        assert list_urls(peps) == {"entities.ftm.json": "https://data.opensanctions.org/datasets/latest/peps/entities.ftm.json"}
        assert dataset_spec("us_ofac_sdn").category == "sanctions"
        assert dataset_spec("ua_nazk_peps").category == "pep"  # "pep" in the name
        settings.SANCTIONS_PEP_DATASETS = {"everypolitician"}
        assert dataset_spec("everypolitician").category == "pep"
        for bad in ("Peps", "us-ofac", "a b", "", "x" * 62):
            with pytest.raises(UnknownList, match="No OpenSanctions dataset"):
                list_spec(f"os_{bad}")

    def test_sanctions_sample(self):
        parsed = parse_ftm(OS_SANCTIONS.read_bytes(), source="os_sanctions")
        # Nine lines: five parties; a Sanction, an Address, an Ownership and a CryptoWallet are not parties (not malformed).
        assert len(parsed.entries) == 5 and parsed.report.rows == {"entities.ftm.json": 9} and parsed.report.skipped == 0
        assert Counter(entry.kind for entry in parsed.entries) == {"individual": 1, "entity": 2, "vessel": 1, "aircraft": 1}
        assert parsed.published_at == datetime(2026, 3, 1, 6, 10, tzinfo=UTC)
        person = by_uid(parsed)["NK-smpl4Qv7TzXk2bWm9"]
        assert (person.primary_name, person.kind, person.birth_dates, person.countries, person.programs) == (
            "Valerian Igorevich Gorshkalev", "individual", ["1971-09-30"], ["RU", "CY"], ["RUSSIA-EO14024"])
        assert [(name.name, name.kind) for name in person.names[1:]] == [
            ("Valeriy Gorshkalyov", "alias"), ("Валериан Игоревич Горшкалев", "original_script"), ("Valera", "weak_alias")]
        assert person.listed_on == date(2022, 4, 6) and person.title == "Owner of a defence supplier (sample)"
        company = by_uid(parsed)["NK-smplB8cLrX3qWe5d"]
        assert names_of(company, "alias") == ["SUT LLC", "Uran Export OOO"] and company.countries == ["RU"]
        assert [(d.currency, d.address) for d in company.digital_addresses] == [("ETH", "0xabcdef0123456789abcdef0123456789abcdef99")]
        assert by_uid(parsed)["NK-smplVsl9Hh2Pq4Rt"].countries == ["PA"]

    def test_damaged_files(self):
        lines = OS_SANCTIONS.read_text().splitlines(keepends=True)
        bad = parse_ftm("".join([lines[0], "{not json\n", '["a list"]\n', *lines[1:]]).encode(), source="os_sanctions")
        assert len(bad.entries) == 5 and bad.report.skipped == 2 and bad.report.incomplete == []
        assert [sample["line"] for sample in bad.report.samples] == [2, 3]
        text = "".join(lines[:5])
        cut = parse_ftm(text[: len(text) - 30].encode(), source="os_sanctions")
        assert cut.report.incomplete == ["entities.ftm.json: the last line is not a whole JSON object: the download was cut short"]
        assert len(cut.entries) == 4 and cut.report.skipped == 1

    @in_db
    def test_cut_file_is_refused(self, tmp_path):
        path = tmp_path / "entities.ftm.json"
        text = OS_SANCTIONS.read_text()
        path.write_text(text[: len(text) // 2])
        refused("--list", "os_sanctions", "--file", str(path), match="refusing to load incomplete files")

    @in_db
    def test_a_bad_dataset_name_is_a_command_error(self):
        with pytest.raises(CommandError, match="No OpenSanctions dataset 'Bad-Name'"):
            load("--list", "os_Bad-Name", "--file", str(OS_PEPS))

    @in_db
    @fresh
    def test_load_and_screen(self, tmp_path):
        # The file may have any name: the list has one file.
        peps_file = tmp_path / "peps-2026-03-01.json"
        shutil.copy(OS_PEPS, peps_file)
        load("--list", "os_sanctions", "--file", str(OS_SANCTIONS))
        assert "os_peps: parsed 3 entries" in load("--list", "os_peps", "--file", str(peps_file))
        assert_stored("os_sanctions", entries=5)
        assert assert_stored("os_peps", entries=3, category="pep").published_at == datetime(2026, 3, 1, 4, tzinfo=UTC)
        hit = hit_on("os_peps", "Marisol Quintanilla Ochoa", kind="individual", date_of_birth=date(1966, 5, 5))
        assert (hit.entry_uid, hit.entry_kind) == ("Q-smplPep001", "individual")
        assert hit_on("os_sanctions", "Valerian Gorshkalev", kind="individual").entry_uid == "NK-smpl4Qv7TzXk2bWm9"
        assert hit_on("os_sanctions", "Ocean Pearl 7").entry_uid == "NK-smplVsl9Hh2Pq4Rt"
