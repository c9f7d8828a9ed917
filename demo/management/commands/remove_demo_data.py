"""`python manage.py remove_demo_data [--org demo]`: delete the demo portfolio of the organization's
test mode (README "Demo data"), leaving everything else. `make run` does not seed it again."""

from django.core.management.base import BaseCommand, CommandError

from demo.services import demo_remove
from organizations.choices import Mode
from organizations.selectors import organization_by_slug


class Command(BaseCommand):
    help = "Delete the demo portfolio (entities, their activity, alerts, cases, the 314(a) list, webhook endpoint, address tags)."

    def add_arguments(self, parser):
        parser.add_argument("--org", default="demo", help="organization slug (default: demo)")

    def handle(self, *args, org: str, **options):
        organization = organization_by_slug(org)
        if organization is None:
            raise CommandError(f"No organization has the slug {org!r}.")
        removed = demo_remove(organization=organization, mode=Mode.TEST)
        if removed is None:
            self.stdout.write(f"No demo portfolio to remove in {org}'s test mode.")
            return
        counts = ", ".join(f"{count:,} {name.replace('_', ' ')}" for name, count in removed.items())
        self.stdout.write(f"Removed the demo portfolio from {org}'s test mode: {counts}.")
