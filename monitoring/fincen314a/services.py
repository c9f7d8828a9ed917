"""314(a) writes: uploading a subject list, matching it against the entities (in a worker, on
commit, with a beat sweep for a lost message), and reviewing the matches.

Who may do what (docs/decisions.md): a 314(a) request is confidential (31 CFR 1010.520(b)(3)(iv)(B):
the institution may not disclose that FinCEN asked), so reading lists and matches needs an L2
investigator, reviewing a match an L2 investigator, and uploading a list the L3 officer who receives
it from FinCEN's secure system.
"""

import datetime as dt
import hashlib
import re
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from common.audit import audit_record
from common.crypto import decrypt, tax_id_fields
from common.errors import Conflict, NotFound, PayloadTooLarge, ValidationFailed
from common.outbox import enqueue_on_commit
from common.permissions import require_role
from common.principal import Principal
from monitoring.fincen314a import parsing
from monitoring.fincen314a.matching import EntityIndex, Found, match, party
from monitoring.models import Fincen314aFile, Fincen314aMatch, Fincen314aSubject
from monitoring.models.fincen314a import FileStatus, ReviewStatus, SubjectType
from onboarding.choices import EntityType
from onboarding.models import Entity
from organizations.choices import Role
from webhooks.services import events_emit

UPLOAD_ROLE = Role.L3_OFFICER
READ_ROLE = Role.L2_INVESTIGATOR
REVIEW_ROLE = Role.L2_INVESTIGATOR
RESPONSE_DAYS = 14  # 31 CFR 1010.520(b)(3)(ii): report matches within 14 days of receiving the request
FILE_SUFFIXES = (".csv", ".txt")
NOTES_MAX_CHARS = 5000  # a review's notes, in the API and the console
PERIOD_IN_NAME = re.compile(r"(?<!\d)(\d{4})-?(\d{2})-?(\d{2})(?!\d)")
# From bench/fincen314a.py (docs/information-sharing.md): with blocking, the time goes to loading the
# entities and to the subjects (their matches and events), not to subject × entity pairs.
START_SECONDS, SECONDS_PER_ENTITY, SECONDS_PER_SUBJECT = 5, 0.0003, 0.003
NOTES_REQUIRED = "Say why: what you compared and what it showed. The review is the record behind the report to FinCEN."


def _tasks():
    from monitoring import tasks  # the tasks call these services: imported late to break the cycle

    return tasks


# --- Upload ------------------------------------------------------------------------------------

def _checked_filename(filename: str) -> str:
    name = (filename or "").replace("\\", "/").rsplit("/", 1)[-1].strip()[:255]
    if not name.lower().endswith(FILE_SUFFIXES):
        raise ValidationFailed.for_field("file", "Upload the 314(a) list as a .csv file (CSV text with a header row).")
    return name


FIRST_314A_REQUESTS = dt.date(2002, 9, 26)
"""31 CFR 1010.520 (the USA PATRIOT Act's section 314(a) rule) took effect then: no list is older.
A period before it (0001-01-01, a year typed short) would date the search and its 14-day response
deadline centuries back."""


def _period(given: dt.date | None, filename: str, today: dt.date) -> dt.date:
    """The form's `period`; else a date in the file name (314a_2026-11-03.csv, 20261103.csv); else the upload date."""
    period = given
    if period is None:
        found = PERIOD_IN_NAME.search(filename)
        try:
            period = dt.date(*(int(part) for part in found.groups())) if found else today
        except ValueError:
            period = today
    if period > today:
        raise ValidationFailed.for_field("period", f"{period} is in the future: the period is the date of the list.")
    if period < FIRST_314A_REQUESTS:
        raise ValidationFailed.for_field("period", f"{period} is before 314(a) requests began ({FIRST_314A_REQUESTS}): "
                                                   "the period is the date of the list.")
    return period


def estimated_completion(now, subjects: int, entities: int):
    return now + timedelta(seconds=START_SECONDS + entities * SECONDS_PER_ENTITY + subjects * SECONDS_PER_SUBJECT)


@transaction.atomic
def file_upload(*, principal: Principal, filename: str, content: bytes, period: dt.date | None = None) -> Fincen314aFile:
    """Check the list, store it with its subjects in `processing`, and hand matching to a worker on commit."""
    require_role(principal, UPLOAD_ROLE)
    limit = settings.FINCEN_314A_MAX_BYTES
    if len(content) > limit:
        raise PayloadTooLarge(f"A 314(a) file may be at most {limit} bytes; this one has {len(content)}. Split the list.")
    name = _checked_filename(filename)
    now = timezone.now()
    rows = parsing.parse(content, max_subjects=settings.FINCEN_314A_MAX_SUBJECTS, today=now.date())
    period = _period(period, name, now.date())
    digest = hashlib.sha256(content).hexdigest()
    scope = {"organization": principal.organization, "mode": principal.mode}
    _refuse_duplicate(scope, digest)
    entities = Entity.objects.filter(**scope).count()
    try:
        with transaction.atomic():
            file = Fincen314aFile.objects.create(
                **scope, filename=name, period=period, subjects_count=len(rows), content_sha256=digest,
                estimated_completion=estimated_completion(now, len(rows), entities), enqueued_at=now,
                response_deadline=now + timedelta(days=RESPONSE_DAYS), uploaded_by=principal.user, uploaded_by_label=principal.actor_label)
    except IntegrityError:
        _refuse_duplicate(scope, digest)
        raise
    # Receipt is the row's own creation time (uploaded_at): the deadline and estimate count from it.
    file.response_deadline = file.created_at + timedelta(days=RESPONSE_DAYS)
    file.estimated_completion = estimated_completion(file.created_at, len(rows), entities)
    file.save(update_fields=["response_deadline", "estimated_completion"])
    Fincen314aSubject.objects.bulk_create([_subject(file, row) for row in rows], batch_size=1000)
    audit_record(actor=principal, action="fincen_314a.file_uploaded", object_type="fincen_314a_file", object_id=file.pk, **scope,
                 after={"filename": name, "period": period, "subjects_count": len(rows), "sha256": digest})
    enqueue_on_commit(_tasks().match_314a_file, str(file.pk))
    return file


def _refuse_duplicate(scope: dict, digest: str) -> None:
    earlier = Fincen314aFile.objects.filter(**scope, content_sha256=digest).first()
    if earlier is not None:
        raise Conflict(f"This list was uploaded already, as {earlier.filename} ({earlier.pk}) on {earlier.created_at:%Y-%m-%d}.")


def _subject(file: Fincen314aFile, row: parsing.SubjectRow) -> Fincen314aSubject:
    ssn, ein = tax_id_fields(row.ssn_itin), tax_id_fields(row.ein)
    return Fincen314aSubject(
        file=file, row_number=row.row_number, tracking_number=row.tracking_number or f"{file.period:%Y%m%d}-{row.row_number:05d}",
        name=row.name, alt_names=row.alt_names, subject_type=row.subject_type, date_of_birth=row.date_of_birth, address=row.address,
        city=row.city, state=row.state, zip=row.zip, phone=row.phone, email=row.email,
        ssn_itin_encrypted=ssn["tax_id_encrypted"], ssn_itin_last4=ssn["tax_id_last4"],
        ein_encrypted=ein["tax_id_encrypted"], ein_last4=ein["tax_id_last4"],
        # The same keyed hash as an entity's tax id, of the digits alone (matching.id_hash).
        ssn_itin_hash=ssn["tax_id_hash"], ein_hash=ein["tax_id_hash"],
    )


# --- Matching ----------------------------------------------------------------------------------

def _subject_party(subject: Fincen314aSubject):
    ids = {field: value for field, value in (("ssn_itin", subject.ssn_itin_hash), ("ein", subject.ein_hash)) if value}
    ein = decrypt(subject.ein_encrypted) if subject.ein_encrypted else ""
    return party(id=subject.pk, names=[subject.name, *subject.alt_names], individual=subject.subject_type != SubjectType.BUSINESS,
                 id_hashes={value: field for field, value in ids.items()}, id_numbers={"ein": ein or ""} if ein else None,
                 dob=subject.date_of_birth, street=subject.address, city=subject.city, state=subject.state, zip=subject.zip,
                 email=subject.email, phone=subject.phone)


ENTITY_COLUMNS = ("pk", "legal_name", "entity_type", "date_of_birth", "address", "tax_id_hash", "registration_number", "email", "phone")


def _entity_parties(organization_id, mode: str) -> list:
    rows = Entity.objects.filter(organization_id=organization_id, mode=mode).order_by("pk").values_list(*ENTITY_COLUMNS)
    parties = []
    for pk, name, kind, dob, address, tax_hash, registration, email, phone in rows.iterator(chunk_size=5000):
        address = address if isinstance(address, dict) else {}
        parties.append(party(
            id=pk, names=[name], individual=kind == EntityType.INDIVIDUAL, id_hashes={tax_hash: "tax_id"} if tax_hash else None,
            registration=registration, dob=dob, street=str(address.get("line1", "")), city=str(address.get("city", "")),
            state=str(address.get("state", "")), zip=str(address.get("postal_code", "")), email=email, phone=phone))
    return parties


def file_match(*, file_id) -> Fincen314aFile | None:
    """Match a `processing` file and mark it `completed`, with its matches and their events, in one
    transaction. Idempotent: a completed file (a second message, the sweep) is left as it is."""
    with transaction.atomic():
        file = Fincen314aFile.objects.select_for_update(of=("self",)).filter(pk=file_id).select_related("organization").first()
        if file is None or file.status != FileStatus.PROCESSING:
            return file
        subjects = {subject.pk: subject for subject in Fincen314aSubject.objects.filter(file=file)}
        entities = _entity_parties(file.organization_id, file.mode)
        found = match([_subject_party(subject) for subject in subjects.values()], EntityIndex(entities))
        matches = Fincen314aMatch.objects.bulk_create([_match_row(file, result) for result in found], batch_size=1000)
        _announce(file, matches, subjects)
        now = timezone.now()
        file.status, file.completed_at, file.entities_searched = FileStatus.COMPLETED, now, len(entities)
        file.save(update_fields=["status", "completed_at", "entities_searched", "updated_at"])
        audit_record(actor=None, action="fincen_314a.file_matched", object_type="fincen_314a_file", object_id=file.pk,
                     organization=file.organization, mode=file.mode, before={"status": FileStatus.PROCESSING},
                     after={"status": FileStatus.COMPLETED, "matches_count": len(matches), "entities_searched": len(entities)})
        return file


def _match_row(file: Fincen314aFile, result: Found) -> Fincen314aMatch:
    return Fincen314aMatch(organization_id=file.organization_id, mode=file.mode, file=file, subject_id=result.subject_id,
                           entity_id=result.entity_id, score=result.score, match_fields=list(result.fields))


def _announce(file: Fincen314aFile, matches: list[Fincen314aMatch], subjects: dict) -> None:
    """A `fincen_314a.match_found` event per match (docs/webhooks.md), in the matching transaction."""
    events_emit(organization=file.organization, mode=file.mode, events=[("fincen_314a.match_found", {
        "match_id": str(found.pk), "file_id": str(file.pk), "entity_id": str(found.entity_id),
        "subject_name": subjects[found.subject_id].name, "match_score": found.score, "match_fields": found.match_fields,
        "response_deadline": file.response_deadline,
    }) for found in matches])


def files_to_resend(*, older_than) -> list[str]:
    """Files still `processing` whose matching was handed to a worker before `older_than` (a lost
    message, a killed worker): handed again, and their time noted so each sweep sends them once."""
    ids = list(Fincen314aFile.objects.filter(status=FileStatus.PROCESSING, enqueued_at__lt=older_than)
               .order_by("enqueued_at").values_list("pk", flat=True)[:100])
    Fincen314aFile.objects.filter(pk__in=ids, status=FileStatus.PROCESSING).update(enqueued_at=timezone.now())
    return [str(pk) for pk in ids]


# --- Review ------------------------------------------------------------------------------------

@transaction.atomic
def match_review(*, principal: Principal, match_id, result: str, notes: str) -> Fincen314aMatch:
    """pending → positive (the subject is the customer: report it to FinCEN) or negative, once."""
    require_role(principal, REVIEW_ROLE)
    if result not in (ReviewStatus.POSITIVE, ReviewStatus.NEGATIVE):
        raise ValidationFailed.for_field("result", "positive or negative.")
    if not (notes or "").strip():
        raise ValidationFailed.for_field("notes", NOTES_REQUIRED)
    found = (Fincen314aMatch.objects.select_for_update(no_key=True)
             .filter(pk=match_id, organization=principal.organization, mode=principal.mode).first())
    if found is None:
        raise NotFound("No 314(a) match of yours has this id.")
    ReviewStatus.require_pending(found.review_status)
    now = timezone.now()
    changed = Fincen314aMatch.objects.filter(pk=found.pk, review_status=ReviewStatus.PENDING).update(
        review_status=result, reviewed_at=now, reviewed_by=principal.user, reviewer=principal.actor_label, notes=notes, updated_at=now)
    if not changed:  # SQLite takes no row lock: the conditional update is the guard there
        raise Conflict("The match has been reviewed already.")
    audit_record(actor=principal, action="fincen_314a.match_reviewed", object_type="fincen_314a_match", object_id=found.pk,
                 organization=principal.organization, mode=principal.mode, before={"review_status": ReviewStatus.PENDING},
                 after={"review_status": result, "notes": notes, "file_id": str(found.file_id), "entity_id": str(found.entity_id)})
    found.refresh_from_db()
    return found
