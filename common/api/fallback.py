from drf_spectacular.utils import extend_schema

from common.api.views import V1APIView
from common.errors import NotFound


class NoSuchOperation(NotFound):
    about_a_record = False


@extend_schema(exclude=True)
class UnknownRouteView(V1APIView):
    """Any path under /v1 that no route matches: a 404 in the envelope (rate-limited like the rest)."""

    public = True
    permission_classes = ()
    parser_classes = ()  # the 404 whatever the body

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        raise NoSuchOperation(f"No operation at {request.method} {request.path}. The operations and their paths are at /v1/docs "
                              "(ids in paths are UUIDs).")
