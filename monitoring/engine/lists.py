"""The organization's lists for one batch: `OrgLists` restricted to the counterparty addresses of the
batch's transfers.

The rules read the address lists (tags, sanctioned and blocked addresses) only for the evaluated
event's own counterparty (rules 2, 11, 12, 16, 21), never for history, so the address entries of
other addresses cannot change a result. Reading just the batch's addresses keeps a batch's cost
independent of how many tags an organization loads (a full tag table is tens of thousands of rows),
and reads the database every time: nothing is remembered between batches, so a list edited in
another process applies to the very next batch. Loaded lists count only when they are of category
`sanctions` (a PEP dataset's wallets are no sanctioned counterparties) and the organization screens
against them (onboarding.selectors.screening_sources: kept per process for SOURCES_CACHE_SECONDS, so
a list turned on or off in another process applies within that time, at once in the process that
changed it). Same semantics as
monitoring.configuration.selectors.org_lists (tests/monitoring/test_engine_reads.py compares them).
"""

from collections import defaultdict
from decimal import Decimal

from common.pg import on_postgres, pg_rows
from monitoring.models import AddressTag, AssetPrice, BlockedAddress, CodeListEntry
from monitoring.rules import OrgLists
from onboarding.models import SanctionsDigitalAddress
from onboarding.models.sanctions import ListCategory
from onboarding.selectors import screening_sources

CODE_LIST_NAMES = ("high_risk_jurisdictions", "privacy_assets", "high_risk_mccs")


# Everything in one round trip (this runs for every single ingest too): (kind, chain_id, key, value).
LISTS_SQL = """SELECT 'tag', chain_id, address, category FROM monitoring_addresstag
  WHERE organization_id = %(org)s AND address = ANY(%(addresses)b)
UNION ALL SELECT 'sanctioned', NULL, d.address, l.source FROM onboarding_sanctionsdigitaladdress AS d
  JOIN onboarding_sanctionsentry AS e ON e.id = d.entry_id JOIN onboarding_sanctionslist AS l ON l.id = e.sanctions_list_id
  WHERE d.address = ANY(%(addresses)b) AND l.category = %(category)s AND l.source = ANY(%(sources)b)
UNION ALL SELECT 'blocked', chain_id, address, NULL FROM monitoring_blockedaddress
  WHERE organization_id = %(org)s AND address = ANY(%(addresses)b)
UNION ALL SELECT 'price', NULL, asset, usd_rate::text FROM monitoring_assetprice WHERE organization_id = %(org)s
UNION ALL SELECT 'code', NULL, list_name, code FROM monitoring_codelistentry WHERE organization_id = %(org)s"""


def _rows(organization, addresses: set[str]) -> dict[str, list]:
    """{kind: rows}: tag (chain_id, address, category), sanctioned (address, list source) in address
    and source order, blocked (chain_id, address), price (asset, USD rate), code (list name, code)."""
    kinds: dict[str, list] = {"tag": [], "sanctioned": [], "blocked": [], "price": [], "code": []}
    # The organization's lists: from this process's copy (no query) but once every few seconds.
    sources = sorted(screening_sources(organization)) if addresses else []
    if on_postgres():
        params = {"org": organization.pk, "addresses": list(addresses), "category": str(ListCategory.SANCTIONS), "sources": sources}
        for kind, chain_id, key, value in pg_rows(LISTS_SQL, params):
            if kind in ("tag", "blocked"):
                kinds[kind].append((chain_id, key, value) if kind == "tag" else (chain_id, key))
            else:
                kinds[kind].append((key, Decimal(value) if kind == "price" else value))
        kinds["sanctioned"].sort()
        return kinds
    if addresses:
        kinds["tag"] = list(AddressTag.objects.filter(organization=organization, address__in=addresses).values_list(
            "chain_id", "address", "category"))
        kinds["sanctioned"] = list(SanctionsDigitalAddress.objects.filter(
            address__in=addresses, entry__sanctions_list__category=ListCategory.SANCTIONS,
            entry__sanctions_list__source__in=sources).order_by(
            "address", "entry__sanctions_list__source").values_list("address", "entry__sanctions_list__source"))
        kinds["blocked"] = list(BlockedAddress.objects.filter(organization=organization, address__in=addresses).values_list(
            "chain_id", "address"))
    kinds["price"] = list(AssetPrice.objects.filter(organization=organization).values_list("asset", "usd_rate"))
    kinds["code"] = list(CodeListEntry.objects.filter(organization=organization).values_list("list_name", "code"))
    return kinds


def batch_lists(organization, addresses: set[str]) -> OrgLists:
    rows = _rows(organization, addresses)
    tags: dict = defaultdict(set)
    for chain_id, address, category in rows["tag"]:
        tags[(chain_id, address)].add(category)
    codes: dict[str, set] = defaultdict(set)
    for list_name, code in rows["code"]:
        codes[list_name].add(code)
    return OrgLists(
        asset_prices={"USD": 1, **dict(rows["price"])},  # USD is 1 also for an organization that removed its row (as org_lists)
        address_tags={key: frozenset(value) for key, value in tags.items()},
        sanctioned_addresses={(None, address): source for address, source in rows["sanctioned"]},
        blocked_addresses=frozenset(rows["blocked"]),
        **{name: frozenset(codes[name]) for name in CODE_LIST_NAMES if codes.get(name)},
    )
