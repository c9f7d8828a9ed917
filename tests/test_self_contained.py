"""A clone works with nothing beside it: every reference file the project reads is in the repository,
as its manifest records it (source, date, licence, SHA-256), and nothing refers to a sibling folder."""

import gzip
import hashlib
import json
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MANIFESTS = sorted(REPO.glob("**/MANIFEST.json"), key=str)
# Written so that this file does not match itself.
SIBLING = re.compile("|".join([r"\.\./" + "shared", "shared/" + "reference", "shared/(DESIGN|RULES|STYLE)" + r"\.md"]))


def tracked_files() -> list[str]:
    return subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout.splitlines()


def test_there_are_manifests():
    names = {str(path.relative_to(REPO)) for path in MANIFESTS}
    assert {"onboarding/sanctions/snapshot/MANIFEST.json", "filings/schemas/MANIFEST.json", "compliance/ivms101/MANIFEST.json",
            "tests/compliance/ivms101_testdata/MANIFEST.json"} <= names


@pytest.mark.parametrize("manifest", MANIFESTS, ids=lambda path: str(path.relative_to(REPO)))
def test_every_file_matches_its_manifest(manifest):
    content = json.loads(manifest.read_text())
    files = content["files"] if "files" in content else [dict(item, list=source) for source, listed in content["lists"].items()
                                                          for item in listed["files"]]
    assert content["retrieved"] and files
    for item in files:
        path = manifest.parent / item.get("list", "") / item["file"]
        blob = path.read_bytes()
        if path.suffix == ".gz":
            assert hashlib.sha256(blob).hexdigest() == item["gzip_sha256"], path
            blob = gzip.decompress(blob)
        assert hashlib.sha256(blob).hexdigest() == item["sha256"], path
    for listed in content.get("lists", {}).values():
        assert listed["licence"] and listed["published"] and listed["upstream"]


def test_nothing_refers_to_a_sibling_shared_folder():
    found = []
    for name in tracked_files():
        path = REPO / name
        if name.endswith(".gz") or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        found += [f"{name}:{number}" for number, line in enumerate(text.splitlines(), 1) if SIBLING.search(line)]
    assert found == []
