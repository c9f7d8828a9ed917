"""Console and cookie sessions end once SSO is enforced for their person (accounts.selectors.sso_required_since)."""

from django.conf import settings

from accounts.selectors import SESSION_METHOD_KEY, sso_required_since
from accounts.services import session_end_for_sso


class SsoEnforcedSessionMiddleware:
    """A session opened with a password (or Google) before the person's domain enforced SSO ends
    at its next request, as sign-in would be refused now; the console then asks for a sign-in,
    which sends the person to the identity provider. Requests without the session cookie (API
    keys, bearer tokens) cost nothing here; bearer session tokens are checked by their
    authentication class."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if settings.SESSION_COOKIE_NAME in request.COOKIES and request.user.is_authenticated:
            domain = sso_required_since(request.user, request.session.get(SESSION_METHOD_KEY, "password"))
            if domain is not None:
                session_end_for_sso(user=request.user, request=request, domain=domain.domain)
        return self.get_response(request)
