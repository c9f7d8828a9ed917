"""No input makes a 500: a valid draft with any field replaced by any JSON value, through
sar-validate, sar-xml and file-sar (hypothesis)."""

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.filings.conftest import BASE, open_case, with_filer

pytestmark = pytest.mark.django_db

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(10**30), max_value=10**30) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40) | st.sampled_from(["", " ", "2025-13-45", "1e400", "-1", "0x", "ZZ", "USD", "S9", "\x00", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢"]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=12,
)


def leaf_paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaf_paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value[:3]):
            yield from leaf_paths(item, (*prefix, index))


def replaced(form, path, value):
    if not path:
        return value
    data = copy.deepcopy(form)
    target = data
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return data


@pytest.fixture
def setup(api, key, org, onboard, priced):
    officer = api(key(org, role="l3_officer", tier="premium"))  # 3 requests an example: over the standard 100 a minute
    with_filer(org, "US")
    case = open_case(onboard("US", legal_name="Zoë Ångström", entity_type="individual"), transactions=3)
    form = officer.get(f"{BASE}/cases/{case.pk}/sar-draft").json()["form"]
    return officer, case, form, list(leaf_paths(form))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_any_value_anywhere_is_answered_without_a_500(setup, data):
    client, case, form, paths = setup
    path, value, file_it = data.draw(st.sampled_from(paths)), data.draw(JSON), data.draw(st.integers(0, 9)) == 0
    body = replaced(form, path, value)
    if not isinstance(body, dict):
        return  # the parser refuses non-objects with a 400 (covered elsewhere)
    checked = client.post(f"{BASE}/cases/{case.pk}/sar-validate", body, format="json")
    assert checked.status_code == 200, (path, checked.content[:500])
    assert set(checked.json()) == {"valid", "errors", "warnings"}
    preview = client.post(f"{BASE}/cases/{case.pk}/sar-xml", body, format="json")
    assert preview.status_code in (200, 422), (path, preview.content[:500])
    if file_it:
        assert client.post(f"{BASE}/cases/{case.pk}/file-sar", body, format="json").status_code in (200, 403, 409, 422)


def test_a_control_character_in_any_text_is_answered_without_a_500(setup):
    """XML 1.0 cannot carry C0 controls: a wallet address or name holding one is dropped from the
    document rather than stopping it (the fuzz test above once found it in a subject's address)."""
    client, case, form, paths = setup
    texts = [path for path in paths if path and isinstance(_at(form, path), str)]
    assert len(texts) > 20
    for path in texts:
        body = replaced(form, path, _at(form, path) + "\x01\x1f")
        checked = client.post(f"{BASE}/cases/{case.pk}/sar-validate", body, format="json")
        assert checked.status_code == 200, (path, checked.content[:500])
        preview = client.post(f"{BASE}/cases/{case.pk}/sar-xml", body, format="json")
        assert preview.status_code in (200, 422), (path, preview.content[:500])
        if preview.status_code == 200:
            assert b"\x01" not in preview.content and b"\x1f" not in preview.content


def _at(value, path):
    for part in path:
        value = value[part]
    return value
