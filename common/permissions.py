"""The role check every /v1 view runs (docs/architecture.md §3).

A view declares `credentials` (which kinds of credential it accepts), `minimum_role` (for every
action) and `action_roles` (per action, e.g. {"assign": Role.L2_INVESTIGATOR}); `needs_organization`
is False only for the few session operations a person without an organization may call.
"""

from rest_framework.permissions import BasePermission

from common.errors import Forbidden, Unauthenticated
from common.principal import Principal
from organizations.choices import Role


def required_role(view) -> str:
    action = getattr(view, "action", None) or (view.request.method.lower() if view.request else None)
    return getattr(view, "action_roles", {}).get(action, getattr(view, "minimum_role", Role.VIEWER))


def require_role(principal: Principal, minimum: str) -> None:
    """For services and admin actions: raise Forbidden unless the principal has `minimum` or above."""
    if not Role.at_least(principal.role, minimum):
        raise Forbidden(f"This operation needs the role {minimum} or above; yours is {principal.role or 'none'}.")


class HasRole(BasePermission):
    def has_permission(self, request, view):
        if getattr(view, "public", False):
            return True
        principal = request.auth
        if not isinstance(principal, Principal):
            raise Unauthenticated()
        credentials = getattr(view, "credentials", ("api_key", "session"))
        if principal.credential not in credentials:
            raise Forbidden("This operation needs a signed-in user session, not an API key.")
        if not getattr(view, "needs_organization", True):
            return True
        if principal.organization is None:
            raise Forbidden("You are not a member of any organization yet: create one or accept an invitation.")
        require_role(principal, required_role(view))
        return True
