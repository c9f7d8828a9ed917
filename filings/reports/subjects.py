"""The entity and its beneficial owners → the form's `subjects` (docs/filings.md).

Tax ids are decrypted for the report only, and only where the regulator takes them: FinCEN takes
SSNs and EINs; FINTRAC must not receive a Social Insurance Number and AUSTRAC must not receive a
tax file number (Taxation Administration Act 1953), so individuals' tax ids are left out for CA
and AU, and businesses report their BN / ABN. Elsewhere a tax id is reported as foreign.
"""

from __future__ import annotations

from common.crypto import decrypt
from filings.reports.activity import chain_name
from onboarding.choices import EntityType

BUSINESS_TAX_ID = {"US": "EIN", "CA": "BN", "AU": "ABN"}


def split_name(full_name: str) -> tuple[str | None, str]:
    """A person's one-string name → (given names, family name): the last word is the family name.
    The officer corrects names whose order differs (the SAR narrative repeats them as written)."""
    words = (full_name or "").split()
    if len(words) <= 1:
        return None, full_name.strip()[:150]
    return " ".join(words[:-1])[:150], words[-1][:150]


def _tax_id(encrypted: str, *, business: bool, jurisdiction: str, country: str | None) -> dict | None:
    number = decrypt(encrypted) if encrypted else None
    if not number:
        return None
    if business:
        kind = BUSINESS_TAX_ID.get(jurisdiction, "foreign")
    elif jurisdiction in ("CA", "AU"):
        return None
    else:
        kind = "SSN" if jurisdiction == "US" else "foreign"
    tax_id = {"number": number[:40], "type": kind}
    if kind == "foreign" and country:
        tax_id["country"] = country
    return tax_id


def _address(address: dict) -> dict | None:
    if not address or not address.get("line1"):
        return None
    line1 = ", ".join(part for part in (address.get("line1"), address.get("line2")) if part)[:200]
    return {key: value for key, value in {"line1": line1, "city": address.get("city"), "state": address.get("state"),
                                          "postal_code": address.get("postal_code"), "country": address.get("country")}.items() if value}


def entity_subject(entity, *, jurisdiction: str, subject_id: str = "S1", role: str = "subject") -> dict:
    business = entity.entity_type == EntityType.BUSINESS
    subject: dict = {"id": subject_id, "type": "business" if business else "individual", "role": role, "is_customer": True}
    if business:
        subject["legal_name"] = entity.legal_name
    else:
        given, family = split_name(entity.legal_name)
        subject.update({"family_name": family, **({"given_name": given} if given else {})})
        if entity.date_of_birth:
            subject["birth_date"] = entity.date_of_birth.isoformat()
    if entity.industry:
        subject["occupation"] = entity.industry[:200]
    if address := _address(entity.address):
        subject["addresses"] = [address]
    if entity.phone:
        subject["phones"] = [{"number": entity.phone[:30], "type": "work" if business else "mobile"}]
    if entity.email:
        subject["emails"] = [entity.email]
    if tax_id := _tax_id(entity.tax_id_encrypted, business=business, jurisdiction=jurisdiction, country=entity.jurisdiction):
        subject["tax_id"] = tax_id
    wallets = [{"address": w.address, **({"chain": chain_name(w.chain_id), "chain_id": w.chain_id} if w.chain_id else {})}
               for w in entity.wallets.all()]
    if wallets:
        subject["wallets"] = wallets[:1000]
    return subject


def owner_subject(owner, *, jurisdiction: str, subject_id: str) -> dict:
    """A beneficial owner: a person connected to the subject (role "other": AUSTRAC's otherPerson)."""
    given, family = split_name(owner.name)
    subject: dict = {"id": subject_id, "type": "individual", "role": "other", "family_name": family}
    if given:
        subject["given_name"] = given
    if owner.date_of_birth:
        subject["birth_date"] = owner.date_of_birth.isoformat()
    if owner.nationality:
        subject["nationality"] = owner.nationality
    if tax_id := _tax_id(owner.tax_id_encrypted, business=False, jurisdiction=jurisdiction, country=owner.nationality or None):
        subject["tax_id"] = tax_id
    return subject


def subjects_for(entity, *, jurisdiction: str) -> list[dict]:
    """S1 the entity, then S2… its beneficial owners."""
    subjects = [entity_subject(entity, jurisdiction=jurisdiction)]
    subjects += [owner_subject(owner, jurisdiction=jurisdiction, subject_id=f"S{index + 2}")
                 for index, owner in enumerate(entity.ubos.all())]
    return subjects
