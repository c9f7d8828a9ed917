"""python manage.py recompute_risk [--org SLUG] [--mode live|test] [--jurisdiction KP,IR] [--reason TEXT]

Scores entities again with the risk model as it is now. Scores are otherwise recomputed when
something happens to an entity (a screening, an alert, a review); after the model or its tables
change (a new floor, a jurisdiction moved between lists in settings) this brings every stored
customer up to date at once, each change with a risk-history row, an `entity.risk_score_changed`
event and an audit entry naming the reason. Idempotent: an entity whose score and tier stay as
they are gets no row. In chunks, each its own transaction, with progress.
"""

import time

from django.core.management.base import BaseCommand, CommandError

from onboarding.models import Entity
from onboarding.risk.services import risks_recompute
from organizations.choices import Mode
from organizations.selectors import organization_by_slug

CHUNK = 500
DEFAULT_REASON = "risk model updated"


class Command(BaseCommand):
    help = "Score entities again with the current risk model (after it or its tables changed)."

    def add_arguments(self, parser):
        parser.add_argument("--org", help="one organization's entities (its slug); every organization's by default")
        parser.add_argument("--mode", choices=Mode.values, help="one mode's entities; both by default")
        parser.add_argument("--jurisdiction", help="only entities of these jurisdictions, comma-separated ISO codes (KP,IR)")
        parser.add_argument("--reason", default=DEFAULT_REASON, help=f"the reason each change records (default {DEFAULT_REASON!r})")

    def handle(self, *args, org: str | None, mode: str | None, jurisdiction: str | None, reason: str, **options):
        entities = Entity.objects.all()
        if org is not None:
            organization = organization_by_slug(org)
            if organization is None:
                raise CommandError(f"No organization has the slug {org!r}.")
            entities = entities.filter(organization=organization)
        if mode is not None:
            entities = entities.filter(mode=mode)
        if jurisdiction is not None:
            codes = sorted({code.strip().upper() for code in jurisdiction.split(",") if code.strip()})
            if not codes:
                raise CommandError("--jurisdiction names no code: give ISO 3166-1 codes such as KP,IR.")
            entities = entities.filter(jurisdiction__in=codes)
        if not reason.strip():
            raise CommandError("--reason is empty: each change records why it was made.")
        ids = list(entities.order_by("pk").values_list("pk", flat=True))
        self.stdout.write(f"{len(ids):,} entities to score again.")
        changed, started = 0, time.monotonic()
        for start in range(0, len(ids), CHUNK):
            chunk = ids[start:start + CHUNK]
            changed += risks_recompute(entity_ids=chunk, reason=reason.strip())
            done = start + len(chunk)
            self.stdout.write(f"  {done:,}/{len(ids):,} ({100 * done // len(ids)}%), {changed:,} changed, "
                              f"{done / max(time.monotonic() - started, 1e-6):,.0f} entities/s")
        outcome = (f"{changed:,} scores or tiers changed, each with a risk-history row ({reason.strip()!r})" if changed
                   else "no score or tier changed")  # a factor's wording may still have been brought up to date
        self.stdout.write(self.style.SUCCESS(f"Done: {len(ids):,} entities scored; {outcome}."))
