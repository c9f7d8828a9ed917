"""Compiles the oracle's Solidity contracts with solcjs into compliance/onchain/contracts/build/ (docs/oracle.md)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from compliance.onchain import BUILD_DIR
from compliance.onchain.compiler import CompileError, compile_contracts, write_artifacts


class Command(BaseCommand):
    help = "Compile compliance/onchain/contracts/*.sol with solcjs and write the artifacts (ABI, bytecode) to contracts/build/."

    def add_arguments(self, parser):
        parser.add_argument("--out", type=Path, default=BUILD_DIR, help="Folder to write <Contract>.json into (default: %(default)s).")

    def handle(self, *args, out: Path, **options):
        try:
            artifacts, warnings = compile_contracts()
        except CompileError as exc:
            raise CommandError(str(exc))
        for warning in warnings:
            self.stderr.write(warning)
        for path in write_artifacts(artifacts, out):
            self.stdout.write(f"wrote {path}")
