"""314(a) reads, scoped to one organization and mode, ordered, related rows loaded."""

from django.db.models import Count, Q, QuerySet

from monitoring.models import Fincen314aFile, Fincen314aMatch
from monitoring.models.fincen314a import ReviewStatus


def files_of(*, organization, mode: str) -> QuerySet[Fincen314aFile]:
    """Newest first, with the counts of the file record (matches and their reviews)."""
    return (Fincen314aFile.objects.filter(organization=organization, mode=mode)
            .annotate(matches_count=Count("matches"),
                      positive_matches=Count("matches", filter=Q(matches__review_status=ReviewStatus.POSITIVE)),
                      negative_matches=Count("matches", filter=Q(matches__review_status=ReviewStatus.NEGATIVE)),
                      pending_review=Count("matches", filter=Q(matches__review_status=ReviewStatus.PENDING)))
            .order_by("-created_at", "-id"))


def file_of(*, organization, mode: str, file_id) -> Fincen314aFile | None:
    return files_of(organization=organization, mode=mode).filter(pk=file_id).first()


def matches_of_file(*, file: Fincen314aFile, review_status: str | None = None) -> QuerySet[Fincen314aMatch]:
    """Strongest first; the subject and the entity loaded."""
    matches = Fincen314aMatch.objects.filter(file=file, organization_id=file.organization_id, mode=file.mode)
    if review_status:
        matches = matches.filter(review_status=review_status)
    return matches.select_related("subject", "entity").order_by("-score", "subject__row_number", "id")
