"""The FinCEN BSA E-Filing batch envelope, shared by the SAR and the CTR.

Every element that carries `SeqNum` gets the next number of one counter, so the numbers are
unique in the whole batch as the XSDs' `Unique-SeqNum` constraint requires. Elements are written
in the order of the schema's sequences; values are one line (FinCEN refuses leading, trailing and
repeated spaces, line breaks and tabs in any value — XML user guides 3.2).
"""

from __future__ import annotations

from lxml import etree

from filings.renderers.fincen.codes import NAMESPACE
from filings.renderers.xml import XmlWriter

NS = f"{{{NAMESPACE}}}"


class Batch(XmlWriter):
    """Builds one EFilingBatchXML document."""

    def __init__(self, form_type: str):
        super().__init__(NAMESPACE, "EFilingBatchXML", prefix="fc2")
        self._seq = 0
        self.add(self.root, "FormTypeCode", form_type)

    def node(self, parent: etree._Element, tag: str) -> etree._Element:
        """A child element carrying the next SeqNum."""
        self._seq += 1
        return self.element(parent, tag, SeqNum=str(self._seq))

    def flag(self, parent: etree._Element, tag: str, on: bool | None = True) -> None:
        """An optional indicator: "Y" when on, left out otherwise."""
        if on:
            self.add(parent, tag, "Y")

    def indicator(self, parent: etree._Element, tag: str, on: bool) -> None:
        """A required indicator: "Y" when on, blank otherwise (CTR ActivityAssociation and Part II)."""
        self.required(parent, tag, "Y" if on else None)


def count_parties(root: etree._Element, *type_codes: str) -> int:
    """How many Party elements (of the given ActivityPartyTypeCodes, or all) are in the batch."""
    codes = root.iterfind(f"{NS}Activity/{NS}Party/{NS}ActivityPartyTypeCode")
    return sum(1 for code in codes if not type_codes or code.text in type_codes)
