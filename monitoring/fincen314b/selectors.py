"""314(b) reads, scoped to one organization and mode, ordered, related rows loaded."""

from django.db.models import QuerySet

from monitoring.models import Fincen314bPartner, Fincen314bRequest


def partners_of(*, organization, mode: str, status: str | None = None) -> QuerySet[Fincen314bPartner]:
    partners = Fincen314bPartner.objects.filter(organization=organization, mode=mode)
    if status:
        partners = partners.filter(status=status)
    return partners.order_by("institution_name", "id")


def requests_of(*, organization, mode: str, status: str | None = None, partner_id=None,
                direction: str | None = None) -> QuerySet[Fincen314bRequest]:
    """Both directions, newest first."""
    requests = Fincen314bRequest.objects.filter(organization=organization, mode=mode)
    if status:
        requests = requests.filter(status=status)
    if partner_id:
        requests = requests.filter(partner_id=partner_id)
    if direction:
        requests = requests.filter(direction=direction)
    return requests.select_related("partner").order_by("-created_at", "-id")
