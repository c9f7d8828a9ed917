from django.core.management.base import BaseCommand, CommandError

from common.errors import ServiceError
from organizations.choices import Mode, Role, Tier
from organizations.selectors import organization_by_slug
from organizations.services import api_key_issue


class Command(BaseCommand):
    help = "Issue an API key; the key is printed alone on the last line (and never shown again)."

    def add_arguments(self, parser):
        parser.add_argument("--org", required=True, help="organization slug")
        parser.add_argument("--mode", required=True, choices=Mode.values)
        parser.add_argument("--tier", default=Tier.STANDARD, choices=Tier.values)
        parser.add_argument("--role", default=Role.L3_OFFICER, choices=Role.values)
        parser.add_argument("--name", default="")

    def handle(self, *args, org, mode, tier, role, name, **options):
        organization = organization_by_slug(org)
        if organization is None:
            raise CommandError(f"No organization has the slug {org!r}.")
        try:
            issued = api_key_issue(organization=organization, mode=mode, tier=tier, role=role,
                                   name=name or f"{mode} key (command line)")
        except ServiceError as exc:
            raise CommandError(exc.message) from None
        key = issued.api_key
        self.stderr.write(f"Issued {key.name!r}: {mode} mode, {tier} tier, role {role}, id {key.pk}")
        self.stdout.write(issued.secret)
