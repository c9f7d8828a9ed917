"""The lists the rules read: services (normalisation, roles, tenancy, audit), what the engine gets,
seeding on organization creation, `seed_lists` and `load_address_tags`."""

from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from accounts.services import user_create_verified
from common.errors import Conflict, Forbidden, NotFound, ValidationFailed
from common.models import AuditLogEntry
from common.principal import Principal
from monitoring.configuration import services
from monitoring.configuration.selectors import lists_summary, org_lists
from monitoring.models import AddressTag, AssetPrice, BlockedAddress, CodeListEntry
from organizations import hooks
from organizations.services import organization_create
from tests.monitoring.test_rules_api import sanctions_address  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db
CHECKSUMMED = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
EVM = CHECKSUMMED.lower()


def principal(org, role="admin", user=None) -> Principal:
    return Principal(credential="session", organization=org, mode="live", role=role, user=user or org.memberships.first().user)


def add(org, kind, role="admin", **fields):
    return services.list_entry_add(principal=principal(org, role), kind=kind, fields=fields)


def problems(excinfo) -> dict[str, str]:
    return {detail["field"]: detail["message"] for detail in excinfo.value.details}


class TestEntries:
    def test_address_tag_is_normalised_and_audited(self, org):
        tag = add(org, "address_tag", chain_id="1", address=f"  {CHECKSUMMED} ", category="Stolen Funds", source="chainalysis")
        assert (tag.chain_id, tag.address, tag.category, tag.source) == (1, EVM, "stolen_funds", "chainalysis")
        entry = AuditLogEntry.objects.get(action="address_tag.added")
        assert entry.object_id == str(tag.pk) and entry.organization_id == org.pk
        assert entry.after == {"chain_id": 1, "address": EVM, "category": "stolen_funds", "source": "chainalysis"}

    def test_an_evm_address_for_every_chain_is_checked_and_lower_cased(self, org):
        assert add(org, "blocked_address", chain_id=None, address=CHECKSUMMED).address == EVM
        with pytest.raises(ValidationFailed) as excinfo:
            add(org, "blocked_address", chain_id="", address=CHECKSUMMED.replace("a", "A", 1))
        assert "checksum" in problems(excinfo)["address"]

    def test_off_chain_identifiers_are_kept_as_written(self, org):
        assert add(org, "address_tag", chain_id=0, address="ACCT-001/x", category="exchange").address == "ACCT-001/x"

    @pytest.mark.parametrize(("kind", "fields", "field"), [
        ("address_tag", {"chain_id": 1, "address": "0x1234", "category": "mixer"}, "address"),
        ("address_tag", {"chain_id": -1, "address": EVM, "category": "mixer"}, "chain_id"),
        ("address_tag", {"chain_id": "one", "address": EVM, "category": "mixer"}, "chain_id"),
        ("address_tag", {"chain_id": 2**63, "address": EVM, "category": "mixer"}, "chain_id"),
        ("address_tag", {"chain_id": 1, "address": EVM, "category": "mixer!"}, "category"),
        ("address_tag", {"chain_id": 1, "address": EVM, "category": ""}, "category"),
        ("address_tag", {"chain_id": 0, "address": "a\x00b", "category": "mixer"}, "address"),
        ("address_tag", {"chain_id": 0, "address": "x" * 201, "category": "mixer"}, "address"),
        ("blocked_address", {"chain_id": 1, "address": "", "reason": "x"}, "address"),
        ("blocked_address", {"chain_id": 1, "address": EVM, "reason": "r" * 301}, "reason"),
        ("asset_price", {"asset": "", "usd_rate": "1"}, "asset"),
        ("asset_price", {"asset": "US DOLLAR", "usd_rate": "1"}, "asset"),
        ("asset_price", {"asset": "BTC", "usd_rate": "0"}, "usd_rate"),
        ("asset_price", {"asset": "BTC", "usd_rate": "-3"}, "usd_rate"),
        ("asset_price", {"asset": "BTC", "usd_rate": "NaN"}, "usd_rate"),
        ("asset_price", {"asset": "BTC", "usd_rate": "0.0000000000001"}, "usd_rate"),
        ("asset_price", {"asset": "BTC", "usd_rate": "1" * 19}, "usd_rate"),
        ("asset_price", {"asset": "USD", "usd_rate": "2"}, "usd_rate"),
        ("asset_price", {"asset": "ETH", "usd_rate": "3000", "decimals": 78}, "decimals"),
        ("asset_price", {"asset": "ETH", "usd_rate": "3000", "decimals": "18.5"}, "decimals"),
        ("asset_price", {"asset": "ETH", "usd_rate": "3000", "decimals": -1}, "decimals"),
        ("code_list_entry", {"list_name": "high_risk_jurisdictions", "code": "ZZ"}, "code"),
        ("code_list_entry", {"list_name": "high_risk_jurisdictions", "code": "PRK"}, "code"),
        ("code_list_entry", {"list_name": "high_risk_mccs", "code": "48"}, "code"),
        ("code_list_entry", {"list_name": "privacy_assets", "code": "X M R"}, "code"),
        ("code_list_entry", {"list_name": "favourite_colours", "code": "RED"}, "list_name"),
    ])
    def test_bad_entries_are_refused_naming_the_field(self, org, kind, fields, field):
        with pytest.raises(ValidationFailed) as excinfo:
            add(org, kind, **fields)
        assert field in problems(excinfo)
        assert not AuditLogEntry.objects.filter(action__endswith=".added").exists()

    def test_every_problem_at_once(self, org):
        with pytest.raises(ValidationFailed) as excinfo:
            add(org, "address_tag", chain_id="x", address="", category="?")
        assert set(problems(excinfo)) == {"chain_id", "address", "category"}

    def test_codes_are_upper_cased(self, org):
        assert add(org, "code_list_entry", list_name="high_risk_jurisdictions", code=" sy ").code == "SY"
        assert add(org, "code_list_entry", list_name="privacy_assets", code="xmr").code == "XMR"
        assert add(org, "asset_price", asset="weth.e", usd_rate="3500.25").asset == "WETH.E"

    def test_below_admin_is_refused(self, org):
        with pytest.raises(Forbidden):
            add(org, "blocked_address", role="l3_officer", chain_id=1, address=EVM)
        assert not BlockedAddress.objects.exists()

    def test_adding_again_is_idempotent(self, org):
        first = add(org, "address_tag", chain_id=1, address=EVM, category="mixer", source="a")
        again = add(org, "address_tag", chain_id=1, address=CHECKSUMMED, category="mixer", source="a")
        assert again.pk == first.pk and AddressTag.objects.count() == 1
        assert AuditLogEntry.objects.filter(action__startswith="address_tag.").count() == 1
        changed = add(org, "address_tag", chain_id=1, address=EVM, category="mixer", source="b")
        assert changed.pk == first.pk and changed.source == "b"
        assert AuditLogEntry.objects.get(action="address_tag.updated").before["source"] == "a"

    def test_the_same_address_on_every_chain_is_one_entry(self, org):
        add(org, "blocked_address", chain_id=None, address=EVM, reason="first")
        add(org, "blocked_address", chain_id=None, address=CHECKSUMMED, reason="second")
        assert list(BlockedAddress.objects.values_list("reason", flat=True)) == ["second"]

    def test_update_and_remove(self, org):
        price = add(org, "asset_price", asset="BTC", usd_rate="60000")
        assert price.decimals == 0  # whole units unless said otherwise
        updated = services.list_entry_update(principal=principal(org), kind="asset_price", entry_id=price.pk,
                                             fields={"asset": "btc", "usd_rate": "61000.5", "decimals": "8"})
        assert (updated.asset, updated.usd_rate, updated.decimals) == ("BTC", Decimal("61000.5"), 8)
        services.list_entry_remove(principal=principal(org), kind="asset_price", entry_id=price.pk)
        assert not AssetPrice.objects.exists()
        removed = AuditLogEntry.objects.get(action="asset_price.removed")
        assert removed.object_id == str(price.pk)
        assert removed.before == {"asset": "BTC", "usd_rate": "61000.500000000000", "decimals": 8}

    def test_update_onto_another_entrys_key_is_a_conflict(self, org):
        add(org, "code_list_entry", list_name="privacy_assets", code="XMR")
        other = add(org, "code_list_entry", list_name="privacy_assets", code="ZEC")
        with pytest.raises(Conflict):
            services.list_entry_update(principal=principal(org), kind="code_list_entry", entry_id=other.pk,
                                       fields={"list_name": "privacy_assets", "code": "xmr"})

    def test_another_organizations_entry_is_not_found(self, org, other_org):
        theirs = add(other_org, "blocked_address", chain_id=1, address=EVM)
        for call in (update_as, remove_as):
            with pytest.raises(NotFound):
                call(org, theirs)
        theirs.refresh_from_db()
        assert theirs.address == EVM and theirs.reason == ""


def update_as(org, entry):
    services.list_entry_update(principal=principal(org), kind="blocked_address", entry_id=entry.pk,
                               fields={"chain_id": 1, "address": EVM, "reason": "mine now"})


def remove_as(org, entry):
    services.list_entry_remove(principal=principal(org), kind="blocked_address", entry_id=entry.pk)


class TestWhatTheEngineReads:
    def test_org_lists(self, org, other_org, sanctions_address):  # noqa: F811
        add(org, "address_tag", chain_id=1, address=EVM, category="mixer")
        add(org, "address_tag", chain_id=1, address=EVM, category="exchange")
        add(org, "blocked_address", chain_id=None, address="0x" + "e" * 40)
        add(org, "asset_price", asset="BTC", usd_rate="60000")
        add(org, "code_list_entry", list_name="high_risk_jurisdictions", code="SY")
        add(other_org, "address_tag", chain_id=1, address="0x" + "f" * 40, category="darknet")
        lists = org_lists(org)
        assert lists.address_tags == {(1, EVM): frozenset({"mixer", "exchange"})}
        assert lists.blocked_addresses == frozenset({(None, "0x" + "e" * 40)})
        assert lists.asset_prices == {"USD": 1, "BTC": Decimal(60000)}  # USD is always priced
        assert lists.high_risk_jurisdictions == frozenset({"SY"})
        assert lists.privacy_assets == frozenset({"XMR", "ZEC", "DASH"})  # empty list: the defaults
        assert lists.sanctions_source(137, "0x" + "d" * 40) == "ofac_sdn"  # loaded OFAC addresses, every chain

    def test_summary_counts_loaded_sanctions_addresses_as_tags(self, org, sanctions_address):  # noqa: F811
        summary = lists_summary(org)
        assert summary["sanctions_addresses"] == {"count": 1, "by_list": {"ofac_sdn": 1}, "category": "sanctions"}
        assert summary["address_tags"] == {"count": 0, "by_category": {}}


class TestSeeding:
    def test_a_new_organization_gets_the_default_lists(self, db):
        user = user_create_verified(email="founder@initech.example", password="Correct-Horse-9-Battery")
        org = organization_create(actor=user, name="Initech")
        prices = dict(AssetPrice.objects.filter(organization=org).values_list("asset", "usd_rate"))
        assert prices == {"USD": 1, "USDC": 1, "USDT": 1, "DAI": 1}
        codes = {name: set(CodeListEntry.objects.filter(organization=org, list_name=name).values_list("code", flat=True))
                 for name in CodeListEntry.ListName.values}
        assert codes == {"high_risk_jurisdictions": {"KP", "IR", "MM"}, "privacy_assets": {"XMR", "ZEC", "DASH"},
                         "high_risk_mccs": {"4829", "6051", "6211", "7995", "5993"}}
        assert CodeListEntry.objects.get(organization=org, code="KP").note == "FATF call for action"
        seeded = AuditLogEntry.objects.get(action="monitoring_lists.seeded", organization=org)
        assert seeded.actor_type == "system" and seeded.after["asset_prices"] == ["DAI", "USD", "USDC", "USDT"]
        lists = org_lists(org)
        assert lists.high_risk_mccs == frozenset({"4829", "6051", "6211", "7995", "5993"})
        assert lists_summary(org)["privacy_assets"]["defaults_in_use"] is False

    def test_a_failing_subscriber_does_not_stop_the_organization(self, db):
        def broken(organization):
            AssetPrice.objects.create(organization=organization, asset="HALF", usd_rate=1)
            raise RuntimeError("boom")

        hooks.on_organization_created(broken)
        try:
            user = user_create_verified(email="founder@hooli.example", password="Correct-Horse-9-Battery")
            org = organization_create(actor=user, name="Hooli")
        finally:
            hooks.remove_organization_created(broken)
        assert org.pk and not AssetPrice.objects.filter(asset="HALF").exists()  # its savepoint rolled back alone
        assert AssetPrice.objects.filter(organization=org).count() == 4

    def test_seed_lists_for_older_organizations(self, org, other_org):
        out = StringIO()
        call_command("seed_lists", "--org", org.slug, stdout=out)
        assert "acme: asset_prices: DAI, USD, USDC, USDT" in out.getvalue()
        assert AssetPrice.objects.filter(organization=org).count() == 4 and not AssetPrice.objects.filter(organization=other_org).exists()
        out = StringIO()
        call_command("seed_lists", "--org", org.slug, stdout=out)
        assert out.getvalue() == "acme: nothing to add\n"
        assert AuditLogEntry.objects.filter(action="monitoring_lists.seeded").count() == 1

    def test_seed_lists_never_changes_what_an_organization_edited(self, org):
        services.lists_seed(organization=org)
        AssetPrice.objects.filter(organization=org, asset="USDT").update(usd_rate=Decimal("0.998"))
        CodeListEntry.objects.filter(organization=org, code="KP").delete()
        AssetPrice.objects.filter(organization=org).exclude(asset="USDT").delete()
        call_command("seed_lists", stdout=StringIO())
        assert list(AssetPrice.objects.filter(organization=org).values_list("asset", "usd_rate")) == [("USDT", Decimal("0.998"))]
        assert not CodeListEntry.objects.filter(organization=org, code="KP").exists()
        call_command("seed_lists", "--org", org.slug, "--add-missing", stdout=StringIO())
        assert AssetPrice.objects.get(organization=org, asset="USDT").usd_rate == Decimal("0.998")
        assert AssetPrice.objects.filter(organization=org).count() == 4
        assert CodeListEntry.objects.filter(organization=org, code="KP").exists()

    def test_seed_lists_unknown_organization(self, db):
        with pytest.raises(CommandError, match="nope"):
            call_command("seed_lists", "--org", "nope")


GOOD = f"""chain_id,address,category,source
1,{CHECKSUMMED},mixer,
,0x{"b" * 40},darknet,
0,ACCT-9,exchange,bank-feed
"""


def load(tmp_path, text: str, *args, name="tags.csv", encoding="utf-8", rejected: int = 0):
    """Run the command; with `rejected`, it must exit non-zero saying that many rows were rejected."""
    path = tmp_path / name
    path.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    out, err = StringIO(), StringIO()
    if rejected:
        with pytest.raises(CommandError, match=rf"^{rejected} row\(s\) rejected, listed above; the other rows are loaded"):
            call_command("load_address_tags", str(path), *args, stdout=out, stderr=err)
    else:
        call_command("load_address_tags", str(path), *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def stored(org) -> set[tuple]:
    return set(AddressTag.objects.filter(organization=org).values_list("chain_id", "address", "category", "source"))


class TestLoadAddressTags:
    def test_good_rows(self, org, other_org, tmp_path):
        out, err = load(tmp_path, GOOD, "--org", org.slug)
        assert stored(org) == {(1, EVM, "mixer", "tags"), (None, "0x" + "b" * 40, "darknet", "tags"),
                               (0, "ACCT-9", "exchange", "bank-feed")}
        assert not stored(other_org) and err == ""
        assert "Done: 3 rows, 3 new, 0 updated, 0 unchanged, 0 duplicates in the file, 0 invalid (skipped), 0 removed." in out
        loaded = AuditLogEntry.objects.get(action="address_tags.loaded")
        assert loaded.organization_id == org.pk and loaded.after["created"] == 3 and loaded.actor_type == "system"

    def test_loading_again_changes_nothing(self, org, tmp_path):
        load(tmp_path, GOOD, "--org", org.slug)
        before = set(AddressTag.objects.values_list("pk", "updated_at"))
        out, _ = load(tmp_path, GOOD, "--org", org.slug)
        assert "3 rows, 0 new, 0 updated, 3 unchanged" in out
        assert set(AddressTag.objects.values_list("pk", "updated_at")) == before

    def test_bad_rows_are_reported_with_line_numbers_and_skipped(self, org, tmp_path):
        text = (f"Chain_ID,Address,Category\n1,{EVM},mixer\n1,0x123,mixer\n"
                f"x,{EVM},scam\n1,{EVM},\n\n1,{EVM},scam,extra\n1,{CHECKSUMMED},Mixer\n1,\"0x12\n34\",fraud\n")
        out, err = load(tmp_path, text, "--org", org.slug, "--source", "vendor", rejected=5)
        lines = err.splitlines()
        assert lines[0] == "line 3: address: An EVM address is 0x followed by 40 hexadecimal characters."
        assert lines[1] == "line 4: chain_id: must be a whole number, or empty for every chain"
        assert lines[2] == "line 5: category: is required"
        assert lines[3] == "line 7: the row has more cells than the header has columns"
        assert lines[4].startswith("line 10: address: must not contain control characters; "  # a quoted newline: the row ends on line 10
                                   "category: 'fraud' is not a known category; use one of sanctions, mixer, darknet,")
        assert "5 invalid (skipped)" in out and "1 duplicates in the file" in out
        assert stored(org) == {(1, EVM, "mixer", "vendor")}

    def test_unknown_categories_are_refused_with_their_line(self, org, tmp_path):
        text = (f"chain_id,address,category\n1,{EVM},tumbler\n0,ACCT-1,Stolen Funds\n0,ACCT-2,gambling\n"
                f"0,ACCT-3,terrorist-financing\n0,ACCT-4,payment processor\n")
        out, err = load(tmp_path, text, "--org", org.slug, rejected=2)
        known = ("sanctions, mixer, darknet, ransomware, scam, stolen_funds, terrorist_financing, "
                 "exchange, vasp, custodian, payment_processor, merchant, bridge, defi")
        assert err.splitlines() == [f"line 2: category: 'tumbler' is not a known category; use one of {known}",
                                    f"line 4: category: 'gambling' is not a known category; use one of {known}"]
        assert "5 rows, 3 new" in out and "2 invalid (skipped)" in out
        assert stored(org) == {(0, "ACCT-1", "stolen_funds", "tags"), (0, "ACCT-3", "terrorist_financing", "tags"),
                               (0, "ACCT-4", "payment_processor", "tags")}

    def test_a_row_source_wins_and_a_changed_source_updates(self, org, tmp_path):
        load(tmp_path, GOOD, "--org", org.slug, "--source", "first")
        out, _ = load(tmp_path, GOOD, "--org", org.slug, "--source", "second")
        assert "3 rows, 0 new, 2 updated, 1 unchanged" in out
        assert {tag[3] for tag in stored(org)} == {"second", "bank-feed"}

    def test_replace_removes_what_the_file_no_longer_lists_for_its_sources(self, org, tmp_path):
        load(tmp_path, GOOD, "--org", org.slug)
        add(org, "address_tag", chain_id=1, address="0x" + "9" * 40, category="mixer", source="manual")
        out, _ = load(tmp_path, f"chain_id,address,category\n1,{EVM},mixer\n", "--org", org.slug, "--replace")
        assert "1 removed" in out
        assert stored(org) == {(1, EVM, "mixer", "tags"), (0, "ACCT-9", "exchange", "bank-feed"),
                               (1, "0x" + "9" * 40, "mixer", "manual")}

    def test_replace_removes_nothing_when_rows_were_invalid(self, org, tmp_path):
        load(tmp_path, GOOD, "--org", org.slug)
        out, err = load(tmp_path, f"chain_id,address,category\n1,{EVM},mixer\n1,0xbad,mixer\n", "--org", org.slug, "--replace", rejected=1)
        assert "0 removed" in out and "--replace removed nothing" in err
        assert len(stored(org)) == 3

    def test_progress_is_reported_per_chunk(self, org, tmp_path):
        rows = "".join(f"0,ACCT-{n},exchange\n" for n in range(1200))
        out, _ = load(tmp_path, "chain_id,address,category\n" + rows, "--org", org.slug)
        assert "  500 rows read" in out and "  1,000 rows read" in out and "1,200 rows, 1,200 new" in out
        assert AddressTag.objects.filter(organization=org).count() == 1200

    @pytest.mark.parametrize("header", ["address,category", "chain_id,address,category,colour", "chain_id,address,address,category", ""])
    def test_a_bad_header_loads_nothing(self, org, tmp_path, header):
        with pytest.raises(CommandError, match="header"):
            load(tmp_path, f"{header}\n1,{EVM},mixer\n", "--org", org.slug)
        assert not AddressTag.objects.exists()

    def test_not_utf8_loads_nothing(self, org, tmp_path):
        text = "chain_id,address,category\n0,ACCT-1,exchange\n0,Caf\u00e9,exchange\n"
        with pytest.raises(CommandError, match="not a readable UTF-8 CSV"):
            load(tmp_path, text, "--org", org.slug, encoding="latin-1")
        assert not AddressTag.objects.exists() and not AuditLogEntry.objects.filter(action="address_tags.loaded").exists()

    def test_unknown_organization_and_missing_file(self, org, tmp_path):
        with pytest.raises(CommandError, match="No organization"):
            load(tmp_path, GOOD, "--org", "nope")
        with pytest.raises(CommandError, match="Cannot read"):
            call_command("load_address_tags", str(tmp_path / "missing.csv"), "--org", org.slug)
