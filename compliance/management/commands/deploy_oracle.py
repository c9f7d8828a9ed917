"""Deploys ComplianceOracle on a configured chain with its signer (CHAIN_SIGNER_KEY_<chain_id>) and records the address."""

from django.core.management.base import BaseCommand, CommandError

from compliance.onchain.publisher import PublisherError, deploy_oracle


class Command(BaseCommand):
    help = "Deploy ComplianceOracle on --chain with the chain's signer (owner and operator) and record its address."

    def add_arguments(self, parser):
        parser.add_argument("--chain", type=int, required=True, help="The chain id (a compliance.Chain row).")

    def handle(self, *args, chain: int, **options):
        try:
            address = deploy_oracle(chain, progress=lambda line: self.stderr.write(line))
        except PublisherError as exc:
            raise CommandError(str(exc))
        self.stdout.write(address)
