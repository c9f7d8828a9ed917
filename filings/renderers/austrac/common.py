"""Helpers shared by the AUSTRAC SMR and the project's TTR: ids, parties, amounts, file names.

AUSTRAC's schemas give most elements a required `id` (xs:ID), unique in the file; `Writer.node`
numbers them per tag ("sp1", "txn3"). AUSTRAC takes names in any script, so names are cut to the
schema's lengths but not transliterated; wallet addresses and chain transaction ids must be
letters and digits only (DigitalCurrencyWallet, blockchainTransactionId patterns).
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import date
from decimal import Decimal

from lxml import etree

from filings.documents.model import Address, Form, Subject
from filings.documents.vocabulary import IdDocumentType, InstitutionType, TaxIdType
from filings.renderers.formatting import country_name, fixed, loses_precision
from filings.renderers.text import Changes, fit, keep_only
from filings.renderers.xml import XmlWriter

ALPHANUMERIC = re.compile(r"[0-9A-Za-z]")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+$")
_DIGITS = re.compile(r"^\d{1,7}$")

# designatedSvc (AML/CTF Act s. 6 table items): a digital currency exchange is "DCE"; remittance
# "RS"; deposit-taking "ACC_DEP"; securities "SECURITY"; gambling "GAM_BETT"; life insurance "LIFE_INS".
DESIGNATED_SERVICE = {
    InstitutionType.VIRTUAL_ASSET_SERVICE_PROVIDER: "DCE", InstitutionType.MONEY_SERVICES_BUSINESS: "RS",
    InstitutionType.DEPOSITORY_INSTITUTION: "ACC_DEP", InstitutionType.SECURITIES_FUTURES: "SECURITY",
    InstitutionType.CASINO: "GAM_BETT", InstitutionType.INSURANCE: "LIFE_INS", InstitutionType.LOAN_FINANCE: "BUS_LOAN",
    InstitutionType.OTHER: "DCE",
}
# Identification type (IdType): P passport, D driver's licence, IDNT national identity card, ARNU
# alien registration number.
ID_TYPE = {IdDocumentType.PASSPORT: "P", IdDocumentType.DRIVERS_LICENSE: "D", IdDocumentType.NATIONAL_ID: "IDNT",
           IdDocumentType.ALIEN_REGISTRATION: "ARNU"}


class Writer(XmlWriter):
    def __init__(self, namespace: str, root_tag: str, form: Form, changes: Changes):
        super().__init__(namespace, root_tag)
        self.form = form
        self.changes = changes
        self._ids: Counter[str] = Counter()

    def node(self, parent: etree._Element, tag: str, prefix: str | None = None) -> etree._Element:
        """An element with the next id for its kind (xs:ID values must be unique and start with a letter)."""
        key = prefix or tag
        self._ids[key] += 1
        return self.element(parent, tag, id=f"{key}{self._ids[key]}")

    def fit(self, value: str | None, limit: int, path: str, label: str) -> str | None:
        return fit(value, limit, path=path, changes=self.changes, label=label)

    def amount(self, parent: etree._Element, tag: str, amount: Decimal, path: str) -> None:
        """AUSTRAC Amount: up to 15 digits and 2 decimals, rounded half-up."""
        if loses_precision(amount, 2):
            self.changes.tally(path, "Amount rounded to AUSTRAC's 2 decimals")
        self.add(parent, tag, fixed(amount, 2))

    def country(self, code: str | None) -> str | None:
        """AUSTRAC Country is free text of at most 35 characters: the English name when it fits."""
        name = country_name(code)
        return name if name and len(name) <= 35 else code

    def address(self, parent: etree._Element, tag: str, address: Address | None, path: str, *, with_country: bool = True) -> None:
        if address is None:
            return
        element = self.node(parent, tag, "addr")
        self.add(element, "addr", self.fit(address.line1, 140, f"{path}.line1", "Street address"))
        self.add(element, "suburb", self.fit(address.city, 35, f"{path}.city", "Suburb or city"))
        self.add(element, "state", self.fit(address.state, 35, f"{path}.state", "State"))
        self.add(element, "postcode", self.fit(address.postal_code, 15, f"{path}.postal_code", "Postcode"))
        if with_country:
            self.add(element, "country", self.country(address.country))

    def branch(self, parent: etree._Element, tag: str) -> None:
        """The reporting branch: the filer, with its address when all four parts are known."""
        filer = self.form.filer
        element = self.node(parent, tag, "branch")
        self.add(element, "name", self.fit(filer.legal_name or "Head office", 120, "filer.legal_name", "Branch name"))
        address = filer.address
        if address and address.line1 and address.city and address.state and address.postal_code:
            self.address(element, "address", address, "filer.address", with_country=False)

    def wallet(self, parent: etree._Element, tag: str, value: str | None, path: str) -> None:
        self.add(parent, tag, keep_only(value, ALPHANUMERIC, path=path, changes=self.changes, label="Wallet address"))

    def email(self, parent: etree._Element, value: str, path: str) -> None:
        text = self.fit(value, 250, path, "E-mail address")
        if text and _EMAIL.match(text):
            self.add(parent, "email", text)
        elif text:
            self.changes.note(path, f"E-mail address {text!r} is not of the form name@domain; left out.")

    def party_details(self, element: etree._Element, subject: Subject, path: str) -> None:
        """The elements a party has in common (SMR suspPerson/otherPerson, TTR customer), in order:
        names, addresses, phones, e-mails, wallets, ABN/ACN, business or individual details, ids."""
        name = subject.display_name
        self.add(element, "fullName", self.fit(name, 140, f"{path}.{'legal_name' if subject.is_business else 'family_name'}", "Name"))
        for index, alternate in enumerate(subject.alternate_names):
            self.add(element, "altName", self.fit(alternate, 140, f"{path}.alternate_names.{index}", "Alternate name"))
        if subject.addresses:
            self.address(element, "mainAddress", subject.addresses[0], f"{path}.addresses.0")
        for index, phone in enumerate(subject.phones):
            self.add(element, "phone", self.fit(phone.number, 20, f"{path}.phones.{index}.number", "Phone number"))
        for index, email in enumerate(subject.emails):
            self.email(element, email, f"{path}.emails.{index}")

    def registrations(self, element: etree._Element, subject: Subject) -> None:
        tax_id = subject.tax_id
        digits = "".join(filter(str.isdigit, tax_id.number)) if tax_id else ""
        self.add(element, "abn", digits if tax_id and tax_id.type == TaxIdType.ABN and len(digits) == 11 else None)
        self.add(element, "acn", digits if tax_id and tax_id.type == TaxIdType.ACN and len(digits) == 9 else None)

    def identifications(self, element: etree._Element, subject: Subject, path: str, tag: str = "identification") -> None:
        for index, document in enumerate(subject.id_documents):
            here = f"{path}.id_documents.{index}"
            if document.type not in ID_TYPE:
                self.changes.note(here, "AUSTRAC has no identification type for this document; it is left out of the XML.")
                continue
            item = self.node(element, tag, "id")
            self.add(item, "type", ID_TYPE[document.type])
            self.add(item, "number", self.fit(document.number, 20, f"{here}.number", "ID number"))
            self.add(item, "issuer", self.fit(document.issuer, 100, f"{here}.issuer", "Issuer"))
            self.add(item, "country", self.country(document.country))


def designated_service(form: Form) -> str:
    return DESIGNATED_SERVICE[form.filer.institution_type or InstitutionType.VIRTUAL_ASSET_SERVICE_PROVIDER]


def re_number(form: Form) -> str:
    number = form.filer.reporting_entity_number or ""
    return number if _DIGITS.match(number) else "0"


def file_name(prefix: str, day: date, sequence: int = 1) -> str:
    """AUSTRAC file naming: <type><YYYYMMDD><NN>.xml (SMRFileName pattern)."""
    return f"{prefix}{day.strftime('%Y%m%d')}{sequence:02d}.xml"
