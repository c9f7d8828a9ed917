import secrets

from django.core.management.base import BaseCommand, CommandError

from accounts.services import user_create_verified
from common.errors import ServiceError
from organizations.selectors import organization_by_slug
from organizations.services import organization_create


class Command(BaseCommand):
    help = "Create an organization and its admin user (e-mail taken as verified)."

    def add_arguments(self, parser):
        parser.add_argument("--slug", required=True)
        parser.add_argument("--name", required=True)
        parser.add_argument("--admin-email", required=True)
        parser.add_argument("--admin-password", help="generated and printed when omitted")

    def handle(self, *args, slug, name, admin_email, admin_password, **options):
        if organization_by_slug(slug):
            raise CommandError(f"An organization with the slug {slug!r} exists already.")
        password = admin_password or secrets.token_urlsafe(12) + "!a1"
        try:
            user = user_create_verified(email=admin_email, password=password)
            org = organization_create(actor=user, name=name, slug=slug)
        except ServiceError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(f"Organization: {org.name} ({org.slug}) id {org.pk}")
        self.stdout.write(f"Admin: {user.email}")
        if not admin_password:
            self.stdout.write(f"Password: {password}")
