"""POST /v1/webhooks/{provider}: provider callbacks, authenticated by their HMAC signature alone."""

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from common.api.views import V1APIView
from common.errors import PayloadTooLarge
from webhooks.inbound import services
from webhooks.inbound.providers import PROVIDERS

MAX_CALLBACK_BYTES = 256 * 1024

CallbackAccepted = inline_serializer("CallbackAccepted", {
    "id": serializers.UUIDField(),
    "status": serializers.CharField(),
    "duplicate": serializers.BooleanField(help_text="True when this provider event id was received before."),
})


class InboundCallbackView(V1APIView):
    public = True
    authentication_classes = ()
    permission_classes = ()
    parser_classes = ()
    provider = ""

    def post(self, request):
        body = request.body
        if len(body) > MAX_CALLBACK_BYTES:
            raise PayloadTooLarge(f"A callback body may be at most {MAX_CALLBACK_BYTES} bytes.")
        received = services.callback_receive(provider=self.provider, headers=request.headers, body=body)
        callback = received.callback
        return Response({"id": str(callback.pk), "status": callback.status, "duplicate": received.duplicate})

    @classmethod
    def for_provider(cls, name: str):
        provider = PROVIDERS[name]

        def post(self, request):  # its own function, so each provider's schema annotation stays its own
            return cls.post(self, request)

        schema = extend_schema(
            operation_id=f"webhooks_{name.replace('-', '_')}", tags=["webhooks"], auth=[],
            request={"application/json": provider.payload},
            responses={200: CallbackAccepted},
            parameters=[OpenApiParameter(provider.signature_header, str, OpenApiParameter.HEADER),
                        OpenApiParameter(provider.timestamp_header, str, OpenApiParameter.HEADER)],
            description=f"HMAC-SHA256 hex of `{{timestamp}}.{{raw body}}` in `{provider.signature_header}`, "
                        f"Unix seconds in `{provider.timestamp_header}`; 300 s tolerance; each signature once.",
        )
        return type(f"{name.title().replace('-', '')}CallbackView", (cls,), {"provider": name, "post": schema(post)}).as_view()
