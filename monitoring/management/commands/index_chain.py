"""Runs the chain indexer over one chain (monitoring.indexer), with its progress."""

from django.core.management.base import BaseCommand, CommandError

from monitoring.indexer.commands import chain_by_id, progress_line, summary
from monitoring.indexer.services import index_pass


class Command(BaseCommand):
    help = "Index a chain's transfers touching registered wallets: one run (--once), or runs until it is caught up."

    def add_arguments(self, parser):
        parser.add_argument("--chain", type=int, required=True, help="The chain id (a compliance.Chain row).")
        parser.add_argument("--once", action="store_true", help="One run (at most INDEXER_BLOCKS_PER_RUN blocks).")

    def handle(self, *args, chain: int, once: bool, **options):
        row = chain_by_id(chain)
        while True:
            result = index_pass(row, progress=lambda r: self.stdout.write(progress_line(r)))
            self.stdout.write(summary(result))
            if once or not result.behind:
                return
            if result.end is None:
                raise CommandError(f"chain {chain}: no progress")
