"""The FinCEN BSA E-Filing batch envelope, shared by the SAR and the CTR.

Every element that carries `SeqNum` gets the next number of one counter, so the numbers are
unique in the whole batch as the XSDs' `Unique-SeqNum` constraint requires. Elements are written
in the order of the schema's sequences; values are one line (FinCEN refuses leading, trailing and
repeated spaces, line breaks and tabs in any value — XML user guides 3.2).
"""

from __future__ import annotations

from lxml import etree

from filings.renderers.fincen.codes import NAMESPACE

NS = f"{{{NAMESPACE}}}"


class Batch:
    """Builds one EFilingBatchXML document."""

    def __init__(self, form_type: str):
        self.root = etree.Element(f"{NS}EFilingBatchXML", nsmap={"fc2": NAMESPACE})
        self._seq = 0
        self.add(self.root, "FormTypeCode", form_type)

    def next_seq(self) -> str:
        self._seq += 1
        return str(self._seq)

    def node(self, parent: etree._Element, tag: str) -> etree._Element:
        """A child element carrying the next SeqNum."""
        return etree.SubElement(parent, f"{NS}{tag}", SeqNum=self.next_seq())

    @staticmethod
    def add(parent: etree._Element, tag: str, text: str | int | None) -> etree._Element | None:
        """A child element with text; nothing when the value is None or empty."""
        if text is None or text == "":
            return None
        child = etree.SubElement(parent, f"{NS}{tag}")
        child.text = str(text)
        return child

    @staticmethod
    def flag(parent: etree._Element, tag: str, on: bool | None = True) -> None:
        """An indicator element: "Y" when on, nothing otherwise."""
        if on:
            Batch.add(parent, tag, "Y")

    @staticmethod
    def empty(parent: etree._Element, tag: str) -> None:
        """An element the schema requires but whose value is blank (an indicator that is off)."""
        etree.SubElement(parent, f"{NS}{tag}")

    def serialise(self, **attributes: str) -> bytes:
        for name, value in attributes.items():
            self.root.set(name, value)
        return etree.tostring(self.root, xml_declaration=True, encoding="UTF-8", pretty_print=True)


def count_parties(root: etree._Element, *type_codes: str) -> int:
    """How many Party elements (of the given ActivityPartyTypeCodes, or all) are in the batch."""
    codes = root.iterfind(f"{NS}Activity/{NS}Party/{NS}ActivityPartyTypeCode")
    return sum(1 for code in codes if not type_codes or code.text in type_codes)
