def test_health_reports_database_cache_and_broker(client, db):
    response = client.get("/health")
    body = response.json()
    assert response.status_code == 200, body
    assert body["database"]["ok"] and body["cache"]["ok"] and body["broker"]["ok"]
    # No sanctions list is loaded in this test database: the service runs, but screening cannot pass anyone.
    assert body["status"] == "degraded" and body["sanctions_lists"]["ok"] is False
    assert body["sanctions_lists"]["problems"] == [
        "no sanctions list is loaded: screening records 'lists not loaded' (python manage.py load_sanctions)"]
