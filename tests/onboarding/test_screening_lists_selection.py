"""Each organization chooses the lists it screens against: the selector (defaults, settings), the
service (admin only, audited, known lists only), screening filtered by the chosen lists (before the
matcher's candidate limit), PEP lists recorded as `pep` checks, the hits' list names in the API, and
the console's "Screening lists" page.

The real OFAC SDN and UN lists are loaded for the module; the small lists of a test (a made-up
US CSL entry, a made-up PEP dataset) are loaded inside the test's transaction and rolled back."""

import pytest

from common.errors import Forbidden, ValidationFailed
from common.models import AuditLogEntry
from common.principal import Principal
from compliance.models import OnchainStatusUpdate
from onboarding.models import ComplianceCheck, Entity, ScreeningHit, ScreeningListSetting, Wallet
from onboarding.models.sanctions import ListCategory, SanctionsList
from onboarding.sanctions.loader import sanctions_list_load
from onboarding.sanctions.records import ParsedDigitalAddress, ParsedEntry, ParsedList, ParsedName, ParseReport
from onboarding.sanctions.registry import default_enabled, list_name
from onboarding.screening import screen_address, screen_name
from onboarding.screening.index import EntryRecord, ListInfo, build_index_from_rows
from onboarding.screening.matcher import CANDIDATE_LIMIT
from onboarding.selectors import screening_list_views, screening_sources, screening_sources_forget
from onboarding.services import entity_screen, screening_list_set
from organizations.models import Membership
from tests.onboarding.helpers import PLAIN_ETH, entity_url, onboard

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sanctions_index")]

CSL_NAME = "Korvanthe Ilmbridge Maritime"  # on the made-up US CSL list only
PEP_NAME = "Ottoline Vasquez Brandauer"  # on the made-up PEP dataset only
PEP_ETH = "0x1111222233334444555566667777888899990000"  # listed on the PEP dataset: must flag no wallet


def load_list(source: str, entries: list[ParsedEntry], *, category: str = ListCategory.SANCTIONS) -> SanctionsList:
    parsed = ParsedList(source=source, content_hash=f"{source}-test", entries=entries, report=ParseReport(),
                        source_files=[f"{source}.test"], version="test-1")
    sanctions_list_load(parsed, category=category, allow_shrink=True)  # us_csl replaces the bundled extract for the test
    return SanctionsList.objects.get(source=source)


@pytest.fixture
def csl(fresh_index):
    return load_list("us_csl", [
        ParsedEntry(uid="CSL-4711", kind="entity", primary_name=CSL_NAME.upper(), programs=["EL"],
                    names=[ParsedName(CSL_NAME.upper(), "primary")]),
    ])


@pytest.fixture
def peps(fresh_index):
    return load_list("os_peps", [
        ParsedEntry(uid="Q-98765", kind="individual", primary_name=PEP_NAME, birth_dates=["1961-03-14"], countries=["AT"],
                    names=[ParsedName(PEP_NAME, "primary")],
                    digital_addresses=[ParsedDigitalAddress("ETH", PEP_ETH, PEP_ETH)]),
    ], category=ListCategory.PEP)


def as_member(organization, role: str = "admin") -> Principal:
    membership = Membership.objects.filter(organization=organization, role=role).select_related("user").first()
    user = membership.user if membership else None
    return Principal(credential="session", organization=organization, mode="test", role=role, user=user)


@pytest.fixture
def client(api, org, key):
    return api(key(org, role="l2_investigator"))


@pytest.fixture
def other_client(api, other_org, key):
    return api(key(other_org, role="l2_investigator"))


def checks(entity_id, check_type: str):
    return ComplianceCheck.objects.filter(entity_id=entity_id, check_type=check_type, provider="builtin").order_by("created_at", "id")


# --- Which lists -------------------------------------------------------------------------------------

class TestSources:
    def test_without_settings_the_defaults_apply(self, org, csl, peps):
        loaded = set(SanctionsList.objects.values_list("source", flat=True))
        assert {"ofac_sdn", "un_consolidated", "us_csl", "os_peps"} <= loaded
        assert screening_sources(org) == {source for source in loaded if default_enabled(source)}
        assert default_enabled("ofac_sdn") and default_enabled("un_consolidated") and not default_enabled("os_peps")
        assert screening_sources(org.pk) == screening_sources(org)  # an id does as well
        assert screening_sources(org) == {view.source for view in screening_list_views(org) if view.screened}

    def test_settings_override_the_defaults_for_their_organization_only(self, org, other_org, csl, peps):
        ScreeningListSetting.objects.create(organization=org, source="un_consolidated", enabled=False)
        ScreeningListSetting.objects.create(organization=org, source="os_peps", enabled=True)
        ScreeningListSetting.objects.create(organization=org, source="uk_sanctions", enabled=True)  # not loaded: not screened
        chosen = screening_sources(org)
        assert "un_consolidated" not in chosen and {"ofac_sdn", "os_peps"} <= chosen and "uk_sanctions" not in chosen
        assert {"ofac_sdn", "un_consolidated"} <= screening_sources(other_org) and "os_peps" not in screening_sources(other_org)

    def test_read_once_then_kept_until_the_service_changes_them(self, org, django_assert_num_queries):
        with django_assert_num_queries(1):
            assert "un_consolidated" in screening_sources(org)
        with django_assert_num_queries(0):
            assert "un_consolidated" in screening_sources(org.pk)
        screening_list_set(actor=as_member(org), organization=org, source="un_consolidated", enabled=False)
        with django_assert_num_queries(1):
            assert "un_consolidated" not in screening_sources(org)

    def test_another_process_sees_a_change_once_its_copy_expired(self, org, settings):
        assert "un_consolidated" in screening_sources(org)
        ScreeningListSetting.objects.create(organization=org, source="un_consolidated", enabled=False)  # as another process would
        assert "un_consolidated" in screening_sources(org)
        settings.SCREENING_SOURCES_CACHE_SECONDS = 0
        screening_sources_forget(org)
        assert "un_consolidated" not in screening_sources(org)
        assert "un_consolidated" not in screening_sources(org)  # expired at once: read again


class TestService:
    def test_an_admin_turns_a_list_off_and_on_with_an_audit_row_each_time(self, org):
        admin = as_member(org)
        setting = screening_list_set(actor=admin, organization=org, source="un_consolidated", enabled=False)
        assert (setting.organization_id, setting.source, setting.enabled, setting.updated_by) == (
            org.pk, "un_consolidated", False, admin.user.email)
        assert "un_consolidated" not in screening_sources(org)
        entry = AuditLogEntry.objects.get(action="screening_list.updated", object_id=str(setting.pk))
        assert entry.organization_id == org.pk and entry.actor_type == "user" and entry.actor_label == admin.user.email
        assert entry.before == {"source": "un_consolidated", "enabled": True, "chosen": None, "default": True}
        assert entry.after == {"source": "un_consolidated", "enabled": False, "chosen": False, "default": True}

        screening_list_set(actor=admin, organization=org, source="un_consolidated", enabled=True)
        assert ScreeningListSetting.objects.get(organization=org, source="un_consolidated").enabled is True
        assert "un_consolidated" in screening_sources(org)
        assert AuditLogEntry.objects.filter(action="screening_list.updated", organization=org).count() == 2

    @pytest.mark.parametrize("role", ["viewer", "l1_analyst", "l2_investigator", "l3_officer"])
    def test_a_non_admin_is_refused(self, org, role):
        with pytest.raises(Forbidden) as refused:
            screening_list_set(actor=as_member(org, role), organization=org, source="un_consolidated", enabled=False)
        assert refused.value.status_code == 403 and "admin" in refused.value.message
        assert not ScreeningListSetting.objects.exists()
        assert not AuditLogEntry.objects.filter(action="screening_list.updated").exists()

    def test_another_organizations_admin_is_refused(self, org, other_org):
        with pytest.raises(Forbidden):
            screening_list_set(actor=as_member(other_org), organization=org, source="un_consolidated", enabled=False)
        assert not ScreeningListSetting.objects.exists()

    @pytest.mark.parametrize("source", ["no_such_list", "", "os_not_loaded", "OFAC_SDN"])
    def test_an_unknown_list_is_a_validation_error(self, org, source):
        with pytest.raises(ValidationFailed) as refused:
            screening_list_set(actor=as_member(org), organization=org, source=source, enabled=True)
        assert refused.value.status_code == 422 and refused.value.details[0]["field"] == "source"
        assert not ScreeningListSetting.objects.exists()
        assert not AuditLogEntry.objects.filter(action="screening_list.updated").exists()

    def test_a_loaded_list_without_a_spec_can_be_chosen(self, org, peps):
        screening_list_set(actor=as_member(org), organization=org, source="os_peps", enabled=True)
        assert "os_peps" in screening_sources(org)

    def test_the_last_sanctions_list_stays_on(self, org, peps):
        admin = as_member(org)
        screening_list_set(actor=admin, organization=org, source="os_peps", enabled=True)  # a PEP list is no sanctions list
        screened = [view.source for view in screening_list_views(org) if view.screened and view.category == "sanctions"]
        *others, last = screened
        for source in others:
            screening_list_set(actor=admin, organization=org, source=source, enabled=False)
        with pytest.raises(ValidationFailed) as refused:
            screening_list_set(actor=admin, organization=org, source=last, enabled=False)
        assert refused.value.details[0]["field"] == "enabled" and "last sanctions list" in refused.value.message
        assert not ScreeningListSetting.objects.filter(organization=org, source=last).exists()
        assert screening_sources(org) == {last, "os_peps"}


# --- Screening against the chosen lists ----------------------------------------------------------------

class TestScreeningFollowsTheChoice:
    def test_a_name_on_one_list_is_a_hit_only_where_that_list_is_chosen(self, api, client, other_client, org, other_org, csl,
                                                                        django_capture_on_commit_callbacks):
        screening_list_set(actor=as_member(org), organization=org, source="us_csl", enabled=True)
        screening_list_set(actor=as_member(other_org), organization=other_org, source="us_csl", enabled=False)
        body = {"legal_name": CSL_NAME, "entity_type": "business", "jurisdiction": "PA"}
        screening = onboard(client, django_capture_on_commit_callbacks, body)
        ignoring = onboard(other_client, django_capture_on_commit_callbacks, body)

        [check] = checks(screening["id"], "sanctions")
        assert check.result == "fail" and check.score == 1.0
        hit = ScreeningHit.objects.get(entity_id=screening["id"])
        assert (hit.check_run_id, hit.source, hit.entry_uid, hit.status, hit.active) == (check.pk, "us_csl", "CSL-4711", "open", True)
        assert hit.explanation["list"] == "us_csl" and hit.explanation["entry_uid"] == "CSL-4711"
        assert {entry["source"] for entry in check.details["lists"]} == screening_sources(org) - {"os_peps"}
        assert "us_csl" in {entry["source"] for entry in check.details["lists"]}
        [detail] = check.details["hits"]
        assert (detail["source"], detail["entry_uid"], detail["list_name"]) == ("us_csl", "CSL-4711", list_name("us_csl"))
        stored = Entity.objects.get(pk=screening["id"])
        assert stored.status == "under_review" and stored.sanctioned

        [passed] = checks(ignoring["id"], "sanctions")
        assert passed.result == "pass" and not passed.details["hits"]
        assert not ScreeningHit.objects.filter(entity_id=ignoring["id"]).exists()
        assert "us_csl" not in {entry["source"] for entry in passed.details["lists"]}
        assert {entry["source"] for entry in passed.details["lists"]} == screening_sources(other_org)
        stored = Entity.objects.get(pk=ignoring["id"])
        assert stored.status == "pending" and not stored.sanctioned

        # The hits endpoint names the list and the entry's id on it.
        [shown] = client.get(entity_url(screening, "screening-hits")).json()["data"]
        assert (shown["source"], shown["list_name"], shown["entry_uid"], shown["check_type"]) == (
            "us_csl", list_name("us_csl"), "CSL-4711", "sanctions")
        assert list_name("us_csl")  # the registry's name once the CSL parser is registered, else the source's label
        detail = client.get(entity_url(screening, f"compliance-checks/{check.pk}")).json()
        assert detail["details"]["hits"][0]["list_name"] == list_name("us_csl")

    def test_turning_a_list_off_clears_its_hits_at_the_next_screening(self, client, org, csl, django_capture_on_commit_callbacks):
        admin = as_member(org)
        screening_list_set(actor=admin, organization=org, source="us_csl", enabled=True)
        entity = onboard(client, django_capture_on_commit_callbacks, {"legal_name": CSL_NAME, "entity_type": "business",
                                                                       "jurisdiction": "PA"})
        assert Entity.objects.get(pk=entity["id"]).sanctioned
        screening_list_set(actor=admin, organization=org, source="us_csl", enabled=False)
        entity_screen(entity_id=entity["id"], trigger="lists_chosen")
        first, second = checks(entity["id"], "sanctions")
        assert second.result == "pass" and not ScreeningHit.objects.filter(entity_id=entity["id"], active=True).exists()
        assert ScreeningHit.objects.get(entity_id=entity["id"]).check_run_id == first.pk  # kept for the record, inactive
        assert not Entity.objects.get(pk=entity["id"]).sanctioned

    def test_no_chosen_list_loaded_is_an_error_not_a_pass(self, org, client, django_capture_on_commit_callbacks):
        ScreeningListSetting.objects.bulk_create([ScreeningListSetting(organization=org, source=source, enabled=False)
                                                  for source in SanctionsList.objects.values_list("source", flat=True)])
        entity = onboard(client, django_capture_on_commit_callbacks, {"legal_name": "Maria Jensen", "entity_type": "individual",
                                                                       "jurisdiction": "DK"})
        [check] = checks(entity["id"], "sanctions")
        assert check.result == "error" and check.details["error"] == "lists_not_loaded" and "screens against" in check.summary


class TestChangeRescreens:
    """Turning a list on or off re-screens, once committed, the organization's customers it can affect."""

    def test_turning_a_list_on_then_off_rescreens_the_organizations_customers(self, org, other_org, csl,
                                                                             django_capture_on_commit_callbacks):
        admin = as_member(org)
        with django_capture_on_commit_callbacks(execute=True) as queued:
            screening_list_set(actor=admin, organization=org, source="us_csl", enabled=False)  # on by default
        assert len(queued) == 2  # the cache and the re-screening (nobody to re-screen yet)

        def customer(organization, name, mode="test"):
            entity = Entity.objects.create(organization=organization, mode=mode, legal_name=name, entity_type="business",
                                           jurisdiction="PA")
            entity_screen(entity_id=entity.pk)
            return entity

        listed, plain = customer(org, CSL_NAME), customer(org, "Blue Harbor Logistics Ltd", mode="live")
        rejected = customer(org, "Evergreen Dental GmbH")
        Entity.objects.filter(pk=rejected.pk).update(status="rejected")
        theirs = customer(other_org, CSL_NAME)  # us_csl on there by default: hit already
        assert not ScreeningHit.objects.filter(entity=listed).exists()
        assert ScreeningHit.objects.get(entity=theirs).source == "us_csl"

        with django_capture_on_commit_callbacks(execute=True):
            screening_list_set(actor=admin, organization=org, source="us_csl", enabled=True)
        first, second = checks(listed.pk, "sanctions")
        assert second.details["trigger"] == "lists_changed" and second.result == "fail"
        hit = ScreeningHit.objects.get(entity=listed, active=True)
        assert (hit.check_run_id, hit.source, hit.entry_uid) == (second.pk, "us_csl", "CSL-4711")
        assert Entity.objects.get(pk=listed.pk).sanctioned
        assert checks(plain.pk, "sanctions").count() == 2  # both modes
        assert checks(rejected.pk, "sanctions").count() == 1 and checks(theirs.pk, "sanctions").count() == 1

        with django_capture_on_commit_callbacks(execute=True):
            screening_list_set(actor=admin, organization=org, source="us_csl", enabled=False)
        third = checks(listed.pk, "sanctions").last()
        assert third.pk != second.pk and third.details["trigger"] == "lists_changed" and third.result == "pass"
        assert not ScreeningHit.objects.filter(entity=listed, active=True).exists()
        assert not Entity.objects.get(pk=listed.pk).sanctioned
        assert checks(plain.pk, "sanctions").count() == 2  # no hit on the list: not re-screened
        assert checks(theirs.pk, "sanctions").count() == 1 and ScreeningHit.objects.get(entity=theirs).active

    def test_setting_the_same_state_again_enqueues_nothing(self, org, csl, django_capture_on_commit_callbacks):
        from onboarding import tasks

        admin = as_member(org)
        screening_list_set(actor=admin, organization=org, source="us_csl", enabled=False)
        with django_capture_on_commit_callbacks() as queued:
            screening_list_set(actor=admin, organization=org, source="us_csl", enabled=False)
            screening_list_set(actor=admin, organization=org, source="ofac_sdn", enabled=True)  # on by default already
        sent = [callback.args[0] for callback in queued if getattr(callback, "args", None)]
        assert tasks.rescreen_organization_list not in sent and len(queued) == 2  # the cache, each time
        with django_capture_on_commit_callbacks() as queued:
            screening_list_set(actor=admin, organization=org, source="us_csl", enabled=True)
        sent = [callback.args for callback in queued if getattr(callback, "args", None)]
        assert sent == [(tasks.rescreen_organization_list, (str(org.pk), "us_csl", True), {})]


class TestPepLists:
    @pytest.fixture
    def chosen(self, org, peps):
        screening_list_set(actor=as_member(org), organization=org, source="os_peps", enabled=True)

    def onboard_pep(self, client, capture):
        return onboard(client, capture, {"legal_name": PEP_NAME, "entity_type": "individual", "jurisdiction": "AT",
                                         "date_of_birth": "1961-03-14", "wallets": [{"chain_id": 1, "address": PEP_ETH}]})

    def test_a_pep_match_is_a_pep_check_with_its_hit_not_a_sanctions_hit(self, client, org, chosen, django_capture_on_commit_callbacks):
        entity = self.onboard_pep(client, django_capture_on_commit_callbacks)

        [sanctions] = checks(entity["id"], "sanctions")
        assert sanctions.result == "pass" and not sanctions.details["hits"]
        assert "os_peps" not in {entry["source"] for entry in sanctions.details["lists"]}
        [pep] = checks(entity["id"], "pep")
        assert (pep.result, pep.provider, pep.external, pep.score) == ("review", "builtin", False, 1.0)
        assert [entry["source"] for entry in pep.details["lists"]] == ["os_peps"]
        assert [subject["key"] for subject in pep.details["subjects"]] == ["entity"]  # names only, no wallet
        [hit] = ScreeningHit.objects.filter(entity_id=entity["id"])
        assert (hit.check_run_id, hit.source, hit.entry_uid, hit.subject_type, hit.status) == (pep.pk, "os_peps", "Q-98765", "entity",
                                                                                              "open")
        assert pep.details["hits"][0]["entry_uid"] == "Q-98765" and pep.details["hits"][0]["list_name"] == list_name("os_peps")

        stored = Entity.objects.get(pk=entity["id"])
        assert stored.pep and not stored.sanctioned and stored.status == "under_review"
        wallet = Wallet.objects.get(entity_id=entity["id"])
        assert not wallet.flagged and not OnchainStatusUpdate.objects.filter(wallet=wallet, flagged=True).exists()
        assert not ScreeningHit.objects.filter(entity_id=entity["id"], wallet__isnull=False).exists()
        [shown] = client.get(entity_url(entity, "screening-hits")).json()["data"]
        assert (shown["check_type"], shown["source"], shown["entry_uid"], shown["list_name"]) == (
            "pep", "os_peps", "Q-98765", list_name("os_peps"))

        # A PEP is approved with due diligence: an open PEP match is no sanctions match to decide first.
        approved = client.post(entity_url(entity, "approve"), {"notes": "EDD done"}, format="json")
        assert approved.status_code == 200, approved.json()
        stored = Entity.objects.get(pk=entity["id"])
        assert stored.status == "active" and stored.pep

    def test_the_pep_list_is_not_screened_as_sanctions_even_with_every_list(self, peps):
        assert screen_name(PEP_NAME, sources=frozenset({"ofac_sdn", "un_consolidated"})) == []
        assert [hit.source for hit in screen_name(PEP_NAME)] == ["os_peps"]  # None: every loaded list, as before
        assert screen_address(PEP_ETH, chain_id=1, sources=frozenset({"ofac_sdn"})) == []
        assert [hit.entry_uid for hit in screen_address(PEP_ETH, chain_id=1)] == ["Q-98765"]

    def test_turning_the_pep_list_off_writes_no_pep_check_at_the_next_screening(self, client, org, chosen,
                                                                                django_capture_on_commit_callbacks):
        entity = self.onboard_pep(client, django_capture_on_commit_callbacks)
        assert checks(entity["id"], "pep").count() == 1
        screening_list_set(actor=as_member(org), organization=org, source="os_peps", enabled=False)
        entity_screen(entity_id=entity["id"], trigger="lists_chosen")
        assert checks(entity["id"], "pep").count() == 1 and checks(entity["id"], "sanctions").count() == 2
        assert ScreeningHit.objects.filter(entity_id=entity["id"]).count() == 1  # the PEP match stays on record

    def test_without_a_pep_list_the_builtin_screening_writes_no_pep_check(self, client, peps, django_capture_on_commit_callbacks):
        entity = self.onboard_pep(client, django_capture_on_commit_callbacks)  # os_peps loaded, off by default
        assert not checks(entity["id"], "pep").exists() and checks(entity["id"], "sanctions").get().result == "pass"
        assert not ScreeningHit.objects.filter(entity_id=entity["id"]).exists()
        assert not Entity.objects.get(pk=entity["id"]).pep

    def test_a_pep_match_cleared_as_a_false_positive_clears_the_flag(self, client, chosen, django_capture_on_commit_callbacks):
        entity = self.onboard_pep(client, django_capture_on_commit_callbacks)
        hit = ScreeningHit.objects.get(entity_id=entity["id"])
        cleared = client.post(entity_url(entity, f"screening-hits/{hit.pk}/false-positive"), {"reason": "born 1975, other person"},
                              format="json")
        assert cleared.status_code == 200 and cleared.json()["status"] == "false_positive"
        assert not Entity.objects.get(pk=entity["id"]).pep
        entity_screen(entity_id=entity["id"], trigger="lists_chosen")  # found again: suppressed, still no flag
        latest = checks(entity["id"], "pep").last()
        assert latest.result == "pass" and ScreeningHit.objects.get(entity_id=entity["id"], active=True).status == "suppressed"
        assert not Entity.objects.get(pk=entity["id"]).pep

    def test_a_builtin_rescreening_does_not_undo_a_pep_providers_finding(self, client, org, chosen,
                                                                          django_capture_on_commit_callbacks):
        """Each source is judged by its own latest check: the built-in PEP-list screening and the
        provider's results (here a client's, counted toward the status)."""
        entity = onboard(client, django_capture_on_commit_callbacks, {"legal_name": "Maria Jensen", "entity_type": "individual",
                                                                       "jurisdiction": "DK"})
        assert checks(entity["id"], "pep").get().result == "pass" and not Entity.objects.get(pk=entity["id"]).pep

        def provider_says(result):
            response = client.post("/v1/monitoring/screening", {"entity_id": entity["id"], "check_type": "pep", "provider": "ClientCo",
                                                                "result": result, "update_compliance_status": True}, format="json")
            assert response.status_code == 200, response.json()

        provider_says("review")
        assert Entity.objects.get(pk=entity["id"]).pep
        entity_screen(entity_id=entity["id"], trigger="lists_chosen")  # the built-in PEP check passes again, later
        assert checks(entity["id"], "pep").last().result == "pass" and checks(entity["id"], "pep").count() == 2
        assert Entity.objects.get(pk=entity["id"]).pep
        provider_says("pass")  # the provider's own latest result: nothing found by either source
        assert not Entity.objects.get(pk=entity["id"]).pep
        provider_says("fail")
        assert Entity.objects.get(pk=entity["id"]).pep

    def test_a_providers_pass_does_not_undo_an_open_builtin_pep_match(self, client, org, chosen, django_capture_on_commit_callbacks):
        entity = self.onboard_pep(client, django_capture_on_commit_callbacks)
        assert Entity.objects.get(pk=entity["id"]).pep
        response = client.post("/v1/monitoring/screening", {"entity_id": entity["id"], "check_type": "pep", "provider": "ClientCo",
                                                            "result": "pass", "update_compliance_status": True}, format="json")
        assert response.status_code == 200, response.json()
        assert Entity.objects.get(pk=entity["id"]).pep


# --- The matcher: filtered before the candidate limit -------------------------------------------------------

def test_a_list_left_out_cannot_crowd_out_the_chosen_ones():
    """Many names of one list outrank the single name of another: filtering the hits afterwards
    would lose it (it is never among the CANDIDATE_LIMIT names scored); filtering candidates first
    finds it."""
    crowd = CANDIDATE_LIMIT + 40
    entries = [EntryRecord(id=f"n{number}", source="noise", uid=str(number), reference="", kind="individual",
                           primary_name=f"Karim Haddad {number}", programs=(), birth_dates=(), countries=frozenset(), version_hash="v")
               for number in range(crowd)]
    entries.append(EntryRecord(id="c1", source="chosen", uid="C-1", reference="", kind="individual", primary_name="Karim Abdelkader",
                               programs=(), birth_dates=(), countries=frozenset(), version_hash="v"))  # explains less of the query
    names = [(entry.id, entry.primary_name, "primary") for entry in entries]
    lists = [ListInfo("noise", "1", "h1", "2026-01-01T00:00:00+00:00", crowd),
             ListInfo("chosen", "1", "h2", "2026-01-01T00:00:00+00:00", 1)]
    index = build_index_from_rows(("test",), lists, entries, names, [])
    every = screen_name("Karim Haddad", index=index, limit=500, min_score=0.0)
    assert "chosen" not in {hit.source for hit in every}  # crowded out before scoring
    found = screen_name("Karim Haddad", index=index, limit=500, min_score=0.0, sources=frozenset({"chosen"}))
    assert [(hit.source, hit.entry_uid) for hit in found] == [("chosen", "C-1")]
    assert index.name_mask(frozenset({"noise", "chosen"})) is None  # every list chosen: nothing to filter
    with pytest.raises(Exception, match="none of the lists"):
        screen_name("Karim Haddad", index=index, sources=frozenset({"elsewhere"}))


# --- The console -----------------------------------------------------------------------------------------------

URL = "/admin/onboarding/screeninglistsetting/"


class TestConsole:
    def test_the_page_lists_every_list_and_is_reachable_from_the_index(self, staff, org, csl, peps):
        console = staff(org, "admin")
        assert URL in console.get("/admin/").content.decode()
        page = console.get(URL)
        assert page.status_code == 200
        body = page.content.decode()
        assert "Screening lists" in body
        for source in ("ofac_sdn", "un_consolidated", "us_csl", "os_peps"):
            assert f'id="list-{source}"' in body, source
        for view in screening_list_views(org):
            assert view.name in body
        row = body.split('id="list-ofac_sdn"')[1].split("</tr>")[0]
        sdn = SanctionsList.objects.get(source="ofac_sdn")
        assert "sanctions" in row and str(sdn.entry_count) in row and "on" in row and "(default)" in row and "Turn off" in row
        peps_row = body.split('id="list-os_peps"')[1].split("</tr>")[0]
        assert ">pep<" in peps_row and "off" in peps_row and "Turn on" in peps_row and "1" in peps_row

    def test_an_admin_turns_a_list_on_through_the_service(self, staff, org, peps):
        console = staff(org, "admin")
        response = console.post(URL, {"organization": str(org.pk), "source": "os_peps", "enabled": "on"}, follow=True)
        assert response.status_code == 200 and "screens against" in response.content.decode()
        setting = ScreeningListSetting.objects.get(organization=org, source="os_peps")
        assert setting.enabled and setting.updated_by == f"admin.staff@{org.slug}.example"
        entry = AuditLogEntry.objects.get(action="screening_list.updated", object_id=str(setting.pk))
        assert entry.actor_label == setting.updated_by and entry.after["enabled"] is True
        row = response.content.decode().split('id="list-os_peps"')[1].split("</tr>")[0]
        assert "(chosen)" in row and "Turn off" in row and setting.updated_by in row
        assert "os_peps" in screening_sources(org)

    def test_a_refusal_is_shown_and_changes_nothing(self, staff, org):
        console = staff(org, "admin")
        response = console.post(URL, {"organization": str(org.pk), "source": "no_such_list", "enabled": "on"}, follow=True)
        assert "No list &#x27;no_such_list&#x27;" in response.content.decode() or "No list 'no_such_list'" in response.content.decode()
        assert not ScreeningListSetting.objects.exists()

    @pytest.mark.parametrize("role", ["viewer", "l3_officer"])
    def test_other_roles_see_it_read_only(self, staff, org, role):
        console = staff(org, role)
        body = console.get(URL).content.decode()
        assert 'id="read-only"' in body and "Turn off" not in body and "Turn on" not in body and 'id="list-ofac_sdn"' in body
        response = console.post(URL, {"organization": str(org.pk), "source": "un_consolidated", "enabled": "off"}, follow=True)
        assert "needs the role admin" in response.content.decode()
        assert not ScreeningListSetting.objects.exists()
        assert not AuditLogEntry.objects.filter(action="screening_list.updated").exists()

    def test_another_organizations_lists_are_not_found(self, staff, org, other_org):
        console = staff(other_org, "admin")
        assert console.get(URL, {"organization": str(org.pk)}).status_code == 404
        response = console.post(URL, {"organization": str(org.pk), "source": "un_consolidated", "enabled": "off"})
        assert response.status_code == 404 and not ScreeningListSetting.objects.exists()
        assert str(org.pk) not in console.get(URL).content.decode()


def test_check_details_name_the_lists_in_force_and_each_hit_its_entry(client, django_capture_on_commit_callbacks):
    entity = onboard(client, django_capture_on_commit_callbacks, {"legal_name": "Ismael Zambada Garcia", "entity_type": "individual",
                                                                   "jurisdiction": "MX", "date_of_birth": "1948-01-01",
                                                                   "wallets": [{"chain_id": 1, "address": PLAIN_ETH}]})
    [check] = checks(entity["id"], "sanctions")
    assert all(entry["category"] == "sanctions" for entry in check.details["lists"])
    for detail in check.details["hits"]:
        assert detail["source"] and detail["entry_uid"] and detail["list_name"] == list_name(detail["source"])
        assert detail["explanation"]["list"] == detail["source"] and detail["explanation"]["entry_uid"] == detail["entry_uid"]
    for shown in client.get(entity_url(entity, "screening-hits")).json()["data"]:
        assert shown["list_name"] == list_name(shown["source"]) and shown["entry_uid"] and shown["check_type"] == "sanctions"
    assert list_name("ofac_sdn") == "OFAC Specially Designated Nationals (SDN)"
