"""Indexes a chain's blocks again from a block (monitoring.indexer.services.reindex): idempotent."""

from django.core.management.base import BaseCommand

from monitoring.indexer.commands import chain_by_id, progress_line, summary
from monitoring.indexer.services import reindex


class Command(BaseCommand):
    help = "Index a chain again from --from-block (to --to-block, or its head minus confirmations); stored transfers are kept."

    def add_arguments(self, parser):
        parser.add_argument("--chain", type=int, required=True, help="The chain id (a compliance.Chain row).")
        parser.add_argument("--from-block", type=int, required=True)
        parser.add_argument("--to-block", type=int, default=None)

    def handle(self, *args, chain: int, from_block: int, to_block: int | None, **options):
        result = reindex(chain_by_id(chain), from_block=from_block, to_block=to_block,
                         progress=lambda r: self.stdout.write(progress_line(r)))
        self.stdout.write(summary(result))
