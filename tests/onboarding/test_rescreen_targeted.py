"""Re-screening after a sanctions list changed reaches only the entities the change can affect: names
that may now match an added or changed entry (entities' and beneficial owners'), hits on a changed or
removed entry, wallets at a newly listed address; across organizations and modes. The pre-filter is
checked against screening every entity in full.

The lists are the real OFAC SDN and UN lists; a change is made by editing a copy of the OFAC files."""

import csv
import io
import random
from collections import Counter
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db.models import F
from django.utils import timezone

from common.chain import normalized_address
from monitoring.models import Notification
from onboarding.models import BeneficialOwner, ComplianceCheck, Entity, SanctionsList, SanctionsListVersion, ScreeningHit, Wallet
from onboarding.sanctions.formats.ofac import parse_ofac
from onboarding.sanctions.loader import sanctions_list_load
from onboarding.screening import rescreen
from onboarding.screening.hooks import ListChange, notify_lists_changed
from onboarding.services.screening import entity_screen
from onboarding.tasks import rescreen_for_changes, sweep_rescreen_pending
from tests.onboarding.test_load_sanctions import NEW_ROW, edit_sdn

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sanctions_index", "fresh_index")]

LISTED_ETH = "0x3cbDeD43EFdAf0FC77b9C55F6fC9988fCC9b37d9"
LISTED_XBT = "1QAq7aJkzVnF6oKfBjuyNtKEsQGoAxZpXa"  # base58: case-sensitive
WALLET_ROW = ('99998,"ZORVANIK QUELLSTRAND TECHNOLOGIES",-0- ,"CYBER2",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,'
              f'"Digital Currency Address - ETH {LISTED_ETH}; alt. Digital Currency Address - XBT {LISTED_XBT}."\r\n')


@pytest.fixture
def selections(monkeypatch):
    """Every selection the re-screening task made during the test, in order."""
    made = []
    original = rescreen.select_affected

    def recording(changes, **kwargs):
        made.append(original(changes, **kwargs))
        return made[-1]

    monkeypatch.setattr(rescreen, "select_affected", recording)
    return made


def customer(organization, name, *, entity_type="individual", mode="test", jurisdiction="US", ubos=(), wallets=(),
             screen=True) -> Entity:
    """An entity with its owners and wallets, screened once as onboarding does."""
    entity = Entity.objects.create(organization=organization, mode=mode, legal_name=name, entity_type=entity_type,
                                   jurisdiction=jurisdiction)
    for owner in ubos:
        BeneficialOwner.objects.create(entity=entity, name=owner)
    for chain_id, address in wallets:
        Wallet.objects.create(organization=organization, mode=mode, entity=entity, chain_id=chain_id,
                              address=normalized_address(chain_id, address))
    if screen:
        entity_screen(entity_id=entity.pk)
    return entity


def reload_ofac(ofac_copy, capture) -> None:
    """`load_sanctions` of the edited copy, with what it enqueues on commit run (the re-screening, eagerly)."""
    with capture(execute=True):
        call_command("load_sanctions", "--only", "ofac", "--ofac-dir", str(ofac_copy), stdout=io.StringIO())


def sanctions_checks(entities) -> Counter:
    return Counter(ComplianceCheck.objects.filter(entity__in=entities, check_type="sanctions").values_list("entity_id", flat=True))


def rescreened(entities, before: Counter) -> set:
    """The entities that got a sanctions check, all of them `lists_changed` ones, since `before`."""
    after = sanctions_checks(entities)
    changed = {entity_id for entity_id in after if after[entity_id] != before[entity_id]}
    for entity_id in changed:
        latest = ComplianceCheck.objects.filter(entity_id=entity_id, check_type="sanctions").order_by("-created_at", "-id").first()
        assert latest.details["trigger"] == "lists_changed"
    return changed


def active_hits(entity, uid: str, source: str = "ofac_sdn"):
    return ScreeningHit.objects.filter(entity=entity, active=True, source=source, entry_uid=uid)


@pytest.fixture
def bystanders(org, other_org):
    """Customers whose names and wallets no list change of these tests comes near: never re-screened."""
    return [
        customer(org, "John Smith"),
        customer(org, "Acme Trading LLC", entity_type="business", ubos=["Linda Clark", "Peter Jensen"]),
        customer(org, "Blue Harbor Logistics Ltd", entity_type="business", wallets=[(1, "0x52908400098527886E0F7030069857D2E4169EE7")]),
        customer(other_org, "Maria Jensen", mode="live", jurisdiction="DK"),
        customer(other_org, "Evergreen Dental GmbH", entity_type="business", mode="live", jurisdiction="DE", ubos=["Klaus Weber"]),
    ]


def test_an_added_entry_rescreens_only_the_entity_whose_name_resembles_it(org, bystanders, ofac_copy, selections,
                                                                          django_capture_on_commit_callbacks):
    boris = customer(org, "Boris Testovsky", jurisdiction="RU")
    assert not ScreeningHit.objects.filter(entity=boris, active=True, score__gte=0.85).exists()
    everyone = [boris, *bystanders]
    before, notified = sanctions_checks(everyone), Notification.objects.filter(type="screening_complete", entity_id=boris.pk).count()

    edit_sdn(ofac_copy, append=NEW_ROW)  # 99999 TESTOVSKY, Boris Ignatievich
    reload_ofac(ofac_copy, django_capture_on_commit_callbacks)

    [selection] = selections
    assert selection.entity_ids == {boris.pk} and (selection.by_names, selection.by_hits, selection.by_wallets) == (1, 0, 0)
    assert rescreened(everyone, before) == {boris.pk}
    hit = active_hits(boris, "99999").get()
    assert hit.status == "open" and hit.score >= 0.85 and hit.subject_type == "entity"
    assert Entity.objects.get(pk=boris.pk).status == "under_review"
    assert Notification.objects.filter(type="screening_complete", entity_id=boris.pk).count() == notified + 1
    ofac = SanctionsList.objects.get(source="ofac_sdn")
    assert ofac.rescreen_pending_since is None
    version = ofac.versions.order_by("-number").first()  # the console's version page says what the change re-screened
    assert (version.added, version.rescreened_entities) == ([{"uid": "99999", "name": "TESTOVSKY, Boris Ignatievich"}], 1)


def test_a_removed_entry_rescreens_the_entities_with_a_hit_on_it(org, other_org, bystanders, ofac_copy, selections,
                                                                 django_capture_on_commit_callbacks):
    zambada = customer(org, "Ismael Zambada Garcia", jurisdiction="MX")
    owned = customer(other_org, "Harbor Holdings BV", entity_type="business", mode="live", jurisdiction="NL",
                     ubos=["Ismael Zambada Garcia"])
    hit = active_hits(zambada, "7226").get()
    assert hit.status == "open" and active_hits(owned, "7226").get().subject_type == "ubo"
    everyone = [zambada, owned, *bystanders]
    before = sanctions_checks(everyone)

    edit_sdn(ofac_copy, drop="7226")
    reload_ofac(ofac_copy, django_capture_on_commit_callbacks)

    [selection] = selections
    assert selection.entity_ids == {zambada.pk, owned.pk} and selection.by_hits == 2 and selection.by_names == 0
    assert rescreened(everyone, before) == {zambada.pk, owned.pk}
    assert not active_hits(zambada, "7226").exists() and not active_hits(owned, "7226").exists()
    hit.refresh_from_db()
    assert hit.active is False  # superseded, kept for the record


def test_a_renamed_entry_rescreens_the_entity_with_a_hit_and_the_ones_now_matching(org, other_org, bystanders, ofac_copy, selections,
                                                                                   django_capture_on_commit_callbacks):
    edit_sdn(ofac_copy, append=NEW_ROW)
    reload_ofac(ofac_copy, django_capture_on_commit_callbacks)
    boris = customer(org, "Boris Testovsky", jurisdiction="RU")
    assert active_hits(boris, "99999").get().score >= 0.85
    gennady = customer(other_org, "Gennady Krasnoperov", mode="live", jurisdiction="RU")  # another organization, live mode
    holding = customer(org, "Northwind Shipping SA", entity_type="business", ubos=["Gennadiy Krasnoperov"])  # a beneficial owner
    assert not ScreeningHit.objects.filter(entity__in=[gennady, holding], score__gte=0.85).exists()
    everyone = [boris, gennady, holding, *bystanders]
    before = sanctions_checks(everyone)
    selections.clear()

    edit_sdn(ofac_copy, replace=('"TESTOVSKY, Boris Ignatievich"', '"KRASNOPEROV, Gennady Olegovich"'))
    reload_ofac(ofac_copy, django_capture_on_commit_callbacks)

    [selection] = selections
    assert selection.entity_ids == {boris.pk, gennady.pk, holding.pk}
    assert (selection.by_hits, selection.by_names) == (1, 2)
    assert rescreened(everyone, before) == {boris.pk, gennady.pk, holding.pk}
    assert not active_hits(boris, "99999").filter(score__gte=0.85).exists()
    assert active_hits(gennady, "99999").get().score >= 0.85
    assert active_hits(holding, "99999").get().subject_type == "ubo"


def test_a_newly_listed_address_rescreens_the_entity_with_that_wallet_and_flags_it(org, other_org, bystanders, ofac_copy, selections,
                                                                                   django_capture_on_commit_callbacks):
    holder = customer(org, "Quiet Meadow Bakery Ltd", entity_type="business", wallets=[(1, LISTED_ETH.lower())])
    bitcoin = customer(other_org, "Harold Pennington", mode="live", wallets=[(0, LISTED_XBT)])
    wrong_case = customer(org, "Linnea Sorensen", wallets=[(0, LISTED_XBT.lower())])  # base58 compares exactly: not that address
    assert not Wallet.objects.filter(flagged=True, entity__in=[holder, bitcoin, wrong_case]).exists()
    everyone = [holder, bitcoin, wrong_case, *bystanders]
    before = sanctions_checks(everyone)

    edit_sdn(ofac_copy, append=WALLET_ROW)
    reload_ofac(ofac_copy, django_capture_on_commit_callbacks)

    [selection] = selections
    assert selection.entity_ids == {holder.pk, bitcoin.pk} and selection.by_wallets == 2
    assert rescreened(everyone, before) == {holder.pk, bitcoin.pk}
    for entity in (holder, bitcoin):
        wallet = Wallet.objects.get(entity=entity)
        assert wallet.flagged and "99998" in wallet.flag_reason
        assert active_hits(entity, "99998").get().subject_type == "wallet"
    assert not Wallet.objects.get(entity=wrong_case).flagged


def test_a_change_announced_without_its_version_number_is_found_by_content_hash(org, bystanders, ofac_copy,
                                                                                 django_capture_on_commit_callbacks):
    """A refresh announces ListChange(source, content_hash, added, changed, removed): the callback finds
    the version by its content hash."""
    boris = customer(org, "Boris Testovsky", jurisdiction="RU")
    edit_sdn(ofac_copy, append=NEW_ROW)
    result = sanctions_list_load(parse_ofac(ofac_copy))
    before = sanctions_checks([boris, *bystanders])

    with django_capture_on_commit_callbacks(execute=True):
        assert notify_lists_changed([ListChange("ofac_sdn", result.content_hash, result.added_uids, [], [])]) == []

    assert rescreened([boris, *bystanders], before) == {boris.pk}
    assert active_hits(boris, "99999").exists()
    assert SanctionsList.objects.get(source="ofac_sdn").rescreen_pending_since is None


def test_the_beat_sweep_selects_from_the_latest_version_and_clears_only_its_marker(org, bystanders, ofac_copy,
                                                                                    django_capture_on_commit_callbacks):
    """A load whose process died before notifying: the sweep re-screens what the list's latest version can
    affect. A marker newer than the version a run re-screened (a later load) is left alone."""
    boris = customer(org, "Boris Testovsky", jurisdiction="RU")
    edit_sdn(ofac_copy, append=NEW_ROW)
    result = sanctions_list_load(parse_ofac(ofac_copy))  # committed; the callbacks never ran
    ofac = SanctionsList.objects.get(source="ofac_sdn")
    assert ofac.rescreen_pending_since == result.version.loaded_at

    later = result.version.loaded_at.replace(year=result.version.loaded_at.year + 1)
    SanctionsList.objects.filter(pk=ofac.pk).update(rescreen_pending_since=later)  # as if loaded again since
    with django_capture_on_commit_callbacks(execute=True):
        rescreen_for_changes.delay({"ofac_sdn": result.version.number})
    assert active_hits(boris, "99999").exists()
    assert SanctionsList.objects.get(pk=ofac.pk).rescreen_pending_since == later

    before = sanctions_checks([boris, *bystanders])
    with django_capture_on_commit_callbacks(execute=True):
        rescreen_for_changes.delay({"ofac_sdn": None})  # what the sweep sends: the latest version
    assert rescreened([boris, *bystanders], before) == {boris.pk}
    SanctionsList.objects.filter(pk=ofac.pk).update(rescreen_pending_since=result.version.loaded_at)
    with django_capture_on_commit_callbacks(execute=True):
        rescreen_for_changes.delay({"ofac_sdn": None})
    assert SanctionsList.objects.get(pk=ofac.pk).rescreen_pending_since is None


def test_the_beat_sweep_rescreens_a_version_whose_rescreening_was_lost_under_a_later_load(org, bystanders, ofac_copy, selections,
                                                                                            django_capture_on_commit_callbacks):
    """v2's re-screening message was lost (its callbacks never ran); v3 loaded and re-screened its own diff,
    clearing the list's marker. Ten minutes on, the sweep re-screens from v2's diff, once."""
    SanctionsListVersion.objects.filter(rescreened_at__isnull=True).update(rescreened_at=timezone.now())  # the fixture's loads
    boris = customer(org, "Boris Testovsky", jurisdiction="RU")
    everyone = [boris, *bystanders]
    edit_sdn(ofac_copy, append=NEW_ROW)
    v2 = sanctions_list_load(parse_ofac(ofac_copy)).version  # committed; the callbacks never ran
    edit_sdn(ofac_copy, append=WALLET_ROW)
    reload_ofac(ofac_copy, django_capture_on_commit_callbacks)  # v3, re-screened normally
    ofac = SanctionsList.objects.get(source="ofac_sdn")
    v3 = ofac.versions.order_by("-number").first()
    assert v3.number == v2.number + 1 and v3.rescreened_at is not None and ofac.rescreen_pending_since is None
    assert not active_hits(boris, "99999").exists() and len(selections) == 1

    before = sanctions_checks(everyone)
    sweep_rescreen_pending()  # within ten minutes of the loads: too early
    assert len(selections) == 1 and rescreened(everyone, before) == set()

    SanctionsListVersion.objects.filter(pk__in=[v2.pk, v3.pk]).update(loaded_at=F("loaded_at") - timedelta(minutes=11))
    sweep_rescreen_pending()
    assert len(selections) == 2 and selections[-1].entity_ids == {boris.pk}
    assert rescreened(everyone, before) == {boris.pk}
    assert active_hits(boris, "99999").get().status == "open"
    v2.refresh_from_db()
    assert v2.rescreened_at is not None and v2.rescreened_entities == 1

    sweep_rescreen_pending()  # nothing left
    assert len(selections) == 2


def test_the_beat_sweep_leaves_versions_older_than_its_window_alone(org, settings, selections):
    """Versions loaded before every re-screening recorded itself: no flood of old diffs."""
    settings.SANCTIONS_RESCREEN_SWEEP_DAYS = 7
    SanctionsListVersion.objects.update(rescreened_at=None, loaded_at=timezone.now() - timedelta(days=8))
    SanctionsList.objects.update(rescreen_pending_since=None)
    sweep_rescreen_pending()
    assert selections == []
    settings.SANCTIONS_RESCREEN_SWEEP_DAYS = 9
    version = SanctionsListVersion.objects.order_by("loaded_at", "pk").first()
    SanctionsListVersion.objects.exclude(pk=version.pk).update(rescreened_at=timezone.now())
    sweep_rescreen_pending()
    assert len(selections) == 1
    version.refresh_from_db()
    assert version.rescreened_at is not None


def test_a_first_load_reaches_the_entities_screened_with_no_list(org, sanctions_index):
    """A list's first load (every entry added) selects by the whole list, and reaches the entities whose
    screening found no list loaded, whatever their names."""
    unscreened = customer(org, "Xqzv Jpwq", screen=False)  # no name reaches any key
    ComplianceCheck.objects.create(organization=org, mode="test", entity=unscreened, check_type="sanctions", result="error",
                                   provider="builtin", details={"error": "lists_not_loaded"})
    zambada = customer(org, "Ismael Zambada Garcia", jurisdiction="MX", screen=False)
    # No word of it is, or is one edit or a sound from, a listed word. (A name of initials alone blocks on them since
    # session 21, so that "B S COMPANY" can be found: "Q. X." would reach the listed names with those initials.)
    plain = customer(org, "Zqxv Wpqj", screen=False)
    everything = [entry.uid for entry in sanctions_index.entries if entry.source == "ofac_sdn"]

    first = rescreen.affected_entity_ids([ListChange("ofac_sdn", "hash", added_uids=everything, version=1)], index=sanctions_index)
    assert {unscreened.pk, zambada.pk} <= first and plain.pk not in first
    later = rescreen.affected_entity_ids([ListChange("ofac_sdn", "hash", added_uids=everything, version=2)], index=sanctions_index)
    assert zambada.pk in later and unscreened.pk not in later


def test_the_command_queues_all_or_a_version_and_dry_runs(org, bystanders, ofac_copy, django_capture_on_commit_callbacks):
    boris = customer(org, "Boris Testovsky", jurisdiction="RU")
    edit_sdn(ofac_copy, append=NEW_ROW)
    version = sanctions_list_load(parse_ofac(ofac_copy)).version.number
    everyone = [boris, *bystanders]

    before = sanctions_checks(everyone)
    out = io.StringIO()
    call_command("rescreen_entities", "--list", "ofac_sdn", "--list-version", str(version), "--dry-run", stdout=out)
    assert f"re-screening 1 of {Entity.objects.count()} entities after ofac_sdn v{version} (+1 ~0 -0)" in out.getvalue()
    assert rescreened(everyone, before) == set()

    call_command("rescreen_entities", "--list", "ofac_sdn", stdout=io.StringIO())
    assert rescreened(everyone, before) == {boris.pk}

    before = sanctions_checks(everyone)
    call_command("rescreen_entities", "--all", stdout=io.StringIO())
    assert rescreened(everyone, before) == {entity.pk for entity in everyone}
    assert SanctionsList.objects.get(source="ofac_sdn").rescreen_pending_since is None


# --- The pre-filter against screening everyone ---------------------------------------------------

def words(text: str) -> list[str]:
    return text.split()


GIVEN = words("Gennady Anatoly Rustam Timur Farid Yusuf Karim Omar Hamid Nasser Sergei Dmitri Arkady Viktor Leonid Ruslan "
         "Javier Alonso Esteban Rodrigo Ignacio Emilio Tariq Bilal Samir Walid")
SURNAMES = words("Krasnoperov Zhelyabov Tsvetkov Bogdanovich Kuzminykh Obolensky Shcherbakov Vorontsov Yakubovich Zadornov Haddadi "
            "Qureshi Nazarbekov Rahimzadeh Sulaimani Batarseh Khoury Mansouri Quintanilla Echeverria Villalobos Arredondo "
            "Castellanos Barrientos Olmedo")
SHORT_SURNAMES, SHORT_GIVEN = words("Li Yu Wu Xu"), words("Wei Bo Jie Hui")
FIRMS = words("Karvelas Novaterra Sablewood Orinoco Baltazar Meridiana Vostok Caspiana Tarragon Almaviva")
FIRM_KINDS = words("Maritime Petroleum Shipping Trading Metals Aviation Logistics Holdings")
ORDINARY = ("John Smith", "Mary Johnson", "Carlos Lopez", "Wei Chen", "Priya Sharma", "Anna Novak", "Lars Hansen", "Sophie Martin",
            "Acme Bakery LLC", "Redwood Software Inc", "Harbor Dental Partners", "Maple Analytics GmbH")
CYRILLIC = {"shch": "щ", "kh": "х", "zh": "ж", "ts": "ц", "ch": "ч", "sh": "ш", "ya": "я", "yu": "ю", "a": "а", "b": "б", "v": "в",
            "g": "г", "d": "д", "e": "е", "z": "з", "i": "и", "y": "ы", "k": "к", "l": "л", "m": "м", "n": "н", "o": "о", "p": "п",
            "r": "р", "s": "с", "t": "т", "u": "у", "f": "ф", "h": "х", "c": "к", "j": "дж", "q": "к", "w": "в", "x": "кс"}


def cyrillic(name: str) -> str:
    text, out = name.lower(), []
    while text:
        for size in (4, 2, 1):
            if text[:size] in CYRILLIC:
                out.append(CYRILLIC[text[:size]])
                text = text[size:]
                break
        else:
            out.append(text[0])
            text = text[1:]
    return "".join(out)


def typo(word: str, rng: random.Random) -> str:
    if len(word) < 4:
        return word
    position = rng.randrange(1, len(word) - 1)
    return rng.choice([word[:position] + word[position + 1:], word[:position] + rng.choice("aeiouy") + word[position:],
                       word[:position] + word[position + 1] + word[position] + word[position + 2:],
                       word[:position] + rng.choice("aeiknrst") + word[position + 1:]])


def slip(word: str, rng: random.Random) -> str:
    """One consonant after the first letter mistyped as one that sounds different: a typo, not a sound-alike."""
    consonants = [position for position in range(1, len(word)) if word[position].lower() in "bdfgklmnprstvz"]
    if len(word) < 5 or not consonants:
        return word
    position = rng.choice(consonants)
    return word[:position] + ("t" if word[position].lower() in "kgcq" else "k") + word[position + 1:]


def sounds_alike(word: str, rng: random.Random) -> str:
    """Two vowels after the first letter spelt differently: the same consonants, too far apart for a typo."""
    vowels = [position for position in range(1, len(word)) if word[position] in "aeiou"]
    for position in rng.sample(vowels, min(2, len(vowels))):
        word = word[:position] + rng.choice([vowel for vowel in "aeiou" if vowel != word[position]]) + word[position + 1:]
    return word


def variant(name: str, rng: random.Random) -> str:
    """A customer's way of writing a listed name: reordered, misspelt (a word or every word), spelt as it
    sounds, transliterated, cut, joined or initialled."""
    words = name.replace(",", "").split()
    style = rng.choice(["as listed", "reordered", "typo", "two typos", "typo everywhere", "slips everywhere", "sounds alike", "cyrillic",
                        "dropped word", "joined", "initial"])
    if style == "reordered":
        words = words[1:] + words[:1]
    elif style in ("typo", "two typos"):
        for position in rng.sample(range(len(words)), min(len(words), 1 if style == "typo" else 2)):
            words[position] = typo(words[position], rng)
    elif style == "typo everywhere":
        words = [typo(word, rng) for word in words]
    elif style == "slips everywhere":
        words = [slip(word, rng) for word in words]
    elif style == "sounds alike":
        words = [sounds_alike(word.lower(), rng) for word in words]
    elif style == "cyrillic":
        words = [cyrillic(word) for word in words]
    elif style == "dropped word" and len(words) > 2:
        words.pop(rng.randrange(len(words)))
    elif style == "joined" and len(words) > 1:
        position = rng.randrange(len(words) - 1)
        words[position:position + 2] = [words[position] + words[position + 1]]
    elif style == "initial" and len(words) > 1:
        words[0] = words[0][0] + "."
    return " ".join(words) if style != "as listed" else name


def renamed_entries(ofac_copy, count: int, rng: random.Random) -> dict[str, tuple[str, str, str]]:
    """{uid: (kind, old name, new name)} for `count` OFAC rows, about two thirds people, given new names."""
    rows = {}
    for fields in csv.reader((ofac_copy / "sdn.csv").read_text().splitlines()):
        if len(fields) > 3 and '"' not in fields[1] and len(fields[1].split()) >= 2:
            rows[fields[0]] = ("individual" if fields[2] == "individual" else "business" if fields[2] == "-0- " else "", fields[1])
    people = rng.sample(sorted(uid for uid, (kind, _n) in rows.items() if kind == "individual"), count * 2 // 3)
    firms = rng.sample(sorted(uid for uid, (kind, _n) in rows.items() if kind == "business"), count - len(people))
    renamed = {}
    for number, uid in enumerate(people):
        if number < 4:  # words too short for deletion or sound keys: reached by the token itself only
            renamed[uid] = ("individual", rows[uid][1], f"{rng.choice(SHORT_SURNAMES).upper()}, {rng.choice(SHORT_GIVEN)}")
        else:
            renamed[uid] = ("individual", rows[uid][1], f"{rng.choice(SURNAMES).upper()}, {rng.choice(GIVEN)} {rng.choice(GIVEN)}")
    for uid in firms:
        renamed[uid] = ("business", rows[uid][1], f"{rng.choice(FIRMS)} {rng.choice(FIRMS)} {rng.choice(FIRM_KINDS)}".upper())
    return renamed


def test_the_selection_holds_every_entity_a_full_screening_hits_on_a_changed_entry(org, other_org, ofac_copy, sanctions_index,
                                                                                   monkeypatch):
    rng = random.Random(20240607)
    renamed = renamed_entries(ofac_copy, 50, rng)
    listed = sorted(sanctions_index.names, key=lambda name: (sanctions_index.entries[name.entry].uid, name.kind, name.name))
    unchanged = [name.name for name in rng.sample(listed, 60) if len(name.tokens) >= 2]
    entities = []
    for number in range(320):
        roll = rng.random()
        kind, old, new = renamed[rng.choice(sorted(renamed))]
        if roll < 0.55:
            name = variant(new, rng)  # close to a new name: should be hit now
        elif roll < 0.70:
            name = variant(old, rng)  # close to the old name: was hit before
        elif roll < 0.80:
            name, kind = variant(rng.choice(unchanged), rng), "individual"
        else:
            name, kind = rng.choice(ORDINARY), rng.choice(["individual", "business"])
        organization, mode = (org, "test") if number % 3 else (other_org, "live")
        if kind == "business" and rng.random() < 0.5:
            owner = variant(renamed[rng.choice(sorted(renamed))][2], rng) if rng.random() < 0.5 else rng.choice(ORDINARY[:8])
            entities.append(customer(organization, name, entity_type="business", mode=mode, ubos=[owner]))
        else:
            entities.append(customer(organization, name, entity_type=kind or "business", mode=mode))

    for uid, (_kind, old, new) in renamed.items():
        edit_sdn(ofac_copy, replace=(f'{uid},"{old}"', f'{uid},"{new}"'))
    result = sanctions_list_load(parse_ofac(ofac_copy))
    assert len(result.changed_uids) == 50 and not result.added_uids and not result.removed_uids
    change = ListChange("ofac_sdn", result.content_hash, changed_uids=result.changed_uids, version=result.version.number)
    selection = rescreen.select_affected([change])
    keys, without = rescreen.blocking_keys, {}
    # The selection as it would be without one kind of key: the deletions (a two-letter word's own key among them, so
    # they stand in for the token keys too), and the two sound keys together.
    for kind in (("d:", "t:"), ("s:", "k:")):
        monkeypatch.setattr(rescreen, "blocking_keys", lambda token, kind=kind: frozenset(k for k in keys(token) if not k.startswith(kind)))
        without[kind] = rescreen.affected_entity_ids([change])
    monkeypatch.undo()
    monkeypatch.setattr(rescreen, "SCORED_NAMES_LIMIT", 0)  # keys alone, as for a first load
    keys_only = rescreen.affected_entity_ids([change])
    monkeypatch.undo()
    assert selection.entity_ids < keys_only and selection.names_reached > selection.by_names  # the score prunes

    for entity in entities:  # the full re-screening the selection stands in for
        entity_screen(entity_id=entity.pk, trigger="lists_changed")
    hit_now = set(ScreeningHit.objects.filter(entity__in=entities, active=True, source="ofac_sdn", entry_uid__in=renamed)
                  .values_list("entity_id", flat=True))
    assert len(hit_now) >= 100 and {Entity.objects.get(pk=pk).organization_id for pk in hit_now} == {org.pk, other_org.pk}
    assert hit_now <= selection.entity_ids, [Entity.objects.get(pk=pk).legal_name for pk in hit_now - selection.entity_ids]
    assert len(selection.entity_ids) < len(entities)

    # The names reach their hits by every kind of key: without any one of them the selection would miss some.
    assert all(hit_now - without[kind] for kind in without), {kind: len(hit_now - selected) for kind, selected in without.items()}


@pytest.mark.parametrize(("name", "kind", "read"), [
    ("SBERBANK-FINANSO-OO", "business", {"sberbank", "finanso", "oo", "finans"}),  # a letter moved out of a legal form
    ("HafizA bdul Rehman", "individual", {"hafiza", "bdul", "rehman", "abdul"}),  # ... out of a title
    ("AbdulH ADI", "individual", {"abdulh", "adi", "abdul", "hadi"}),  # ... between two listed words
    ("John Smith", "individual", {"john", "smith"}),  # nothing to repair: the name as written
])
def test_the_pre_filter_looks_up_every_reading_the_screening_screens(sanctions_index, name, kind, read):
    """The re-screening's pre-filter reaches the listed names by the tokens of every reading screen_name screens
    (matcher.readings), not only of the name as written (session 21: before, the repaired word breaks were left out)."""
    from onboarding.screening.rescreen import _reading_tokens
    from onboarding.services.screening import Subject

    assert _reading_tokens(Subject("entity", "entity", name, kind=kind), sanctions_index) == read
