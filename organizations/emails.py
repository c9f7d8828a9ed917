from urllib.parse import urlencode

from django.conf import settings
from django.template.loader import render_to_string

from common.mail import email_renderer
from organizations.choices import InvitationStatus
from organizations.models import Invitation
from organizations.selectors import invitation_token


@email_renderer("invitation")
def invitation(row):
    invite = Invitation.objects.select_related("organization", "invited_by").filter(pk=row.context.get("invitation_id")).first()
    if invite is None or invite.status != InvitationStatus.PENDING:
        return None
    link = f"{settings.PUBLIC_URL}/accounts/invitation/?{urlencode({'token': invitation_token(invite)})}"
    return (
        f"You are invited to {invite.organization.name}",
        render_to_string("emails/invitation.txt", {"invitation": invite, "link": link}),
    )
