"""The /v1 base: every API view and viewset inherits `V1APIView` or `V1ViewSet`.

They add to DRF: the per-key rate limit, counted right after authentication (so even a request
refused by role counts) with its headers on every response; tenant scoping through one guarded
`get_queryset`; limit/offset pagination with each list's own default and maximum.
"""

from django.conf import settings
from django.http import Http404
from rest_framework import viewsets
from rest_framework.views import APIView

from common.api.pagination import paginator
from common.errors import NotFound, RateLimited
from common.principal import Principal

BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


class RateLimitedMixin:
    """API-key authentication counts the request (organizations.keyauth, in the same Redis round
    trip that validates the key); here a refused count becomes the 429, and every keyed response
    gets the three headers."""

    def perform_authentication(self, request):
        super().perform_authentication(request)
        result = self._limit(request)
        if result is not None and not result.allowed:
            raise RateLimited(
                f"Rate limit of {result.limit} requests per minute exceeded; retry {result.retry_when()}.",
                headers=result.refusal_headers(),
            )

    @staticmethod
    def _limit(request):
        if not settings.RATE_LIMIT_ENABLED:
            return None
        return getattr(request._request, "rate_limit", None)

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        result = self._limit(request)
        if result is not None:
            for name, value in result.headers().items():
                response[name] = value
        return response


class TenantScopedMixin:
    """`get_queryset` scopes `base_queryset()` to the caller's organization (and mode, for
    per-mode records) and refuses an unordered result, so pagination is stable."""

    def base_queryset(self):
        raise NotImplementedError

    def schema_model(self):
        """The model the OpenAPI generator describes (no request, so no tenant, at that time)."""
        return getattr(self, "model", None) or self.get_serializer_class().Meta.model

    @property
    def principal(self) -> Principal:
        return self.request.auth

    def get_object(self):
        """The record of the URL, or a 404 naming what was looked for (rather than DRF's "Not found.")."""
        try:
            return super().get_object()
        except Http404:
            raise NotFound(f"No {self.get_queryset().model._meta.verbose_name} of yours has this id.") from None

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # drf-spectacular reads the model for path parameter types
            return self.schema_model().objects.none()
        queryset = self.base_queryset()
        scope = getattr(queryset.model, "tenant_scope", None)
        if scope is None:
            raise TypeError(f"{queryset.model.__name__} declares no tenant_scope")
        filters = {"organization": self.principal.organization}
        if "mode" in scope:
            filters["mode"] = self.principal.mode
        queryset = queryset.filter(**filters)
        if not queryset.ordered:
            raise TypeError(f"{type(self).__name__}: unordered queryset")
        return queryset


class JSONBodyMixin:
    """The API takes JSON bodies alone (settings: the one parser). A write whose body has another
    content type is a 415 even where the view reads no body, rather than a body silently ignored
    here and a confusing 422 there (a form-encoded JSON text becomes one form field's name)."""

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        handled = request.method in BODY_METHODS and hasattr(self, request.method.lower())  # else the 405 comes first
        if handled and self.parser_classes:
            request.data  # noqa: B018 -- parsing now raises the 415 (or the 400 of malformed JSON)


class PagedMixin:
    """`self.page(...)`: a list paged by hand (a queryset of the view's own choosing), answered as
    common.api.pagination answers; document it with `responses={200: paged(ItemResponse)}`."""

    def page(self, queryset, serializer_class, *, default: int = 20, maximum: int = 100, **context):
        pager = paginator(default, maximum)()
        rows = pager.paginate_queryset(queryset, self.request, view=self)
        return pager.get_paginated_response(serializer_class(rows, many=True, context=context).data)


class V1APIView(RateLimitedMixin, JSONBodyMixin, PagedMixin, APIView):
    pass


class V1ViewSet(RateLimitedMixin, JSONBodyMixin, TenantScopedMixin, PagedMixin, viewsets.GenericViewSet):
    lookup_value_converter = "uuid"
