"""Seeding the demo portfolio (demo.portfolio) into an organization's mode, and removing it.

Every record is written by the service the API (or the console) calls for it, after the check the API
makes: entities (`entity_create`, `entity_review`), transfers and fiat events (the backfill path:
the API's validation, `transactions_ingest_batch` and `fiat_events_store`, then
`monitor_unmonitored` evaluates them in time order, as `run_monitoring` does), cases
(`case_assign`, `case_status_set`, `case_comment_add`), the SAR draft (`draft_validate`), the
314(a) list (`file_upload`, `file_match`), the webhook endpoint (`endpoint_create`) and the address
tags (`list_entry_add`). One transaction: a seeding that fails leaves nothing behind.

Removal deletes through the services where deletion exists (webhook endpoints, address tags) and
otherwise deletes exactly the rows of the portfolio's entities in that organization and mode.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from common.api.serializers import validated
from common.audit import audit_record
from common.errors import Conflict
from common.principal import Principal
from demo.models import DemoPortfolio
from demo.portfolio import SEED, TAG_SOURCE, Portfolio, portfolio
from filings.cases.services import case_assign, case_comment_add, case_status_set
from filings.choices import CaseStatus
from filings.documents.examples import filer_for
from filings.models import Case, FilingRecord
from filings.reports import drafts
from monitoring import backfill
from monitoring.alerts.services import alert_dispose
from monitoring.api.batch_validation import validated_batch
from monitoring.api.ingest_serializers import MAX_BATCH
from monitoring.choices import Source
from monitoring.configuration.services import list_entry_add, list_entry_remove
from monitoring.engine.runner import monitor_unmonitored
from monitoring.fincen314a.services import file_match, file_upload
from monitoring.ingestion.services import fiat_events_store, transactions_ingest_batch
from monitoring.models import AddressTag, Alert, FiatEvent, Fincen314aFile, Fincen314aMatch, Notification, Transaction
from monitoring.rules import get_rule
from onboarding.api.serializers import OnboardEntityRequest
from onboarding.models import Entity
from onboarding.risk import risks_recompute
from onboarding.services import entity_create, entity_review
from organizations.choices import Mode, Role
from organizations.models import Membership
from webhooks.models import Event, WebhookEndpoint
from webhooks.services import endpoint_create, endpoint_delete

PLACEHOLDER_WEBHOOK_URL = "https://webhook-receiver.demo.invalid/events"
"""A name under .invalid (RFC 6761) never resolves: the endpoint is a placeholder, created disabled
(a disabled endpoint gets no deliveries), for a user to point at a receiver and enable."""
WEBHOOK_EVENT_TYPES = ["alert.created", "case.created", "case.status_changed", "sar.filed", "fincen_314a.match_found"]

Progress = Callable[[str], None]


def _timestamp(anchor: datetime, before: int) -> str:
    return (anchor - timedelta(seconds=before)).isoformat().replace("+00:00", "Z")


class _Seeding:
    def __init__(self, organization, mode: str, plan: Portfolio, anchor: datetime, progress: Progress):
        self.organization, self.mode, self.plan, self.anchor = organization, mode, plan, anchor
        self.principal = Principal.system(organization, mode)
        self.progress = progress
        self.entities: dict[str, Entity] = {}
        self.created: dict[str, list[str]] = {"entities": [], "address_tags": [], "webhook_endpoints": [], "fincen_314a_files": []}
        self.notes: dict = {}

    def step(self, work: Callable[[], str]) -> None:
        started = time.monotonic()
        said = work()
        self.progress(f"{said} ({time.monotonic() - started:.1f} s)")

    def run(self) -> dict:
        for work in (self.lists, self.webhook_endpoint, self.onboarding, self.reviews, self.transfers, self.fiat_events,
                     self.monitoring, self.dispositions, self.cases, self.fincen_314a):
            self.step(work)
        return self.summary()

    # --- Steps -------------------------------------------------------------------------------------

    def lists(self) -> str:
        for tag in self.plan.tags:
            entry = list_entry_add(principal=self.principal, kind="address_tag", fields={**tag, "source": TAG_SOURCE})
            self.created["address_tags"].append(str(entry.pk))
        categories = Counter(tag["category"] for tag in self.plan.tags)
        return f"{len(self.plan.tags)} address tags ({', '.join(f'{n} {c}' for c, n in sorted(categories.items()))})"

    def webhook_endpoint(self) -> str:
        endpoint = endpoint_create(principal=self.principal, url=PLACEHOLDER_WEBHOOK_URL, event_types=WEBHOOK_EVENT_TYPES, enabled=False,
                                   description="Demo placeholder (its host never resolves): set your receiver's URL and enable it.")
        self.created["webhook_endpoints"].append(str(endpoint.pk))
        return f"a webhook endpoint, disabled, to the placeholder {PLACEHOLDER_WEBHOOK_URL}"

    def onboarding(self) -> str:
        for customer in self.plan.customers:
            entity = entity_create(principal=self.principal, data=validated(OnboardEntityRequest, customer.body))
            self.entities[customer.key] = entity
            self.created["entities"].append(str(entity.pk))
        kinds = Counter(customer.body["entity_type"] for customer in self.plan.customers)
        wallets = sum(len(customer.body["wallets"]) for customer in self.plan.customers)
        return (f"{len(self.entities)} entities onboarded ({kinds['individual']} individuals, {kinds['business']} businesses, "
                f"{len({c.body['jurisdiction'] for c in self.plan.customers})} jurisdictions) with {wallets} wallets on chain 1")

    def reviews(self) -> str:
        """Approval screens the entity against the loaded sanctions lists first (the service does it);
        one that cannot be approved (no list loaded, a possible match to decide) stays as it is."""
        waiting = []
        for customer in self.plan.customers:
            entity = self.entities[customer.key]
            actions = {"approve": ["approve"], "suspend": ["approve", "suspend"], "reject": ["reject"]}.get(customer.decision, [])
            try:
                for action in actions:
                    entity = entity_review(principal=self.principal, entity_id=entity.pk, action=action, reason=customer.decision_reason,
                                           notes="Demo portfolio review.")
            except Conflict as refusal:
                waiting.append(f"{entity.legal_name}: {refusal.message}")
            self.entities[customer.key] = entity
        self.notes["approvals_waiting"] = waiting
        statuses = Counter(Entity.objects.filter(pk__in=self.created["entities"]).values_list("status", flat=True))
        said = ", ".join(f"{count} {status}" for status, count in statuses.most_common())
        if waiting:  # the refusal's first clause says why
            said += f"; {len(waiting)} could not be approved, e.g. {waiting[0].split('; ')[0]}"
        return f"reviews: {said}"

    def transfers(self) -> str:
        """Stored as a backfill: in batches checked as POST /v1/monitoring/transfers/batch checks them."""
        records = [{**{k: v for k, v in transfer.items() if k != "before"}, "timestamp": _timestamp(self.anchor, transfer["before"])}
                   for transfer in sorted(self.plan.transfers, key=lambda transfer: -transfer["before"])]
        stored = 0
        for start in range(0, len(records), MAX_BATCH):
            body = validated_batch({"transactions": records[start:start + MAX_BATCH], "run_monitoring": False})
            outcome = transactions_ingest_batch(principal=self.principal, items=body["transactions"], run_monitoring=False,
                                                source=Source.BACKFILL)
            stored += outcome.ingested
        self.notes["transfers"] = stored
        return f"{stored} transfers stored"

    def fiat_events(self) -> str:
        records = [{**{k: v for k, v in event.items() if k not in ("before", "customer")},
                    "entity_id": str(self.entities[event["customer"]].pk), "event_timestamp": _timestamp(self.anchor, event["before"])}
                   for event in sorted(self.plan.fiat_events, key=lambda event: -event["before"])]
        items = []
        for record in records:  # each checked as POST /v1/monitoring/fiat-events checks it (and backfill does)
            _, item, errors = backfill.validated(record)
            if errors:
                raise ValueError(f"the demo portfolio has an invalid fiat event {record}: {errors}")
            items.append(item)
        stored = 0
        for start in range(0, len(items), MAX_BATCH):
            stored += fiat_events_store(principal=self.principal, items=items[start:start + MAX_BATCH]).ingested
        self.notes["fiat_events"] = stored
        return f"{stored} fiat events stored"

    def monitoring(self) -> str:
        """What run_monitoring does: every event of the mode not evaluated yet, in time order (on the
        first make run, the portfolio's)."""
        evaluated = 0
        for events, _ in monitor_unmonitored(organization=self.organization, mode=self.mode):
            evaluated += events
        alerts = Alert.objects.filter(organization=self.organization, mode=self.mode, entity_id__in=self.created["entities"]).count()
        return f"monitoring: {evaluated} events evaluated in time order by the 53 rules, {alerts} alerts"

    def dispositions(self) -> str:
        """A few alerts decided, then the risk scores the alerts feed (the worker's job after each
        batch, done here so that the summary shows them): confirmed findings set a floor."""
        for key, rule_code, disposition, notes in self.plan.dispositions:
            alert = Alert.objects.get(organization=self.organization, mode=self.mode, entity=self.entities[key], rule_code=rule_code)
            alert_dispose(principal=self.principal, alert_id=alert.pk, disposition=disposition, notes=notes)
        risks_recompute(entity_ids=self.created["entities"], reason="demo portfolio: alerts raised and decided")
        tiers = Counter(Entity.objects.filter(pk__in=self.created["entities"]).values_list("risk_tier", flat=True))
        decided = Counter(disposition for _, _, disposition, _ in self.plan.dispositions)
        closed = ", ".join(f"{count} closed as {disposition}" for disposition, count in sorted(decided.items()))
        return f"alerts decided: {closed}; risk tiers: {', '.join(f'{n} {tier}' for tier, n in tiers.most_common())}"

    def cases(self) -> str:
        assignee = (Membership.objects.filter(organization=self.organization, user__is_active=True,
                                              role__in=[role for role in Role.values if Role.at_least(role, Role.L2_INVESTIGATOR)])
                    .order_by("created_at", "pk").values_list("user_id", flat=True).first())
        investigated = self._work_case(self.plan.investigated_case, assignee,
                                       "Fourteen payments of a few hundred USDC each from fourteen wallets never seen before, within a "
                                       "day. Asked the merchant for the orders behind them.")
        sar = self._work_case(self.plan.sar_case, assignee,
                              "Four deposits just under 10,000 USD from unknown wallets on one day, sent on within hours: structuring "
                              "and pass-through. SAR drafted.")
        # The investigator selects the case's alerts, all still open, for the report (by default a report covers disposed alerts only).
        subject = drafts.sar_selection_set(principal=self.principal, case_id=sar.pk,
                                           include=list(sar.alert_links.values_list("alert_id", flat=True)))
        form, _, _ = drafts.current_form(subject, self.principal)
        form["filer"] = {**filer_for(self.entities[self.plan.sar_case].jurisdiction), "legal_name": self.organization.name,
                         **form.get("filer", {})}  # the organization's filer profile wins
        review = drafts.draft_validate(principal=self.principal, subject=subject, form_data=form)
        if not review.valid:
            raise ValueError(f"the demo SAR draft does not validate: {[issue.message for issue in review.errors]}")
        cases = Case.objects.filter(organization=self.organization, mode=self.mode, entity_id__in=self.created["entities"]).count()
        return (f"{cases} cases (one per entity with alerts); {investigated.reference} under investigation, {sar.reference} with a "
                f"validated {subject.renderer.kind} draft")

    def _work_case(self, key: str, assignee, comment: str) -> Case:
        case = Case.objects.filter(organization=self.organization, mode=self.mode, entity=self.entities[key]).first()
        if case is None:
            raise ValueError(f"the demo portfolio's typology of {key} raised no alert")
        case_status_set(principal=self.principal, case_id=case.pk, status=CaseStatus.INVESTIGATING)
        if assignee is not None:
            case_assign(principal=self.principal, case_id=case.pk, assignee_id=assignee)
        case_comment_add(principal=self.principal, case_id=case.pk, body=comment)
        return Case.objects.get(pk=case.pk)

    def fincen_314a(self) -> str:
        name, text = self.plan.fincen_314a
        period = (self.anchor - timedelta(days=2)).date()
        uploaded = file_upload(principal=self.principal, filename=name.replace(".csv", f"_{period:%Y-%m-%d}.csv"), content=text.encode(),
                               period=period)
        file_match(file_id=uploaded.pk)  # the worker would; done here so the matches are there when make run serves
        self.created["fincen_314a_files"].append(str(uploaded.pk))
        matches = Fincen314aMatch.objects.filter(file_id=uploaded.pk).count()
        return f"a 314(a) list of {uploaded.subjects_count} subjects: {matches} matches to review"

    # --- Summary -----------------------------------------------------------------------------------

    def summary(self) -> dict:
        ids = self.created["entities"]
        scope = {"organization": self.organization, "mode": self.mode}
        codes = Alert.objects.filter(**scope, entity_id__in=ids).values_list("rule_code", flat=True)
        families = Counter(str(get_rule(code).family) for code in codes)
        return {
            "entities": len(ids),
            "statuses": dict(Counter(Entity.objects.filter(pk__in=ids).values_list("status", flat=True))),
            "high_risk": Entity.objects.filter(pk__in=ids, risk_tier__in=["high", "critical"]).count(),
            "transfers": self.notes["transfers"], "fiat_events": self.notes["fiat_events"],
            "alerts": sum(families.values()), "alerts_by_family": dict(sorted(families.items())),
            "cases": Case.objects.filter(**scope, entity_id__in=ids).count(),
            "fincen_314a_matches": Fincen314aMatch.objects.filter(file_id__in=self.created["fincen_314a_files"]).count(),
            "webhook_endpoints": len(self.created["webhook_endpoints"]),
            "approvals_waiting": len(self.notes["approvals_waiting"]),
        }


@transaction.atomic
def demo_seed(*, organization, mode: str = Mode.TEST, seed: int = SEED, anchor: datetime | None = None, again: bool = False,
              progress: Progress = lambda text: None) -> DemoPortfolio | None:
    """Seed the demo portfolio into the organization's mode, unless it was seeded there before (then
    None; also when it was removed since, unless `again`). `anchor`: the moment its times count back
    from (now)."""
    earlier = DemoPortfolio.objects.select_for_update().filter(organization=organization, mode=mode).first()
    if earlier is not None and not (again and earlier.removed_at):
        return None
    if earlier is not None:
        earlier.delete()  # the mark of the removed portfolio; the new one replaces it
    anchor = (anchor or timezone.now()).replace(microsecond=0)
    plan = portfolio(seed)
    seeding = _Seeding(organization, mode, plan, anchor, progress)
    summary = seeding.run()
    marker = DemoPortfolio.objects.create(organization=organization, mode=mode, seed=seed, digest=plan.digest(), anchor=anchor,
                                          summary=summary, created=seeding.created)
    audit_record(actor=seeding.principal, action="demo_portfolio.seeded", object_type="demo_portfolio", object_id=marker.pk,
                 organization=organization, mode=mode, after=summary)
    return marker


def _deleted(queryset, label: str) -> int:
    return queryset.delete()[1].get(label, 0)


@transaction.atomic
def demo_remove(*, organization, mode: str = Mode.TEST) -> dict | None:
    """Delete the demo portfolio of the organization's mode: its entities with everything recorded about
    them (transfers, fiat events, alerts, cases with their drafts and filings, checks, 314(a) matches,
    notifications and webhook events), and the address tags, webhook endpoint and 314(a) list it added.
    Nothing else: the ids come from the portfolio's mark. The mark stays (with `removed_at`), so make
    run does not seed it again; the audit log keeps its entries. None when there is nothing to remove."""
    marker = DemoPortfolio.objects.select_for_update().filter(organization=organization, mode=mode, removed_at__isnull=True).first()
    if marker is None:
        return None
    principal = Principal.system(organization, mode)
    scope = {"organization": organization, "mode": mode}
    created = marker.created
    endpoints = list(WebhookEndpoint.objects.filter(**scope, pk__in=created["webhook_endpoints"]).values_list("pk", flat=True))
    for endpoint_id in endpoints:
        endpoint_delete(principal=principal, endpoint_id=endpoint_id)
    tags = list(AddressTag.objects.filter(organization=organization, pk__in=created["address_tags"], source=TAG_SOURCE)
                .values_list("pk", flat=True))
    for tag_id in tags:
        list_entry_remove(principal=principal, kind="address_tag", entry_id=tag_id)
    ids = list(Entity.objects.filter(**scope, pk__in=created["entities"]).values_list("pk", flat=True))
    removed = {
        "fincen_314a_files": _deleted(Fincen314aFile.objects.filter(**scope, pk__in=created["fincen_314a_files"]),
                                      "monitoring.Fincen314aFile"),
        "filings": _deleted(FilingRecord.objects.filter(**scope, entity_id__in=ids), "filings.FilingRecord"),
        "cases": _deleted(Case.objects.filter(**scope, entity_id__in=ids), "filings.Case"),
        "alerts": _deleted(Alert.objects.filter(**scope, entity_id__in=ids), "monitoring.Alert"),
        "transfers": _deleted(Transaction.objects.filter(Q(from_entity_id__in=ids) | Q(to_entity_id__in=ids), **scope),
                              "monitoring.Transaction"),
        "fiat_events": _deleted(FiatEvent.objects.filter(**scope, entity_id__in=ids), "monitoring.FiatEvent"),
        "notifications": _deleted(Notification.objects.filter(**scope, entity_id__in=ids), "monitoring.Notification"),
        "webhook_events": _deleted(Event.objects.filter(**scope, data__entity_id__in=[str(pk) for pk in ids]), "webhooks.Event"),
        "entities": _deleted(Entity.objects.filter(**scope, pk__in=ids), "onboarding.Entity"),
        "address_tags": len(tags),
        "webhook_endpoints": len(endpoints),
    }
    marker.removed_at = timezone.now()
    marker.save(update_fields=["removed_at", "updated_at"])
    audit_record(actor=principal, action="demo_portfolio.removed", object_type="demo_portfolio", object_id=marker.pk,
                 organization=organization, mode=mode, after=removed)
    return removed
