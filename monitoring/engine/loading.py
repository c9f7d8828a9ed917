"""Building the pure engine's context (monitoring.rules) from the database, once per batch.

A fixed number of queries per batch, whatever its size: the entities and their wallets, their
history over the engine's look-back, the facts that reach further back (latest and first activity
before the span, counterparties seen before it), and the organization's network (registered and
flagged wallets, other customers, transfers between registered wallets for cycle detection).
"""

from collections import defaultdict
from datetime import datetime, timedelta
from uuid import UUID

from django.db.models import Max, Min, Q

from monitoring.choices import Disposition
from monitoring.models import Alert, FiatEvent, Transaction
from monitoring.rules import (
    CounterpartyEntity,
    EngineSettings,
    Entity,
    EntityContext,
    EntityHistory,
    OrgLists,
    OrgNetwork,
    TransferGraph,
)
from monitoring.rules import FiatEvent as RuleFiat
from monitoring.rules import Transaction as RuleTransaction
from onboarding.models import Entity as EntityRow
from onboarding.models import Wallet

TX_FIELDS = ("id", "timestamp", "chain_id", "tx_hash", "from_address", "to_address", "amount", "asset", "usd_value",
             "from_entity_id", "to_entity_id")
FIAT_FIELDS = ("id", "entity_id", "timestamp", "event_type", "amount", "currency", "usd_value", "counterparty_name",
               "counterparty_bank", "card_type", "merchant_category_code", "merchant_country", "check_type", "check_number",
               "deposit_method")
CYCLE_WINDOW = timedelta(days=7)  # rule 15's reach


def rule_transaction(row: dict, entity_id: UUID, *, counterparty_entity: UUID | None = None) -> RuleTransaction:
    """A stored transfer as seen from `entity_id`: direction and counterparty."""
    sender, receiver = row["from_entity_id"] == entity_id, row["to_entity_id"] == entity_id
    direction = "self" if sender and receiver else "out" if sender else "in"
    counterparty = row["to_address"] if direction in ("out", "self") else row["from_address"]
    if direction == "self":
        counterparty_entity = entity_id
    elif counterparty_entity is None:
        counterparty_entity = row["to_entity_id"] if direction == "out" else row["from_entity_id"]
    return RuleTransaction(
        id=str(row["id"]), timestamp=row["timestamp"], direction=direction, amount=row["amount_decimal"],
        usd_value=row["usd_value"], counterparty_address=counterparty, chain_id=row["chain_id"], tx_hash=row["tx_hash"],
        from_address=row["from_address"], to_address=row["to_address"], asset=row["asset"],
        counterparty_entity_id=str(counterparty_entity) if counterparty_entity else None,
    )


def rule_fiat(row: dict) -> RuleFiat:
    return RuleFiat(
        id=str(row["id"]), timestamp=row["timestamp"], event_type=row["event_type"], amount=row["amount"],
        usd_value=row["usd_value"], currency=row["currency"], counterparty_name=row["counterparty_name"],
        counterparty_bank=row["counterparty_bank"], card_type=row["card_type"] or None,
        merchant_category_code=row["merchant_category_code"] or None, merchant_country=row["merchant_country"] or None,
        check_type=row["check_type"] or None, check_number=row["check_number"] or None, deposit_method=row["deposit_method"] or None,
    )


def _with_decimal(rows):
    from decimal import Decimal

    for row in rows:
        row["amount_decimal"] = Decimal(row["amount"])
        yield row


class BatchLoader:
    """Loads everything the engine needs for the entities of one batch spanning [start, end]."""

    def __init__(self, *, organization, mode: str, settings: EngineSettings, lists: OrgLists):
        self.organization, self.mode, self.settings, self.lists = organization, mode, settings, lists
        self.lookback = settings.lookback()

    def contexts(self, entity_ids: set[UUID], start: datetime, end: datetime) -> dict[UUID, EntityContext]:
        tx_start, fiat_start = start - self.lookback.transactions, start - self.lookback.fiat
        entities = {row.pk: row for row in EntityRow.objects.filter(pk__in=entity_ids)}
        wallets = self._wallets(entity_ids)
        transactions = self._transactions(entity_ids, tx_start, end)
        fiat = self._fiat(entity_ids, fiat_start, end)
        before = self._activity_before(entity_ids, tx_start, fiat_start)
        known = self._known_counterparties(entity_ids, tx_start)
        network = self._network(transactions, start, end)
        tx_of, fiat_of = defaultdict(list), defaultdict(list)
        for tx in transactions:
            for entity_id in {tx["from_entity_id"], tx["to_entity_id"]} & entity_ids:
                tx_of[entity_id].append(tx)
        for event in fiat:
            fiat_of[event["entity_id"]].append(event)
        contexts = {}
        for entity_id, row in entities.items():
            latest, first = before.get(entity_id, (None, None))
            history = EntityHistory(
                [rule_transaction(tx, entity_id) for tx in tx_of[entity_id]],
                [rule_fiat(event) for event in fiat_of[entity_id]],
                earlier_activity_at=latest, first_activity_at=first, known_counterparties=known.get(entity_id, ()),
            )
            own = wallets.get(entity_id, {})
            contexts[entity_id] = EntityContext(
                entity=self._entity(row), history=history, own_wallets=frozenset(own), wallet_first_seen=own,
                lists=self.lists, network=network,
            )
        return contexts

    @staticmethod
    def _entity(row: EntityRow) -> Entity:
        return Entity(id=str(row.pk), status=row.status, jurisdiction=row.jurisdiction, entity_type=row.entity_type,
                      created_at=row.created_at, onboarded_at=row.created_at,
                      expected_monthly_volume_usd=row.expected_monthly_volume_usd)

    @staticmethod
    def _wallets(entity_ids) -> dict[UUID, dict]:
        result: dict[UUID, dict] = defaultdict(dict)
        for entity_id, chain_id, address, created_at, first_seen in Wallet.objects.filter(entity_id__in=entity_ids).values_list(
                "entity_id", "chain_id", "address", "created_at", "first_seen_at"):
            result[entity_id][(chain_id, address)] = min(created_at, first_seen) if first_seen else created_at
        return result

    def _transactions(self, entity_ids, since, until) -> list[dict]:
        rows = Transaction.objects.filter(
            Q(from_entity_id__in=entity_ids) | Q(to_entity_id__in=entity_ids),
            organization=self.organization, mode=self.mode, timestamp__gte=since, timestamp__lte=until,
        ).order_by("timestamp", "id").values(*TX_FIELDS)
        return list(_with_decimal(rows))

    def _fiat(self, entity_ids, since, until) -> list[dict]:
        return list(FiatEvent.objects.filter(entity_id__in=entity_ids, timestamp__gte=since, timestamp__lte=until)
                    .order_by("timestamp", "id").values(*FIAT_FIELDS))

    def _activity_before(self, entity_ids, tx_start, fiat_start) -> dict[UUID, tuple[datetime | None, datetime | None]]:
        """(latest, first) activity of each entity before the loaded span, over both channels."""
        facts: dict[UUID, list] = defaultdict(list)
        sources = (
            Transaction.objects.filter(from_entity_id__in=entity_ids, timestamp__lt=tx_start).values("from_entity_id"),
            Transaction.objects.filter(to_entity_id__in=entity_ids, timestamp__lt=tx_start).values("to_entity_id"),
            FiatEvent.objects.filter(entity_id__in=entity_ids, timestamp__lt=fiat_start).values("entity_id"),
        )
        for query in sources:
            for row in query.annotate(latest=Max("timestamp"), first=Min("timestamp")).order_by():
                entity_id = next(value for name, value in row.items() if name.endswith("entity_id"))
                facts[entity_id].append((row["latest"], row["first"]))
        return {entity_id: (max(p[0] for p in pairs), min(p[1] for p in pairs)) for entity_id, pairs in facts.items()}

    def _known_counterparties(self, entity_ids, tx_start) -> dict[UUID, set]:
        """Counterparties each entity dealt with before the loaded span (rule 14's "previously unseen")."""
        known: dict[UUID, set] = defaultdict(set)
        earlier = Transaction.objects.filter(timestamp__lt=tx_start)
        for entity_id, chain_id, address in earlier.filter(from_entity_id__in=entity_ids).values_list(
                "from_entity_id", "chain_id", "to_address").distinct():
            known[entity_id].add((chain_id, address))
        for entity_id, chain_id, address in earlier.filter(to_entity_id__in=entity_ids).values_list(
                "to_entity_id", "chain_id", "from_address").distinct():
            known[entity_id].add((chain_id, address))
        return known

    def _network(self, transactions: list[dict], start: datetime, end: datetime) -> OrgNetwork:
        org_wallets = Wallet.objects.filter(organization=self.organization, mode=self.mode)
        registered = {(chain_id, address): str(entity_id) for chain_id, address, entity_id in org_wallets.values_list(
            "chain_id", "address", "entity_id")}
        flagged = frozenset(org_wallets.filter(flagged=True).values_list("chain_id", "address"))
        counterpart_ids = {tx[side] for tx in transactions for side in ("from_entity_id", "to_entity_id") if tx[side]}
        return OrgNetwork(registered_wallets=registered, entities=self._counterparty_entities(counterpart_ids),
                          flagged_wallets=flagged, transfers=self._transfer_graph(start - CYCLE_WINDOW, end))

    @staticmethod
    def _counterparty_entities(entity_ids) -> dict[str, CounterpartyEntity]:
        findings: dict[UUID, list] = defaultdict(list)
        for entity_id, at in Alert.objects.filter(entity_id__in=entity_ids, disposition=Disposition.TRUE_POSITIVE).values_list(
                "entity_id", "disposed_at"):
            findings[entity_id].append(at)
        rows = EntityRow.objects.filter(pk__in=entity_ids).values_list("pk", "jurisdiction", "status")
        return {str(pk): CounterpartyEntity(id=str(pk), jurisdiction=jurisdiction, status=status,
                                            adverse_findings_at=tuple(sorted(findings.get(pk, ()))))
                for pk, jurisdiction, status in rows}

    def _transfer_graph(self, since, until) -> TransferGraph:
        rows = Transaction.objects.filter(organization=self.organization, mode=self.mode, timestamp__gte=since, timestamp__lte=until,
                                          from_entity__isnull=False, to_entity__isnull=False).values(*TX_FIELDS)
        return TransferGraph(rule_transaction(row, row["from_entity_id"]) for row in _with_decimal(rows))
