"""`python manage.py seed_lists [--org SLUG] [--add-missing]`

Writes the default lists of docs/rules.md (asset prices USD, USDC, USDT, DAI at 1.0; high-risk jurisdictions;
privacy assets; high-risk MCCs) for organizations created before new ones were seeded automatically.
Data-safe: a list that already has entries is left alone, and with --add-missing only absent
defaults are added; an existing entry is never changed. Running it twice changes nothing.
"""

from django.core.management.base import BaseCommand, CommandError

from monitoring.configuration.services import lists_seed
from organizations.models import Organization


class Command(BaseCommand):
    help = "Seed the default monitoring lists of one organization (--org) or of all; existing entries are kept."

    def add_arguments(self, parser):
        parser.add_argument("--org", metavar="SLUG", help="Only this organization (default: every organization).")
        parser.add_argument("--add-missing", action="store_true",
                            help="Also add absent defaults to lists that already have entries (nothing existing changes).")

    def handle(self, *args, **options):
        organizations = Organization.objects.order_by("slug")
        if options["org"]:
            organizations = organizations.filter(slug=options["org"])
            if not organizations.exists():
                raise CommandError(f"No organization with the slug {options['org']!r}.")
        for organization in organizations:
            added = lists_seed(organization=organization, add_missing=options["add_missing"])
            done = "; ".join(f"{name}: {', '.join(codes)}" for name, codes in added.items() if codes)
            self.stdout.write(f"{organization.slug}: {done or 'nothing to add'}")
