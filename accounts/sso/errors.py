"""What a refused sign-in answers: a 4xx naming why, in the error envelope (502 when the identity
provider cannot be reached or answers nonsense)."""

from common.errors import ServiceError


class SSOStateInvalid(ServiceError):
    status_code = 400
    code = "SSO_STATE_INVALID"
    default_message = "This sign-in link is unknown, expired or already used: start the sign-in again."


class SSOAssertionInvalid(ServiceError):
    status_code = 401
    code = "SSO_ASSERTION_INVALID"
    default_message = "The identity provider's answer could not be verified."


class SSOAccessDenied(ServiceError):
    status_code = 403
    code = "SSO_ACCESS_DENIED"
    default_message = "This identity may not sign in through this connection."


class SSOProviderUnavailable(ServiceError):
    status_code = 502
    code = "SSO_PROVIDER_UNAVAILABLE"
    default_message = "The identity provider could not be reached or gave an unusable answer."


class SSORequired(ServiceError):
    status_code = 403
    code = "SSO_REQUIRED"
    default_message = "Your organization requires signing in through its single sign-on."
