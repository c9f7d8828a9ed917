"""The organization's lists for one batch: `OrgLists` restricted to the addresses the batch's events
involve.

The rules read the address lists (tags, sanctioned and blocked addresses) only for the evaluated
event's own counterparty (rules 2, 11, 12, 16, 21), never for history, so the address entries of
other addresses cannot change a result. Reading just the batch's addresses keeps a batch's cost
independent of how many tags an organization loads (a full tag table is tens of thousands of rows),
and reads the database every time: nothing is remembered between batches, so a list edited in
another process applies to the very next batch. Same semantics as
monitoring.configuration.selectors.org_lists (tests/monitoring/test_engine_reads.py compares them).
"""

from collections import defaultdict

from monitoring.engine.pg import on_postgres, pg_rows
from monitoring.models import AddressTag, AssetPrice, BlockedAddress, CodeListEntry
from monitoring.rules import OrgLists
from onboarding.models import SanctionsDigitalAddress

CODE_LIST_NAMES = ("high_risk_jurisdictions", "privacy_assets", "high_risk_mccs")


TAGS_SQL = """SELECT chain_id, address, category FROM monitoring_addresstag
WHERE organization_id = %(org)s AND address = ANY(%(addresses)s)"""
SANCTIONED_SQL = """SELECT d.address, l.source FROM onboarding_sanctionsdigitaladdress AS d
JOIN onboarding_sanctionsentry AS e ON e.id = d.entry_id JOIN onboarding_sanctionslist AS l ON l.id = e.sanctions_list_id
WHERE d.address = ANY(%(addresses)s) ORDER BY d.address, l.source"""
BLOCKED_SQL = """SELECT chain_id, address FROM monitoring_blockedaddress WHERE organization_id = %(org)s AND address = ANY(%(addresses)s)"""


def _address_rows(organization, addresses: set[str]) -> tuple[list, list, list]:
    """(tags, sanctioned, blocked) rows for the addresses: (chain_id, address, category), (address,
    list source) in address and source order, (chain_id, address)."""
    if on_postgres():
        params = {"org": organization.pk, "addresses": list(addresses)}
        return pg_rows(TAGS_SQL, params), pg_rows(SANCTIONED_SQL, params), pg_rows(BLOCKED_SQL, params)
    tags = AddressTag.objects.filter(organization=organization, address__in=addresses).values_list("chain_id", "address", "category")
    sanctioned = SanctionsDigitalAddress.objects.filter(address__in=addresses).order_by(
        "address", "entry__sanctions_list__source").values_list("address", "entry__sanctions_list__source")
    blocked = BlockedAddress.objects.filter(organization=organization, address__in=addresses).values_list("chain_id", "address")
    return list(tags), list(sanctioned), list(blocked)


def batch_lists(organization, addresses: set[str]) -> OrgLists:
    tag_rows, sanctioned, blocked = _address_rows(organization, addresses) if addresses else ([], [], [])
    tags: dict = defaultdict(set)
    for chain_id, address, category in tag_rows:
        tags[(chain_id, address)].add(category)
    # USD is 1 also for an organization that removed its row (as org_lists).
    prices = {"USD": 1, **dict(AssetPrice.objects.filter(organization=organization).values_list("asset", "usd_rate"))}
    codes: dict[str, set] = defaultdict(set)
    for list_name, code in CodeListEntry.objects.filter(organization=organization).values_list("list_name", "code"):
        codes[list_name].add(code)
    return OrgLists(
        asset_prices=prices,
        address_tags={key: frozenset(value) for key, value in tags.items()},
        sanctioned_addresses={(None, address): source for address, source in sanctioned},
        blocked_addresses=frozenset(blocked),
        **{name: frozenset(codes[name]) for name in CODE_LIST_NAMES if codes.get(name)},
    )
