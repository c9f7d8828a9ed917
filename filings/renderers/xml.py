"""A small lxml writer shared by the XML renderers (FinCEN, AUSTRAC, the project's TTR).

Elements are appended in call order, so each renderer writes children in its schema's sequence
order; `add` skips empty values so that optional elements are left out rather than sent blank.
"""

from __future__ import annotations

from lxml import etree

from filings.renderers.text import xml_safe


class XmlWriter:
    def __init__(self, namespace: str, root_tag: str, *, prefix: str | None = None):
        self.ns = f"{{{namespace}}}"
        self.root = etree.Element(f"{self.ns}{root_tag}", nsmap={prefix: namespace})

    def element(self, parent: etree._Element, tag: str, **attributes: str) -> etree._Element:
        return etree.SubElement(parent, f"{self.ns}{tag}", **attributes)

    def add(self, parent: etree._Element, tag: str, text: str | int | None) -> etree._Element | None:
        """A child element with text; nothing when the value is None or empty."""
        if text is None or text == "":
            return None
        child = self.element(parent, tag)
        child.text = xml_safe(str(text))  # a control character in stored data must not stop the document
        return child

    def required(self, parent: etree._Element, tag: str, text: str | None) -> None:
        """An element the schema requires even when its value is blank."""
        self.element(parent, tag).text = xml_safe(text) if text else None

    def serialise(self, **attributes: str) -> bytes:
        for name, value in attributes.items():
            self.root.set(name, value)
        return etree.tostring(self.root, xml_declaration=True, encoding="UTF-8", pretty_print=True)
