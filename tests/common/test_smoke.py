def test_health_reports_database_cache_and_broker(client, db):
    response = client.get("/health")
    body = response.json()
    assert response.status_code == 200, body
    assert body["status"] == "ok"
    assert body["database"]["ok"] and body["cache"]["ok"] and body["broker"]["ok"]
