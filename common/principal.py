"""Who is calling: the organization, mode and role a request acts with, and how it proved it."""

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from accounts.models import SessionToken, User
    from organizations.models import ApiKey, Organization


@dataclass(frozen=True)
class Principal:
    credential: str  # "api_key" | "session"
    organization: "Organization | None"
    mode: str
    role: str | None
    user: "User | None" = None
    api_key: "ApiKey | None" = None
    session_token: "SessionToken | None" = None

    @classmethod
    def system(cls, organization, mode: str) -> "Principal":
        """The service itself acting for an organization (management commands, workers)."""
        from organizations.choices import Role

        return cls(credential="system", organization=organization, mode=mode, role=Role.ADMIN)

    @property
    def is_api_key(self) -> bool:
        return self.credential == "api_key"

    @property
    def actor_label(self) -> str:
        if self.api_key is not None:
            return f"api_key:{self.api_key.prefix}"
        return self.user.email if self.user else "system"


class ApiKeyUser:
    """Stands in for request.user on API-key requests, which act for an organization, not a person."""

    is_authenticated = True
    is_anonymous = False
    is_active = True
    is_staff = False
    is_superuser = False
    pk = id = None

    def __init__(self, api_key):
        self.api_key = api_key

    def __str__(self):
        return f"api_key:{self.api_key.prefix}"
