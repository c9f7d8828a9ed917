"""One pass of the oracle's status publisher over a chain (compliance.onchain.publisher), with its progress."""

from django.core.management.base import BaseCommand, CommandError

from compliance.onchain.publisher import PublisherError, publish_pass


class Command(BaseCommand):
    help = "Publish the chain's pending on-chain status rows once (sign, broadcast, track confirmations)."

    def add_arguments(self, parser):
        parser.add_argument("--chain", type=int, required=True, help="The chain id (a compliance.Chain row).")

    def handle(self, *args, chain: int, **options):
        try:
            result = publish_pass(chain, progress=self.stdout.write)
        except PublisherError as exc:
            raise CommandError(str(exc))
        if result.skipped:
            raise CommandError(f"chain {chain}: {result.skipped}")
        self.stdout.write(f"chain {chain}: {len(result.signed)} transactions signed, {result.published} rows published, "
                          f"{result.superseded} superseded, {result.confirmed} confirmed, {result.reverted} reverted, "
                          f"{len(result.replacements)} replacements, {result.reorganised} reorganised")
