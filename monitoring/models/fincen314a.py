"""FinCEN 314(a) (31 CFR 1010.520): a list of subjects FinCEN asks every institution to search for,
the subjects of one uploaded list, and the matches found against the organization's entities."""

from django.conf import settings
from django.db import models

from common.crypto import masked
from common.errors import Conflict
from common.models import BaseModel, TenantModel


class FileStatus(models.TextChoices):
    """processing (matching runs in a worker) → completed."""

    PROCESSING = "processing"
    COMPLETED = "completed"


class ReviewStatus(models.TextChoices):
    """pending → positive | negative, once (a second review is a 409)."""

    PENDING = "pending"
    POSITIVE = "positive"
    NEGATIVE = "negative"

    @classmethod
    def require_pending(cls, current: str) -> None:
        if current != cls.PENDING:
            raise Conflict(f"The match has been reviewed already: {current}.")


class SubjectType(models.TextChoices):
    INDIVIDUAL = "Individual"
    BUSINESS = "Business"


class Fincen314aFile(TenantModel):
    filename = models.CharField(max_length=255)
    period = models.DateField(help_text="The date of the 314(a) list (the cycle it belongs to).")
    subjects_count = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=FileStatus.choices, default=FileStatus.PROCESSING)
    content_sha256 = models.CharField(max_length=64, help_text="Of the uploaded bytes: the same list is not uploaded twice.")
    estimated_completion = models.DateTimeField()
    completed_at = models.DateTimeField(null=True, blank=True)
    response_deadline = models.DateTimeField(help_text="14 calendar days after receipt (31 CFR 1010.520(b)(3)(ii)).")
    entities_searched = models.PositiveIntegerField(null=True, blank=True)
    enqueued_at = models.DateTimeField(help_text="When matching was last handed to a worker (the sweep hands it again).")
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    uploaded_by_label = models.CharField(max_length=255, blank=True, default="")

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "314(a) file"
        constraints = [
            models.UniqueConstraint(fields=["organization", "mode", "content_sha256"], name="fincen314a_file_unique_content"),
        ]
        indexes = [models.Index(fields=["status", "enqueued_at"])]

    def __str__(self):
        return f"{self.filename} ({self.period:%Y-%m-%d})"

    @property
    def uploaded_at(self):
        return self.created_at


class Fincen314aSubject(BaseModel):
    """One row of a list. Identification numbers are kept as tax ids are (onboarding): encrypted,
    the last four shown, matched through a keyed hash."""

    file = models.ForeignKey(Fincen314aFile, on_delete=models.CASCADE, related_name="subjects")
    row_number = models.PositiveIntegerField(help_text="The line of the file (the header is line 1).")
    tracking_number = models.CharField(max_length=40)
    name = models.CharField(max_length=300)
    alt_names = models.JSONField(default=list, blank=True)
    subject_type = models.CharField(max_length=10, choices=SubjectType.choices, blank=True, default="")
    date_of_birth = models.DateField(null=True, blank=True)
    address = models.CharField(max_length=300, blank=True, default="")
    city = models.CharField(max_length=100, blank=True, default="")
    state = models.CharField(max_length=2, blank=True, default="")
    zip = models.CharField(max_length=10, blank=True, default="")
    phone = models.CharField(max_length=40, blank=True, default="")
    email = models.CharField(max_length=254, blank=True, default="")
    ssn_itin_encrypted = models.TextField(blank=True, default="")
    ssn_itin_last4 = models.CharField(max_length=4, blank=True, default="")
    ssn_itin_hash = models.CharField(max_length=64, blank=True, default="")
    ein_encrypted = models.TextField(blank=True, default="")
    ein_last4 = models.CharField(max_length=4, blank=True, default="")
    ein_hash = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        ordering = ["row_number"]
        verbose_name = "314(a) subject"
        constraints = [models.UniqueConstraint(fields=["file", "row_number"], name="fincen314a_subject_unique_row")]

    def __str__(self):
        return f"{self.tracking_number} {self.name}"

    @property
    def id_number_masked(self) -> str | None:
        return masked(self.ssn_itin_last4) or masked(self.ein_last4)

    @property
    def full_address(self) -> str:
        place = " ".join(part for part in (self.state, self.zip) if part)
        return ", ".join(part for part in (self.address, self.city, place) if part)


class Fincen314aMatch(TenantModel):
    file = models.ForeignKey(Fincen314aFile, on_delete=models.CASCADE, related_name="matches")
    subject = models.ForeignKey(Fincen314aSubject, on_delete=models.CASCADE, related_name="matches")
    entity = models.ForeignKey("onboarding.Entity", on_delete=models.CASCADE, related_name="fincen314a_matches")
    score = models.FloatField()
    match_fields = models.JSONField(default=list)
    review_status = models.CharField(max_length=10, choices=ReviewStatus.choices, default=ReviewStatus.PENDING)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    reviewed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    reviewer = models.CharField(max_length=255, blank=True, default="")
    notes = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["-score", "created_at", "id"]
        verbose_name = "314(a) match"
        verbose_name_plural = "314(a) matches"
        constraints = [models.UniqueConstraint(fields=["subject", "entity"], name="fincen314a_match_unique_pair")]
        indexes = [models.Index(fields=["file", "review_status"])]

    def __str__(self):
        return f"{self.subject.name} ~ {self.entity} ({self.score:.2f})"
