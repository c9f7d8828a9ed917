"""/v1/compliance/vasps: the counterparty VASP directory (viewer and above read, admin writes); and
/v1/travel-rule/vasps/{vasp_id}/inquiry|reply: what a counterparty VASP sends us, authenticated by
its signature alone (docs/travel-rule.md, "Beneficiaries at another VASP")."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.response import Response

from common.api.pagination import paginator
from common.api.serializers import validated
from common.api.views import V1APIView, V1ViewSet
from common.errors import PayloadTooLarge
from compliance.api import vasp_serializers as s
from compliance.travel_rule import vasp_exchange, vasp_protocol, vasp_selectors, vasp_services
from organizations.choices import Role

TAGS = ["compliance: counterparty VASPs"]
WRITE_ACTIONS = ("create", "partial_update", "disable")


class VaspViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, V1ViewSet):
    serializer_class = s.VaspResponse
    pagination_class = paginator(20, 100)
    action_roles = dict.fromkeys(WRITE_ACTIONS, Role.ADMIN)

    def base_queryset(self):
        return vasp_selectors.vasps_of(organization=self.principal.organization, mode=self.principal.mode)

    @extend_schema(operation_id="compliance_vasps_list", tags=TAGS,
                   description="The counterparty VASPs of your organization in this key's mode, paged (viewer and above).")
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(operation_id="compliance_vasps_get", tags=TAGS,
                   description="One counterparty VASP (viewer and above); another organization's or mode's id is a 404.")
    def retrieve(self, request, *args, **kwargs):
        return super().retrieve(request, *args, **kwargs)

    @extend_schema(operation_id="compliance_vasps_create", tags=TAGS, request=s.VaspCreateRequest,
                   responses={201: s.VaspWithSecretResponse},
                   description="Add a counterparty VASP (admin): its name, LEI and https:// inquiry endpoint. The answer holds "
                               "the pair's shared secret, shown this once (the other VASP's, when it made one first).")
    def create(self, request):
        vasp = vasp_services.vasp_create(principal=request.auth, **validated(s.VaspCreateRequest, request.data))
        return Response(s.VaspWithSecretResponse(vasp).data, status=status.HTTP_201_CREATED)

    @extend_schema(operation_id="compliance_vasps_update", tags=TAGS, request=s.VaspUpdateRequest, responses={200: s.VaspResponse},
                   description="Change a counterparty VASP's name, LEI, inquiry endpoint or status (admin); only the fields sent.")
    def partial_update(self, request, pk=None):
        changes = validated(s.VaspUpdateRequest, request.data)
        vasp = vasp_services.vasp_update(principal=request.auth, vasp_id=pk, changes=dict(changes))
        return Response(s.VaspResponse(vasp).data)

    @extend_schema(operation_id="compliance_vasps_disable", tags=TAGS, request=None, responses={200: s.VaspResponse},
                   description="Disable a counterparty VASP (admin): no new transfers to it and no messages taken from it; the "
                               "transfers already made keep it.")
    @action(detail=True, methods=["post"], url_path="disable")
    def disable(self, request, pk=None):
        vasp = vasp_services.vasp_disable(principal=request.auth, vasp_id=pk)
        return Response(s.VaspResponse(vasp).data)


SIGNATURE_PARAMETERS = [OpenApiParameter(vasp_protocol.SIGNATURE_HEADER, str, OpenApiParameter.HEADER, required=True),
                        OpenApiParameter(vasp_protocol.TIMESTAMP_HEADER, str, OpenApiParameter.HEADER, required=True)]
SIGNED = ("HMAC-SHA256 hex of `{timestamp}.{raw body}` with the pair's shared secret in `x-travel-rule-signature`, Unix seconds "
          "in `x-travel-rule-timestamp` (300 s tolerance). An unknown VASP, a bad signature or a stale timestamp is a 401, a "
          "disabled VASP a 403; nothing is stored then.")


class _SignedView(V1APIView):
    public = True
    authentication_classes = ()
    permission_classes = ()
    parser_classes = ()

    @staticmethod
    def body(request) -> bytes:
        if len(request.body) > vasp_protocol.MAX_MESSAGE_BYTES:
            raise PayloadTooLarge(f"A travel-rule message may be at most {vasp_protocol.MAX_MESSAGE_BYTES} bytes.")
        return request.body


class VaspInquiryView(_SignedView):
    @extend_schema(operation_id="travel_rule_vasp_inquiry", tags=["travel-rule exchange"], auth=[],
                   request=vasp_protocol.TransferInquiry, responses={200: vasp_protocol.TransferReply},
                   parameters=SIGNATURE_PARAMETERS,
                   description="A counterparty VASP's transfer inquiry for one of our customers; answered at once with "
                               "the decision. " + SIGNED)
    def post(self, request, vasp_id):
        outcome = vasp_exchange.inquiry_receive(vasp_id=vasp_id, headers=request.headers, body=self.body(request))
        record = outcome.record
        return Response(vasp_protocol.reply(record.external_transfer_id, record.decision, record.reason))


class VaspReplyView(_SignedView):
    @extend_schema(operation_id="travel_rule_vasp_reply", tags=["travel-rule exchange"], auth=[],
                   request=vasp_protocol.TransferReply, responses={200: s.InboundAccepted}, parameters=SIGNATURE_PARAMETERS,
                   description="A counterparty VASP's later decision on one of our inquiries (the callback_url of the "
                               "inquiry). " + SIGNED)
    def post(self, request, vasp_id):
        transfer = vasp_exchange.reply_receive(vasp_id=vasp_id, headers=request.headers, body=self.body(request))
        return Response({"transfer_id": str(transfer.pk), "status": transfer.status})
