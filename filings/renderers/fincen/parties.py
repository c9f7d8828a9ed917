"""Party builders shared by the FinCEN SAR and CTR (FinCEN SAR / CTR XML user guides, section 4,
"Party" elements).

The two schemas share their sub-elements (PartyName, Address, PhoneNumber, PartyIdentification,
...) but not the Party-level fields; `SAR_PARTY_FIELDS` and `CTR_PARTY_FIELDS` give each schema's
order. Every free-text value goes through `Context.fit`: one line, Latin letters (FinCEN's
database and its users work in Latin script; a name that could not be transliterated is sent as
written and reported), the schema's length, and every change reported with its form path.
"""

from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from filings.documents.model import Address, Form, Location, Subject
from filings.documents.vocabulary import Gender, IdDocumentType, InstitutionType, TaxIdType
from filings.renderers.fincen import codes
from filings.renderers.fincen.batch import Batch
from filings.renderers.formatting import digits, subdivision_code, yyyymmdd
from filings.renderers.text import Changes, fit

SAR_PARTY_FIELDS = (
    "AdmissionConfessionNoIndicator", "AdmissionConfessionYesIndicator", "AllCriticalSubjectInformationUnavailableIndicator",
    "BirthDateUnknownIndicator", "BothPurchaserSenderPayeeReceiveIndicator", "ContactDateText", "FemaleGenderIndicator",
    "IndividualBirthDateText", "LossToFinancialAmountText", "MaleGenderIndicator", "NoBranchActivityInvolvedIndicator",
    "NoKnownAccountInvolvedIndicator", "NonUSFinancialInstitutionIndicator", "PartyAsEntityOrganizationIndicator",
    "PayeeReceiverIndicator", "PayLocationIndicator", "PrimaryRegulatorTypeCode", "PurchaserSenderIndicator",
    "SellingLocationIndicator", "SellingPayingLocationIndicator", "UnknownGenderIndicator",
)
CTR_PARTY_FIELDS = (
    "BirthDateUnknownIndicator", "EFilingCoverageBeginningDateText", "EFilingCoverageEndDateText", "FemaleGenderIndicator",
    "IndividualBirthDateText", "IndividualEntityCashInAmountText", "IndividualEntityCashOutAmountText", "MaleGenderIndicator",
    "MultipleTransactionsPersonsIndividualsIndicator", "PartyAsEntityOrganizationIndicator", "PrimaryRegulatorTypeCode",
    "UnknownGenderIndicator",
)
SAR, CTR = "SAR", "CTR"
# Countries whose state must be a code (FinCEN: "U.S., Canada and Mexico" state/province codes).
_STATE_CODE_COUNTRIES = frozenset(("US", "CA", "MX"))


@dataclass
class Context:
    batch: Batch
    form: Form
    changes: Changes
    dialect: str  # SAR or CTR

    def fit(self, value: str | None, limit: int, path: str, label: str = "") -> str | None:
        return fit(value, limit, path=path, changes=self.changes, latin=True, label=label)

    # --- the party element ------------------------------------------------------------------

    def party(self, parent: etree._Element, type_code: str, **fields: str | None) -> etree._Element:
        """A Party with its type code and its party-level fields in the schema's order."""
        element = self.batch.node(parent, "Party")
        self.batch.add(element, "ActivityPartyTypeCode", type_code)
        for tag in SAR_PARTY_FIELDS if self.dialect == SAR else CTR_PARTY_FIELDS:
            self.batch.add(element, tag, fields.get(tag))
        return element

    def name(self, party: etree._Element, *, code: str = "L", full: str | None = None, last: str | None = None,
             first: str | None = None, middle: str | None = None, suffix: str | None = None,
             first_unknown: bool = False, last_unknown: bool = False) -> None:
        element = self.batch.node(party, "PartyName")
        self.batch.flag(element, "EntityLastNameUnknownIndicator", last_unknown)
        self.batch.flag(element, "FirstNameUnknownIndicator", first_unknown)
        self.batch.add(element, "PartyNameTypeCode", code)
        self.batch.add(element, "RawEntityIndividualLastName", last)
        self.batch.add(element, "RawIndividualFirstName", first)
        self.batch.add(element, "RawIndividualMiddleName", middle)
        self.batch.add(element, "RawIndividualNameSuffixText", suffix)
        self.batch.add(element, "RawPartyFullName", full)

    def address(self, party: etree._Element, address: Address | Location | None, path: str) -> None:
        """An Address; with every "unknown" indicator when there is none (SAR subjects)."""
        element = self.batch.node(party, "Address")
        if address is None:
            for tag in ("CityUnknownIndicator", "CountryCodeUnknownIndicator"):
                self.batch.flag(element, tag)
            for tag in ("StateCodeUnknownIndicator", "StreetAddressUnknownIndicator", "ZIPCodeUnknownIndicator"):
                self.batch.flag(element, tag)
            return
        country = address.country
        self.batch.flag(element, "CityUnknownIndicator", not address.city)
        self.batch.flag(element, "CountryCodeUnknownIndicator", not country)
        self.batch.add(element, "RawCityText", self.fit(address.city, 50, f"{path}.city", "City"))
        self.batch.add(element, "RawCountryCodeText", country)
        self.batch.add(element, "RawStateCodeText", self._state(address, path))
        self.batch.add(element, "RawStreetAddress1Text", self.fit(address.line1, 100, f"{path}.line1", "Street address"))
        self.batch.add(element, "RawZIPCode", self._postal_code(address, path))
        self.batch.flag(element, "StateCodeUnknownIndicator", country in _STATE_CODE_COUNTRIES and not address.state)
        self.batch.flag(element, "StreetAddressUnknownIndicator", not address.line1)
        self.batch.flag(element, "ZIPCodeUnknownIndicator", not address.postal_code)

    def _state(self, address: Address | Location, path: str) -> str | None:
        if not address.state:
            return None
        code = subdivision_code(address.country, address.state)
        if code and len(code) <= 3:
            return code
        if address.country in _STATE_CODE_COUNTRIES:
            self.changes.note(f"{path}.state", f"State {address.state!r} is not a {address.country} state code; left out.")
        return None  # FinCEN records a state only for the U.S., Canada and Mexico

    def _postal_code(self, address: Address | Location, path: str) -> str | None:
        if not address.postal_code:
            return None
        value = digits(address.postal_code) if address.country == "US" else address.postal_code.replace(" ", "")
        return self.fit(value, 9, f"{path}.postal_code", "Postal code")

    def phone(self, party: etree._Element, number: str | None, path: str, *, extension: str | None = None,
              type_code: str | None = None) -> None:
        number_digits = digits(number)
        if not number_digits:
            return
        if len(number_digits) > 16:
            self.changes.note(path, f"Phone number {number!r} has more than FinCEN's 16 digits; cut to 16.")
        element = self.batch.node(party, "PhoneNumber")
        self.batch.add(element, "PhoneNumberExtensionText", digits(extension)[:6] if digits(extension) else None)
        self.batch.add(element, "PhoneNumberText", number_digits[:16])
        if self.dialect == SAR:
            self.batch.add(element, "PhoneNumberTypeCode", type_code)

    def identification(self, party: etree._Element, *, type_code: str | None = None, number: str | None = None,
                       country: str | None = None, state: str | None = None, other: str | None = None,
                       tin_unknown: bool = False, id_unknown: bool = False) -> None:
        element = self.batch.node(party, "PartyIdentification")
        self.batch.flag(element, "IdentificationPresentUnknownIndicator", id_unknown)
        self.batch.add(element, "OtherIssuerCountryText", country)
        self.batch.add(element, "OtherIssuerStateText", state)
        self.batch.add(element, "OtherPartyIdentificationTypeText", other)
        self.batch.add(element, "PartyIdentificationNumberText", number)
        self.batch.add(element, "PartyIdentificationTypeCode", type_code)
        self.batch.flag(element, "TINUnknownIndicator", tin_unknown)

    def organization(self, party: etree._Element) -> None:
        filer = self.form.filer
        kind = filer.institution_type or InstitutionType.VIRTUAL_ASSET_SERVICE_PROVIDER
        type_id = codes.ORGANIZATION_TYPE[kind]
        if self.dialect == CTR and type_id not in codes.CTR_ORGANIZATION_TYPES:
            type_id = 999
        element = self.batch.node(party, "OrganizationClassificationTypeSubtype")
        self.batch.add(element, "OrganizationTypeID", type_id)
        if type_id == 999:
            other = filer.institution_type_other or kind.value.replace("_", " ")
            self.batch.add(element, "OtherOrganizationTypeText", self.fit(other, 50, "filer.institution_type_other", "Institution type"))

    def occupation(self, party: etree._Element, text: str | None, path: str) -> None:
        value = self.fit(text, 50, path, "Occupation")
        if value:
            self.batch.add(self.batch.node(party, "PartyOccupationBusiness"), "OccupationBusinessText", value)

    def email(self, party: etree._Element, address: str, path: str) -> None:
        value = self.fit(address, 517, path, "E-mail address")
        if value:
            element = self.batch.node(party, "ElectronicAddress")
            self.batch.add(element, "ElectronicAddressText", value)
            if self.dialect == SAR:
                self.batch.add(element, "ElectronicAddressTypeCode", "E")

    # --- the institution's parties ----------------------------------------------------------

    def regulator_code(self) -> str:
        """The filer's PrimaryRegulatorTypeCode; "not applicable"/"unknown" when it has no code
        (the business checks report that as an error)."""
        code = codes.REGULATORS.get((self.form.filer.primary_regulator or "").strip().upper())
        allowed = codes.SAR_REGULATORS if self.dialect == SAR else codes.CTR_REGULATORS
        if code in allowed:
            return code
        return "99" if self.dialect == SAR else "14"

    def filer_tin(self, party: etree._Element, *, type_code: str | None = None) -> None:
        filer = self.form.filer
        kind = type_code or codes.FILER_TIN_TYPE.get(filer.tin_type or "EIN", codes.ID_EIN)
        country = filer.address.country if kind == codes.ID_FOREIGN and filer.address else None
        self.identification(party, type_code=kind, number=digits(filer.tin) if kind != codes.ID_FOREIGN else filer.tin,
                            country=country, tin_unknown=not filer.tin)

    def transmitter(self, activity: etree._Element) -> None:
        """Party 35: the filer transmits its own batch (TIN type 4 and its TCC, type 28)."""
        filer = self.form.filer
        party = self.party(activity, codes.TRANSMITTER)
        self.name(party, full=self.fit(filer.legal_name, 150, "filer.legal_name", "Legal name"))
        self.address(party, filer.address, "filer.address")
        self.phone(party, filer.contact_phone, "filer.contact_phone")
        self.filer_tin(party, type_code=codes.ID_TIN)
        tcc = filer.transmitter_control_code
        self.identification(party, type_code=codes.ID_TCC, number=self.fit(tcc, 8, "filer.transmitter_control_code", "TCC"))

    def transmitter_contact(self, activity: etree._Element) -> None:
        prepared = self.form.prepared_by
        contact = (prepared.name if prepared else None) or self.form.filer.contact_office
        path = "prepared_by.name" if prepared and prepared.name else "filer.contact_office"
        party = self.party(activity, codes.TRANSMITTER_CONTACT)
        self.name(party, full=self.fit(contact, 150, path, "Contact name"))

    def filing_institution(self, activity: etree._Element) -> None:
        """Party 30: the filing (SAR) / reporting (CTR) financial institution."""
        filer = self.form.filer
        party = self.party(activity, codes.FILING_INSTITUTION, PrimaryRegulatorTypeCode=self.regulator_code())
        self.name(party, full=self.fit(filer.legal_name, 150, "filer.legal_name", "Legal name"))
        if filer.dba_name:
            self.name(party, code="DBA", full=self.fit(filer.dba_name, 150, "filer.dba_name", "DBA name"))
        self.address(party, filer.address, "filer.address")
        self.filer_tin(party)
        if self.dialect == SAR and self.form.report_reference:
            # Item 94, "filing institution internal control/file number".
            reference = self.fit(self.form.report_reference, 25, "report_reference", "Internal control number")
            self.identification(party, type_code=codes.ID_INTERNAL_CONTROL, number=reference)
        self.organization(party)

    def contact_office(self, activity: etree._Element) -> None:
        """Party 8: the office to contact for assistance, with its phone."""
        filer = self.form.filer
        party = self.party(activity, codes.CONTACT_OFFICE)
        self.name(party, full=self.fit(filer.contact_office or filer.legal_name, 150, "filer.contact_office", "Contact office"))
        self.phone(party, filer.contact_phone, "filer.contact_phone")

    def activity_institution(self, activity: etree._Element, **fields: str | None) -> etree._Element:
        """Party 34: where the activity (SAR) / transaction (CTR) took place — the filer itself."""
        filer = self.form.filer
        party = self.party(activity, codes.ACTIVITY_INSTITUTION, PrimaryRegulatorTypeCode=self.regulator_code(), **fields)
        self.name(party, full=self.fit(filer.legal_name, 150, "filer.legal_name", "Legal name"))
        self.address(party, filer.address, "filer.address")
        self.filer_tin(party)
        self.organization(party)
        return party

    # --- people and businesses --------------------------------------------------------------

    def person_fields(self, subject: Subject) -> dict[str, str | None]:
        """Birth date and gender indicators of an individual; the entity indicator of a business."""
        if subject.is_business:
            return {"PartyAsEntityOrganizationIndicator": "Y"}
        gender = {Gender.MALE: "MaleGenderIndicator", Gender.FEMALE: "FemaleGenderIndicator"}.get(subject.gender)
        fields = {gender or "UnknownGenderIndicator": "Y"}
        if subject.birth_date:
            fields["IndividualBirthDateText"] = yyyymmdd(subject.birth_date)
        else:
            fields["BirthDateUnknownIndicator"] = "Y"
        return fields

    def subject_names(self, party: etree._Element, subject: Subject, path: str, *, alternates: int = 99) -> None:
        """The legal name (surname first for FinCEN), then DBA and alternate names as AKA/DBA."""
        if subject.is_business:
            last = self.fit(subject.legal_name or subject.dba_name, 150, f"{path}.legal_name", "Legal name")
            self.name(party, last=last, last_unknown=not last)
            extra = [("DBA", subject.dba_name, f"{path}.dba_name")] if subject.legal_name and subject.dba_name else []
        else:
            last = self.fit(subject.family_name or subject.given_name, 150, f"{path}.family_name", "Family name")
            first = self.fit(subject.given_name, 35, f"{path}.given_name", "Given name") if subject.family_name else None
            middle = self.fit(subject.middle_name, 35, f"{path}.middle_name", "Middle name")
            suffix = self.fit(subject.name_suffix, 35, f"{path}.name_suffix", "Name suffix")
            self.name(party, last=last, first=first, middle=middle, suffix=suffix, last_unknown=not last, first_unknown=not first)
            extra = []
        extra += [("AKA", name, f"{path}.alternate_names.{index}") for index, name in enumerate(subject.alternate_names)]
        for code, name, name_path in extra[:alternates]:
            self.name(party, code=code, full=self.fit(name, 150, name_path, "Alternate name"))

    def subject_tin(self, party: etree._Element, subject: Subject, path: str) -> None:
        tax_id = subject.tax_id
        if tax_id is None or tax_id.type in (TaxIdType.TFN, TaxIdType.SIN):
            self.identification(party, tin_unknown=True)
            return
        type_code = codes.SUBJECT_TIN_TYPE.get(tax_id.type, codes.ID_FOREIGN)
        number = digits(tax_id.number) if type_code != codes.ID_FOREIGN else self.fit(tax_id.number, 25, f"{path}.tax_id.number", "TIN")
        country = (tax_id.country or "US") if type_code == codes.ID_FOREIGN else None
        self.identification(party, type_code=type_code, number=number, country=country)

    def subject_documents(self, party: etree._Element, subject: Subject, path: str, *, limit: int = 99) -> None:
        if not subject.id_documents:
            self.identification(party, id_unknown=True)
            return
        for index, document in enumerate(subject.id_documents[:limit]):
            here = f"{path}.id_documents.{index}"
            type_code = codes.ID_DOCUMENT_TYPE[document.type]
            other = None
            if type_code == codes.ID_OTHER:
                other = self.fit(document.description or document.type.value.replace("_", " "), 50, f"{here}.description", "ID type")
            state = subdivision_code(document.country, document.state) if document.type == IdDocumentType.DRIVERS_LICENSE else None
            self.identification(party, type_code=type_code, number=self.fit(document.number, 25, f"{here}.number", "ID number"),
                                country=document.country, state=state if state and len(state) <= 3 else None, other=other)
