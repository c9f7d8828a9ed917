"""The console's rule settings (all 53 rules, edits through rule_setting_update) and list admins
(through the list services: same validation, role check and audit)."""

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from common.models import AuditLogEntry
from monitoring.models import AddressTag, AssetPrice, BlockedAddress, CodeListEntry, RuleSetting
from monitoring.rules.registry import NOT_A_NUMBER
from organizations.models import Membership
from tests.monitoring.test_rules_api import sanctions_address  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db
CHECKSUMMED = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
RULES_URL = "/admin/monitoring/rulesetting/"


def rule_url(org, rule="large_transfer"):
    return reverse("admin:monitoring_rulesetting_rule", args=[org.pk, rule])


@pytest.fixture
def console(client, make_user):
    user = make_user("operator@example.com")
    user.is_staff = user.is_superuser = True
    user.save()
    client.force_login(user)
    return client


@pytest.fixture
def staff(client, make_user):
    """staff(org, role) → a client signed in as a non-superuser staff member of `org` with the monitoring permissions."""

    def make(org, role):
        user = make_user(f"{role}@staff.example")
        user.is_staff = True
        user.save()
        user.user_permissions.set(Permission.objects.filter(content_type__app_label="monitoring"))
        Membership.objects.create(organization=org, user=user, role=role)
        client.force_login(user)
        return client

    return make


def messages_of(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


class TestRuleSettings:
    def test_every_rule_is_listed_without_a_stored_setting(self, console, org, sanctions_address):  # noqa: F811
        RuleSetting.objects.create(organization=org, rule_code="card_testing", enabled=False, parameters={"min_count": 8})
        response = console.get(f"{RULES_URL}?organization={org.pk}")
        assert response.status_code == 200
        rules = response.context["rules"]
        assert [rule["number"] for rule in rules] == list(range(1, 54))
        assert rules[39]["enabled"] is False and ("min_count", "8", True) in rules[39]["shown_parameters"]
        page = response.content.decode()
        assert 'id="rule-50"' in page and rule_url(org, "check_kiting") in page
        assert "1 addresses of the loaded sanctions lists count as <code>sanctions</code> tags (ofac_sdn 1)" in page

    def test_the_organization_can_be_chosen(self, console, org, other_org):
        RuleSetting.objects.create(organization=other_org, rule_code="large_transfer", enabled=False)
        mine = console.get(f"{RULES_URL}?organization={org.pk}").context["rules"][0]
        theirs = console.get(f"{RULES_URL}?organization={other_org.pk}").context["rules"][0]
        assert mine["enabled"] is True and theirs["enabled"] is False

    def test_a_stored_setting_opens_its_rule_page(self, console, org):
        setting = RuleSetting.objects.create(organization=org, rule_code="fan_in")
        response = console.get(f"{RULES_URL}{setting.pk}/change/")
        assert response.status_code == 302 and response["Location"] == rule_url(org, "fan_in")

    def test_the_rule_page_renders(self, console, org):
        response = console.get(rule_url(org, "3"))
        assert response.status_code == 200
        page = response.content.decode()
        assert "structuring_below_threshold" in page and 'name="param_band_floor_pct"' in page and "default: 80" in page

    def test_an_edit_goes_through_the_service(self, console, org):
        response = console.post(rule_url(org, "structuring_below_threshold"), {
            "severity": "critical", "param_threshold_usd": "5000", "param_min_count": "", "param_band_floor_pct": "",
            "param_window_hours": "48", "_save": "Save"}, follow=True)
        assert response.status_code == 200 and any("saved" in m for m in messages_of(response))
        stored = RuleSetting.objects.get(organization=org)
        assert (stored.enabled, stored.severity, stored.parameters) == (False, "critical", {"threshold_usd": "5000", "window_hours": 48})
        entry = AuditLogEntry.objects.get(action="rule_setting.updated")
        assert entry.actor_label == "operator@example.com" and entry.organization_id == org.pk

    def test_lists_are_comma_separated(self, console, org):
        console.post(rule_url(org, "38"), {"enabled": "on", "param_window_hours": "", "param_event_types": "wire_in, wire_out"})
        assert RuleSetting.objects.get().parameters == {"event_types": ["wire_in", "wire_out"]}

    def test_bad_values_are_shown_beside_their_field_and_nothing_is_stored(self, console, org):
        response = console.post(rule_url(org, "3"), {"enabled": "on", "param_threshold_usd": "-1", "param_min_count": "many"})
        assert response.status_code == 200
        form = response.context["form"]
        assert form.errors["param_threshold_usd"] == ["threshold_usd must be at least 1"]
        assert form.errors["param_min_count"] == [f"min_count {NOT_A_NUMBER}"]
        assert not RuleSetting.objects.exists() and not AuditLogEntry.objects.filter(action="rule_setting.updated").exists()

    def test_a_cross_parameter_problem_is_shown_on_the_form(self, console, org):
        response = console.post(rule_url(org, "25"), {"enabled": "on", "param_threshold_usd": "3000", "param_band_floor_usd": "5000"})
        assert response.context["form"].non_field_errors() == ["band_floor_usd must be below threshold_usd"]
        assert not RuleSetting.objects.exists()

    def test_reset_to_defaults(self, console, org):
        RuleSetting.objects.create(organization=org, rule_code="large_transfer", enabled=False, severity="low",
                                   parameters={"threshold_usd": "1"})
        console.post(rule_url(org), {"param_threshold_usd": "1", "_reset": "Reset"})
        stored = RuleSetting.objects.get()
        assert (stored.enabled, stored.severity, stored.parameters) == (True, "", {})

    def test_unknown_rule_or_organization(self, console, org):
        assert console.get(rule_url(org, "nope")).status_code == 404
        unknown = reverse("admin:monitoring_rulesetting_rule", args=["6f1c1c1e-0000-4000-8000-000000000000", "1"])
        assert console.get(unknown).status_code == 404

    def test_a_member_below_admin_is_refused_by_the_service(self, staff, org):
        client = staff(org, "l3_officer")
        response = client.post(rule_url(org), {"param_threshold_usd": "1"}, follow=True)
        assert any("needs the role admin" in m for m in messages_of(response))
        assert not RuleSetting.objects.exists()

    def test_a_member_sees_only_their_organizations(self, staff, org, other_org):
        client = staff(org, "admin")
        response = client.get(f"{RULES_URL}?organization={other_org.pk}")
        assert response.context["organization"] == org and response.context["organizations"] == [org]
        assert client.get(rule_url(other_org)).status_code == 404
        assert client.post(rule_url(org), {"param_threshold_usd": "20000"}).status_code == 302
        assert RuleSetting.objects.get().organization == org


class TestLists:
    def test_pages_render(self, console, org, sanctions_address):  # noqa: F811
        tag = AddressTag.objects.create(organization=org, chain_id=None, address="0x" + "a" * 40, category="mixer")
        price = AssetPrice.objects.create(organization=org, asset="BTC", usd_rate=60000)
        blocked = BlockedAddress.objects.create(organization=org, chain_id=1, address="0x" + "b" * 40)
        code = CodeListEntry.objects.create(organization=org, list_name="privacy_assets", code="XMR")
        for model, obj in [("addresstag", tag), ("assetprice", price), ("blockedaddress", blocked), ("codelistentry", code)]:
            for url in (f"/admin/monitoring/{model}/", f"/admin/monitoring/{model}/add/", f"/admin/monitoring/{model}/{obj.pk}/change/"):
                assert console.get(url).status_code == 200, url
        page = console.get("/admin/monitoring/addresstag/").content.decode()
        assert "every chain" in page and 'id="sanctions-addresses"' in page and "1 addresses of the loaded sanctions lists" in page

    def test_address_tag_search(self, console, org):
        AddressTag.objects.create(organization=org, chain_id=1, address=CHECKSUMMED.lower(), category="mixer")
        AddressTag.objects.create(organization=org, chain_id=1, address="0x" + "c" * 40, category="scam")
        response = console.get(f"/admin/monitoring/addresstag/?q={CHECKSUMMED}")
        assert [tag.category for tag in response.context["cl"].result_list] == ["mixer"]

    def test_adding_a_tag_normalises_and_audits(self, console, org):
        response = console.post("/admin/monitoring/addresstag/add/", {
            "organization": org.pk, "chain_id": "", "address": CHECKSUMMED, "category": "Stolen Funds", "source": "analyst"})
        assert response.status_code == 302
        tag = AddressTag.objects.get()
        assert (tag.chain_id, tag.address, tag.category) == (None, CHECKSUMMED.lower(), "stolen_funds")
        assert AuditLogEntry.objects.get(action="address_tag.added").object_id == str(tag.pk)

    def test_a_bad_address_is_shown_on_the_form(self, console, org):
        response = console.post("/admin/monitoring/addresstag/add/", {
            "organization": org.pk, "chain_id": "1", "address": CHECKSUMMED.replace("a", "A", 1), "category": "mixer"})
        assert response.status_code == 200
        assert "checksum" in response.context["adminform"].form.errors["address"][0]
        assert not AddressTag.objects.exists()

    def test_a_duplicate_is_refused_on_the_form(self, console, org):
        AddressTag.objects.create(organization=org, chain_id=1, address=CHECKSUMMED.lower(), category="mixer")
        response = console.post("/admin/monitoring/addresstag/add/", {
            "organization": org.pk, "chain_id": "1", "address": CHECKSUMMED, "category": "MIXER"})
        assert response.status_code == 200 and response.context["adminform"].form.errors
        assert AddressTag.objects.count() == 1

    def test_an_unknown_category_is_refused_on_the_form(self, console, org):
        response = console.post("/admin/monitoring/addresstag/add/", {
            "organization": org.pk, "chain_id": "1", "address": CHECKSUMMED, "category": "tumbler"})
        assert response.context["adminform"].form.errors["category"][0].startswith("'tumbler' is not a known category; use one of")
        assert not AddressTag.objects.exists()

    def test_usd_is_always_one(self, console, org):
        response = console.post("/admin/monitoring/assetprice/add/", {"organization": org.pk, "asset": "usd", "usd_rate": "2",
                                                                     "decimals": "0"})
        assert response.context["adminform"].form.errors["usd_rate"] == ["usd_rate of USD is always 1."]
        assert not AssetPrice.objects.exists()

    def test_a_bad_code_is_refused(self, console, org):
        response = console.post("/admin/monitoring/codelistentry/add/", {
            "organization": org.pk, "list_name": "high_risk_mccs", "code": "48x9", "note": ""})
        assert "4 digits" in response.context["adminform"].form.errors["code"][0]
        assert not CodeListEntry.objects.exists()

    def test_editing_an_entry_goes_through_the_service(self, console, org):
        price = AssetPrice.objects.create(organization=org, asset="BTC", usd_rate=60000)
        response = console.post(f"/admin/monitoring/assetprice/{price.pk}/change/", {"asset": "btc", "usd_rate": "61000", "decimals": "8"})
        assert response.status_code == 302
        price.refresh_from_db()
        assert (price.usd_rate, price.decimals) == (61000, 8)
        assert AuditLogEntry.objects.get(action="asset_price.updated").after == {"asset": "BTC", "usd_rate": "61000", "decimals": 8}

    def test_deleting_goes_through_the_service(self, console, org):
        blocked = BlockedAddress.objects.create(organization=org, chain_id=1, address="0x" + "b" * 40)
        other = BlockedAddress.objects.create(organization=org, chain_id=1, address="0x" + "c" * 40)
        console.post(f"/admin/monitoring/blockedaddress/{blocked.pk}/delete/", {"post": "yes"})
        console.post("/admin/monitoring/blockedaddress/", {"action": "delete_selected", "_selected_action": [other.pk], "post": "yes"})
        assert not BlockedAddress.objects.exists()
        assert AuditLogEntry.objects.filter(action="blocked_address.removed").count() == 2

    def test_a_member_below_admin_cannot_change_lists(self, staff, org):
        client = staff(org, "l2_investigator")
        response = client.post("/admin/monitoring/blockedaddress/add/", {
            "organization": org.pk, "chain_id": "1", "address": CHECKSUMMED, "reason": "fraud ring"}, follow=True)
        assert any("needs the role admin" in m for m in messages_of(response))
        assert not any("was added successfully" in m for m in messages_of(response))
        assert not BlockedAddress.objects.exists()

    def test_a_member_sees_only_their_organizations_entries(self, staff, org, other_org):
        AddressTag.objects.create(organization=org, chain_id=1, address="0x" + "a" * 40, category="mixer")
        theirs = AddressTag.objects.create(organization=other_org, chain_id=1, address="0x" + "b" * 40, category="mixer")
        client = staff(org, "admin")
        assert [tag.organization for tag in client.get("/admin/monitoring/addresstag/").context["cl"].result_list] == [org]
        assert client.get(f"/admin/monitoring/addresstag/{theirs.pk}/change/").status_code == 302  # not found: back to the list
        form = client.get("/admin/monitoring/addresstag/add/").context["adminform"].form
        assert list(form.fields["organization"].queryset) == [org]
