"""Reading a list's files from disk, plain or gzip-compressed (the bundled snapshot is compressed).

A list's content hash is taken over the files as the publisher serves them, so a file read from
`sdn.csv.gz` hashes the same as `sdn.csv` or the same bytes downloaded: a refresh that brings the
bundled content again is recognised as unchanged.
"""

from __future__ import annotations

import gzip
from pathlib import Path


def read_blob(path: Path) -> bytes:
    """The file's content; a `.gz` file is decompressed."""
    blob = path.read_bytes()
    return gzip.decompress(blob) if path.suffix == ".gz" else blob


def find_file(directory: Path, name: str) -> Path | None:
    """`directory/name`, else `directory/name.gz`, else None."""
    for candidate in (directory / name, directory / f"{name}.gz"):
        if candidate.is_file():
            return candidate
    return None


def read_files(directory: Path, names) -> tuple[dict[str, bytes], list[str]]:
    """({name: content}, [paths read]) for those of `names` present in `directory`, plain or .gz."""
    blobs: dict[str, bytes] = {}
    paths: list[str] = []
    for name in names:
        path = find_file(directory, name)
        if path is not None:
            blobs[name] = read_blob(path)
            paths.append(str(path))
    return blobs, paths


def decode_text(blob: bytes) -> str:
    """The text of a published text file: UTF-8 (a byte-order mark is dropped), else Windows-1252,
    which older US government files are written in."""
    try:
        return blob.decode("utf-8-sig")
    except UnicodeDecodeError:
        return blob.decode("cp1252", errors="replace")
