"""First run of `make run`: the demo organization, its admin and a test API key.

The demo credentials are kept in DATA_DIR/demo-credentials.json (mode 0600) so later runs print
the same lines; this is a local sandbox of test-mode data, never a production set-up.
"""

import json
import os
import secrets

from django.conf import settings
from django.core.management.base import BaseCommand

from accounts.services import user_create_verified
from organizations.choices import Mode, Role, Tier
from organizations.selectors import organization_by_slug
from organizations.services import api_key_issue, organization_create

DEMO_EMAIL = "admin@demo.example"


class Command(BaseCommand):
    help = "Create the demo organization, admin user and test API key (first run only) and print them."

    def handle(self, *args, **options):
        path = settings.DATA_DIR / "demo-credentials.json"
        if path.exists() and organization_by_slug("demo"):
            credentials = json.loads(path.read_text())
            self.stdout.write("Demo data exists (from an earlier run).")
        else:
            credentials = self._create()
            path.write_text(json.dumps(credentials, indent=2))
            os.chmod(path, 0o600)
            self.stdout.write("Created the demo organization, its admin and a test API key.")
        self.stdout.write(f"Organization: demo\nAdmin e-mail: {credentials['email']}\nAdmin password: {credentials['password']}")
        self.stdout.write(f"API key: {credentials['api_key']}")

    def _create(self) -> dict:
        password = secrets.token_urlsafe(12) + "-Aa1"
        user = user_create_verified(email=DEMO_EMAIL, password=password, is_staff=True)
        user.set_password(password)  # the account may survive a deleted credentials file
        user.save(update_fields=["password"])
        org = organization_by_slug("demo") or organization_create(actor=user, name="Demo", slug="demo")
        issued = api_key_issue(organization=org, mode=Mode.TEST, tier=Tier.STANDARD, role=Role.ADMIN,
                               name="demo test key")
        return {"email": user.email, "password": password, "api_key": issued.secret}
