"""limit/offset pagination with each list's own default and maximum (README, "Lists").

An out-of-range `limit` or `offset` is a 422, not silently clamped: the caller learns the maximum.
"""

from functools import cache

from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers
from rest_framework.pagination import BasePagination
from rest_framework.response import Response

from common.api.serializers import PAGE_PARAMETERS, query_values, refuse_unknown_parameters
from common.errors import ValidationFailed, flatten_details

MAX_OFFSET = 2**31 - 1
"""Past any list's end; a larger offset would not fit the database's integer (SQLite stopped with a 500)."""


class PageQuery(serializers.Serializer):
    limit = serializers.IntegerField(required=False, min_value=1)
    offset = serializers.IntegerField(required=False, min_value=0, max_value=MAX_OFFSET, default=0)


def page_params(request, *, default: int, maximum: int) -> tuple[int, int]:
    """limit and offset, checked. On a list without a query of its own (validated_query did not
    run), any other parameter is refused here."""
    if not getattr(request, "query_checked", False):
        refuse_unknown_parameters(request, PAGE_PARAMETERS)
    given = query_values(request)
    serializer = PageQuery(data={k: given[k] for k in ("limit", "offset") if k in given})
    if not serializer.is_valid():
        raise ValidationFailed(details=flatten_details(serializer.errors))
    limit = serializer.validated_data.get("limit", default)
    if limit > maximum:
        raise ValidationFailed(details=[{"field": "limit", "message": f"Ensure this value is less than or equal to {maximum}."}])
    return limit, serializer.validated_data["offset"]


class LimitOffsetPagination(BasePagination):
    """Response: {"data": [...], "total": n, "limit": l, "offset": o, "has_more": bool}."""

    default_limit = 20
    max_limit = 100

    def __init__(self, default_limit: int | None = None, max_limit: int | None = None):
        self.default_limit = default_limit or self.default_limit
        self.max_limit = max_limit or self.max_limit

    def paginate_queryset(self, queryset, request, view=None):
        if hasattr(queryset, "ordered") and not queryset.ordered:
            raise TypeError("refusing to paginate an unordered queryset")
        self.limit, self.offset = page_params(request, default=self.default_limit, maximum=self.max_limit)
        self.total = queryset.count()
        return list(queryset[self.offset:self.offset + self.limit])

    def get_paginated_response(self, data):
        return Response({
            "data": data, "total": self.total, "limit": self.limit, "offset": self.offset,
            "has_more": self.offset + len(data) < self.total,
        })

    def get_paginated_response_schema(self, schema):
        return {
            "type": "object",
            "required": ["data", "total", "limit", "offset", "has_more"],
            "properties": {
                "data": schema,
                "total": {"type": "integer"},
                "limit": {"type": "integer"},
                "offset": {"type": "integer"},
                "has_more": {"type": "boolean"},
            },
        }

    def get_schema_operation_parameters(self, view):
        return [
            {"name": "limit", "in": "query", "required": False,
             "schema": {"type": "integer", "minimum": 1, "maximum": self.max_limit, "default": self.default_limit}},
            {"name": "offset", "in": "query", "required": False,
             "schema": {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET, "default": 0}},
        ]


def paginator(default: int, maximum: int):
    """A pagination class for a list with this default and maximum: `pagination_class = paginator(50, 200)`."""
    return type(f"Page{default}Max{maximum}", (LimitOffsetPagination,), {"default_limit": default, "max_limit": maximum})


@cache
def paged(serializer_class: type[serializers.Serializer]) -> type[serializers.Serializer]:
    """The OpenAPI shape of a page of `serializer_class` items, as LimitOffsetPagination answers, for
    views that page by hand (`responses={200: paged(ItemResponse)}`); one component per item type."""
    name = serializer_class.__name__.removesuffix("Response") + "Page"
    return type(name, (serializers.Serializer,), {
        "__doc__": f"A page of {serializer_class.__name__.removesuffix('Response')} items, with the total and whether more follow.",
        "data": serializer_class(many=True), "total": serializers.IntegerField(), "limit": serializers.IntegerField(),
        "offset": serializers.IntegerField(), "has_more": serializers.BooleanField(),
    })


def page_parameters(default: int = 20, maximum: int = 100, *, offset: bool = True) -> list[OpenApiParameter]:
    """The documented `limit` (and `offset`) of a list paged by hand (PagedMixin.page, page_params),
    with the bounds the API enforces."""
    limit = OpenApiParameter("limit", {"type": "integer", "minimum": 1, "maximum": maximum, "default": default},
                             description=f"1 to {maximum}, default {default}")
    start = OpenApiParameter("offset", {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET, "default": 0},
                             description="0 or more, default 0")
    return [limit, start] if offset else [limit]
