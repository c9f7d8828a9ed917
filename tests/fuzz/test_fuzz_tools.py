"""The contract fuzz's own parts (tests/fuzz/run.py runs the fuzz itself, in CI): which database it
takes, how it reads ids from list answers, which id the hooks put in a path."""

from types import SimpleNamespace

import pytest

from tests.fuzz import hooks
from tests.fuzz.run import fuzz_database_url, records


def test_the_fuzz_takes_a_database_of_its_own_on_postgresql():
    assert fuzz_database_url("postgres://postgres@127.0.0.1:5432/test") == ("postgres://postgres@127.0.0.1:5432/test_fuzz", "test_fuzz")
    with pytest.raises(SystemExit, match="PostgreSQL"):
        fuzz_database_url("sqlite:///var/db.sqlite3")


def test_records_are_read_from_a_plain_array_or_a_page():
    assert records([{"id": 1}, "x"]) == [{"id": 1}]
    assert records({"total": 1, "files": [{"file_id": "f"}]}) == [{"file_id": "f"}]
    assert records({"error": {"code": "NOT_FOUND"}}) == [] and records(None) == []


def test_two_path_ids_in_three_become_the_seeded_one_and_the_choice_follows_the_value(monkeypatch):
    monkeypatch.setattr(hooks, "IDS", {"entity_id": "E", "/v1/compliance/vasps/": "V"})
    operation = SimpleNamespace(path="/v1/onboarding/entities/{entity_id}")
    chosen = []
    for generated in [f"value-{n}" for n in range(300)]:
        case = SimpleNamespace(operation=operation, path_parameters={"entity_id": generated})
        hooks.before_call(None, case)
        again = SimpleNamespace(operation=operation, path_parameters={"entity_id": generated})
        hooks.before_call(None, again)
        assert case.path_parameters == again.path_parameters  # a replayed case is the same request
        chosen.append(case.path_parameters["entity_id"] == "E")
    assert 170 < sum(chosen) < 230
    assert hooks.real_id("/v1/compliance/vasps/{id}", "id") == "V" and hooks.real_id("/v1/developer/api-keys/{id}", "id") is None


def test_each_request_carries_the_next_key(monkeypatch):
    provider = hooks.RotatingBearer()
    monkeypatch.setattr(hooks, "_turn", iter(["sk_test_a", "sk_test_b"]))
    case = SimpleNamespace(headers=None)
    provider.set(case, provider.get(case, None), None)
    assert case.headers == {"Authorization": "Bearer sk_test_a"}
    provider.set(case, provider.get(case, None), None)
    assert case.headers == {"Authorization": "Bearer sk_test_b"}
