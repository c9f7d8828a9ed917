"""Reads the compiled contracts (contracts/build/<Contract>.json, written by `manage.py compile_contracts`)."""

import json
from functools import cache
from pathlib import Path

from compliance.onchain import BUILD_DIR


class ArtifactMissing(LookupError):
    pass


@cache
def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def load_artifact(name: str, build_dir: Path = BUILD_DIR) -> dict:
    """The artifact of contract `name`: abi, bytecode, deployedBytecode, compiler, sources."""
    path = build_dir / f"{name}.json"
    if not path.is_file():
        raise ArtifactMissing(f"no artifact for {name} in {build_dir}: run `manage.py compile_contracts`")
    return _load(path)


def artifact_names(build_dir: Path = BUILD_DIR) -> list[str]:
    return sorted(path.stem for path in build_dir.glob("*.json"))
