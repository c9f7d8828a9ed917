"""Shared helpers of the onboarding and compliance tests: onboarding an entity through the API with
its screening task run (on commit, eagerly), and small request builders."""

URL = "/v1/onboarding/entities"
SANCTIONED_ETH = "0x7Db418b5D567A4e0E8c59Ad71BE1FcE48f3E6107"  # OFAC 30518 (SECONDEYE SOLUTION)
PLAIN_ETH = "0x52908400098527886E0F7030069857D2E4169EE7"

PERSON = {"legal_name": "Maria Jensen", "entity_type": "individual", "jurisdiction": "DK", "date_of_birth": "1985-04-12"}
COMPANY = {"legal_name": "Blue Harbor Trading LLC", "entity_type": "business", "jurisdiction": "US", "industry": "software"}


def onboard(client, capture, body=None, **overrides) -> dict:
    """POST an entity and run what was enqueued on commit (the screening task, eagerly)."""
    with capture(execute=True):
        response = client.post(URL, {**(body or PERSON), **overrides}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def entity_url(entity: dict | str, suffix: str = "") -> str:
    entity_id = entity["id"] if isinstance(entity, dict) else entity
    return f"{URL}/{entity_id}{'/' + suffix if suffix else ''}"


def screened(entity: dict | str) -> None:
    """A completed sanctions screening on record, as the worker writes one after onboarding: an entity
    is approved only after one (onboarding.services.entities._require_sanctions_screening)."""
    from onboarding.models import ComplianceCheck, Entity

    row = Entity.objects.get(pk=entity["id"] if isinstance(entity, dict) else entity)
    ComplianceCheck.objects.create(organization=row.organization, mode=row.mode, entity=row, check_type="sanctions", result="pass",
                                   provider="builtin", summary="No match on the loaded lists.")
