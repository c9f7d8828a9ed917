"""`python manage.py seed_demo [--org demo] [--again]`: the demo portfolio (README "Demo data") in
the organization's test mode, once. `make run` runs it after loading the sanctions lists (the
approvals screen the entities against them). `DEMO_DATA=0` skips it; a second run, or a run after
`remove_demo_data`, seeds nothing (`--again` seeds it again after a removal)."""

import os
import time

from django.core.management.base import BaseCommand, CommandError

from demo.selectors import demo_portfolio_of
from demo.services import demo_seed
from organizations.choices import Mode
from organizations.selectors import organization_by_slug

OFF = ("0", "false", "no", "off")


def summary_line(summary: dict) -> str:
    families = ", ".join(f"{family} {count}" for family, count in summary["alerts_by_family"].items())
    return (f"{summary['entities']} entities ({summary['high_risk']} high risk), {summary['transfers']:,} transfers, "
            f"{summary['fiat_events']:,} fiat events, {summary['alerts']} alerts ({families}), {summary['cases']} cases, "
            f"{summary['fincen_314a_matches']} 314(a) matches to review, {summary['webhook_endpoints']} webhook endpoint (disabled)")


class Command(BaseCommand):
    help = "Seed the demo portfolio into the demo organization's test mode (first run only; DEMO_DATA=0 skips it)."

    def add_arguments(self, parser):
        parser.add_argument("--org", default="demo", help="organization slug (default: demo, as bootstrap_demo makes it)")
        parser.add_argument("--again", action="store_true", help="seed it again after remove_demo_data")

    def handle(self, *args, org: str, again: bool, **options):
        if os.environ.get("DEMO_DATA", "1").strip().lower() in OFF:
            self.stdout.write("Demo data: skipped (DEMO_DATA=0).")
            return
        organization = organization_by_slug(org)
        if organization is None:
            raise CommandError(f"No organization has the slug {org!r} (make run creates 'demo' with bootstrap_demo).")
        earlier = demo_portfolio_of(organization=organization, mode=Mode.TEST)
        if earlier is not None and not (again and earlier.removed_at):
            state = (f"removed {earlier.removed_at:%Y-%m-%d}; seed_demo --again brings it back" if earlier.removed_at
                     else "manage.py remove_demo_data removes it")
            self.stdout.write(f"Demo data: seeded {earlier.anchor:%Y-%m-%d} in test mode ({state}).")
            return
        started = time.monotonic()
        self.stdout.write("Demo data: seeding the demo portfolio into test mode (the sk_test_ key sees it)...")
        marker = demo_seed(organization=organization, mode=Mode.TEST, again=again, progress=lambda text: self.stdout.write(f"  {text}"))
        if marker is None:  # seeded meanwhile by another run
            return
        self.stdout.write(f"Demo data: {summary_line(marker.summary)}; seeded in {time.monotonic() - started:.1f} s.")
        if marker.summary["approvals_waiting"]:
            self.stdout.write(f"Demo data: {marker.summary['approvals_waiting']} entities stay pending, not approved (see above).")
