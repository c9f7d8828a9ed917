"""Reading a published XML list (UN, EU, UK): safely, and telling a damaged document from a good one.

Every published list document is well-formed; one that is not was cut short or damaged in transit.
`read_document` then records it in the report as incomplete (which the loader refuses) and reads
what lxml's recovering parser can, only so that the report says how much was there, counting every
parser error as a skipped row. Entities are not resolved and nothing is fetched from the network.
"""

from __future__ import annotations

from collections.abc import Callable

from lxml import etree

from onboarding.sanctions.formats.dates import timestamp
from onboarding.sanctions.records import ParsedEntry, ParsedList, ParseReport, clean, content_hash


def _parser(*, recover: bool) -> etree.XMLParser:
    return etree.XMLParser(recover=recover, resolve_entities=False, no_network=True, remove_comments=True)


def read_document(blob: bytes, file: str, report: ParseReport):
    """The root element, or None if nothing could be read; a document that is not well-formed is
    recorded in `report.incomplete` and its parser errors as skipped rows."""
    try:
        return etree.fromstring(blob, _parser(recover=False))
    except etree.XMLSyntaxError as error:
        report.incomplete.append(f"{file} is not well-formed XML ({error}): the download was cut short or damaged")
    parser = _parser(recover=True)
    try:
        root = etree.fromstring(blob, parser)
    except etree.XMLSyntaxError as error:
        root = None
        report.skip(file=file, line=0, reason=f"XML: {error}")
    for error in parser.error_log:
        report.skip(file=file, line=error.line, reason=f"XML: {error.message}")
    return root


def without_namespaces(root):
    """`root` with every element's namespace dropped, so that `find("sanctionEntity")` works
    whether or not (and under whichever URI) the publisher declares a default namespace."""
    if root is None:
        return None
    for element in root.iter():
        if isinstance(element.tag, str) and element.tag.startswith("{"):
            element.tag = etree.QName(element).localname
    etree.cleanup_namespaces(root)
    return root


def check_root(root, expected: str, file: str, report: ParseReport) -> bool:
    """True if the document's root is `expected`; otherwise the file is not that list at all
    (an error page, another list): recorded as incomplete."""
    if root is None:
        return False
    if root.tag != expected:
        report.incomplete.append(f"{file} is not the expected document: its root is <{root.tag}>, not <{expected}>")
        return False
    return True


def text(element, path: str) -> str:
    return clean(element.findtext(path))


def texts(element, path: str) -> list[str]:
    """The cleaned, non-empty texts of the elements at `path`, in document order."""
    return [value for value in (clean(node.text) for node in element.findall(path)) if value]


def parse_entity_document(blob: bytes, *, file: str, source: str, root_tag: str, element: str, id_name: str,
                          entry: Callable[[object], ParsedEntry], generated: Callable[[object], str],
                          source_files: list[str] | None) -> ParsedList:
    """A list published as one XML document whose root `root_tag` holds an `element` per party (the
    EU's and the UK's files): each read by `entry`, kept by its id (`id_name` in the report's
    messages); `generated(root)` is the publisher's stamp, the list's version and publication time."""
    report = ParseReport()
    root = without_namespaces(read_document(blob, file, report))
    entries: dict[str, ParsedEntry] = {}
    if check_root(root, root_tag, file, report):
        for node in root.iter(element):
            report.read(file=file)
            report.keep(entries, entry(node), file=file, line=node.sourceline, id_name=id_name)
    stamp = generated(root) if root is not None else ""
    return ParsedList(source=source, content_hash=content_hash({file: blob}), entries=list(entries.values()), report=report,
                      source_files=source_files if source_files is not None else [file], version=stamp,
                      published_at=timestamp(stamp))
