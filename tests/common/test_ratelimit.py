"""Per-key sliding-window limits (README, "Rate limits"), on whichever backend is configured:
Redis when REDIS_URL is set (the PostgreSQL CI run), the database otherwise."""

import re
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import pytest
import requests

from common import ratelimit
from organizations.models import ApiKey

URL = "/v1/developer/api-keys"


def key_row(secret):
    return ApiKey.objects.get(prefix=secret[:12])


@pytest.mark.django_db
class TestHeadersAndRefusal:
    def test_every_keyed_response_carries_the_headers(self, api, org, key):
        client = api(key(org))
        first, second = client.get(URL), client.get(URL)
        assert first["X-RateLimit-Limit"] == "100" and "Retry-After" not in first
        assert (int(first["X-RateLimit-Remaining"]), int(second["X-RateLimit-Remaining"])) == (99, 98)
        assert int(time.time()) < int(first["X-RateLimit-Reset"]) <= int(time.time()) + 61
        refused_by_role = api(key(org, role="viewer")).get(URL)
        assert refused_by_role.status_code == 403 and refused_by_role["X-RateLimit-Remaining"] == "99"
        not_found = client.get("/v1/nothing-here")
        assert not_found.status_code == 404 and not_found["X-RateLimit-Remaining"] == "97"

    def test_101st_request_is_refused_with_the_spec_body(self, api, org, key):
        secret = key(org)
        for _ in range(100):
            assert ratelimit.check_api_key(key_row(secret)).allowed
        response = api(secret).get(URL)
        assert response.status_code == 429
        body = response.json()
        assert body["error"]["code"] == "RATE_LIMIT_EXCEEDED"
        assert response["X-RateLimit-Limit"] == "100" and response["X-RateLimit-Remaining"] == "0"
        reset = datetime.fromtimestamp(int(response["X-RateLimit-Reset"]), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        assert re.fullmatch(rf"Rate limit of 100 requests per minute exceeded; retry in \d+ s \({reset}\)\.", body["error"]["message"])
        waited = int(re.search(r"retry in (\d+) s", body["error"]["message"]).group(1))
        # Within the minute's window; 61 when the reset, a whole second rounded up, is read just before a second ends.
        assert 1 <= int(response["Retry-After"]) <= 61 and abs(int(response["Retry-After"]) - waited) <= 1

    def test_premium_tier(self, api, org, key):
        assert api(key(org, tier="premium")).get(URL)["X-RateLimit-Limit"] == "1000"

    def test_test_and_live_keys_are_counted_apart(self, api, org, key):
        test_key, live_key = key(org, mode="test"), key(org, mode="live")
        for _ in range(100):
            ratelimit.check_api_key(key_row(test_key))
        assert api(test_key).get(URL).status_code == 429
        live = api(live_key).get(URL)
        assert live.status_code == 200 and live["X-RateLimit-Remaining"] == "99"

    def test_session_requests_carry_no_key_limit(self, api, member, org):
        _, token = member(org, "admin")
        assert "X-RateLimit-Limit" not in api(token).get("/v1/organizations/me")


@pytest.mark.django_db
def test_window_slides_rather_than_resetting_at_a_boundary():
    bucket = f"test-slide-{uuid.uuid4()}"
    assert ratelimit.check(bucket, limit=2, window=2).allowed          # t=0     A
    time.sleep(1.2)
    assert ratelimit.check(bucket, limit=2, window=2).allowed          # t=1.2   B
    assert not ratelimit.check(bucket, limit=2, window=2).allowed      # full
    time.sleep(1.0)                                                    # t≈2.2: A left, B still in
    assert ratelimit.check(bucket, limit=2, window=2).allowed          # one place free
    result = ratelimit.check(bucket, limit=2, window=2)
    assert not result.allowed and result.remaining == 0


@pytest.mark.django_db(transaction=True)
def test_150_concurrent_requests_on_a_fresh_standard_key_give_exactly_100(live_server, org, key):
    secret = key(org)
    session = requests.Session()
    session.mount("http://", requests.adapters.HTTPAdapter(pool_maxsize=150))

    def call(_):
        return session.get(live_server.url + URL, headers={"Authorization": f"Bearer {secret}"}, timeout=60).status_code

    with ThreadPoolExecutor(max_workers=50) as pool:
        statuses = list(pool.map(call, range(150)))
    assert statuses.count(200) == 100 and statuses.count(429) == 50, sorted(set(statuses))
