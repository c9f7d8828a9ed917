"""The labelled synthetic bank (bench/typologies.py): deterministic, labelled as documented, and the rules
at their defaults find its planted typologies within the alert budget (bench/detection.py on a small bank)."""

from collections import Counter

from bench.detection import contexts, run, score
from bench.typologies import TYPOLOGIES, TYPOLOGY_SHARES, generate
from monitoring.rules import EngineSettings


def test_the_same_parameters_give_the_same_bank_and_another_seed_another():
    first, again, other = generate(accounts=600, seed=5), generate(accounts=600, seed=5), generate(accounts=600, seed=6)
    def rows(bank):
        return [(t.at, t.sender, t.recipient, t.usd) for t in bank.transfers]

    assert rows(first) == rows(again)
    assert first.labels() == again.labels() and first.labels() != other.labels()
    assert [t.at for t in first.transfers] == sorted(t.at for t in first.transfers)


def test_every_laundering_account_is_labelled_with_its_typology_in_the_documented_shares():
    bank = generate(accounts=4000, seed=7)
    counts = Counter(bank.labels().values())
    assert set(counts) == set(TYPOLOGIES)
    assert 0.085 <= sum(counts.values()) / 4000 <= 0.09
    for typology, share in TYPOLOGY_SHARES.items():
        assert abs(counts[typology] / sum(counts.values()) - share) < 0.03, typology
    groups = Counter(a.group for a in bank.accounts if a.typology)
    assert all(size >= 3 for group, size in groups.items()
               if next(a.typology for a in bank.accounts if a.group == group) in ("fan_in", "fan_out", "cycle", "scatter_gather"))
    assert not any(a.group is not None for a in bank.accounts if a.typology is None)


def test_the_rules_at_their_defaults_find_the_planted_typologies_within_the_budget():
    bank = generate(accounts=3000, seed=8)
    flagged, *_ = run(contexts(bank), EngineSettings.build())
    result = score(bank, flagged)
    assert result["flagged_legitimate_per_1000"] <= 60
    for typology, row in result["by_typology"].items():
        assert row["recall"] >= 0.85, (typology, row)
    for typology in ("fan_in", "cycle", "scatter_gather"):
        assert result["by_typology"][typology]["precision"] >= 0.5
