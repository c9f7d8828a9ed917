"""FinCEN 314(b): partners (register, list, verify) and information-sharing requests (send, list, respond)."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response

from common.api.pagination import page_parameters
from common.api.serializers import validated, validated_query
from common.api.views import V1APIView
from monitoring.api import fincen314b_serializers as s
from monitoring.fincen314b import selectors, services
from monitoring.models.fincen314b import PartnerStatus, RequestDirection, RequestStatus

TAGS = ["monitoring: 314(b)"]


class Partners314bView(V1APIView):
    minimum_role = services.READ_ROLE
    action_roles = {"post": services.PARTNER_ROLE}

    @extend_schema(operation_id="fincen_314b_partners_create", tags=TAGS, request=s.Partner314bCreate,
                   responses={200: s.Partner314bResponse},
                   description="Register an institution that has filed a 314(b) notice with FinCEN: `pending_verification` until "
                               "verified. One partner per EIN (409 otherwise).")
    def post(self, request):
        partner = services.partner_register(principal=request.auth, **validated(s.Partner314bCreate, request.data))
        return Response(s.Partner314bResponse(partner).data)

    @extend_schema(operation_id="fincen_314b_partners_list", tags=TAGS, responses={200: s.Partner314bListResponse},
                   parameters=[OpenApiParameter("status", str, enum=PartnerStatus.values)])
    def get(self, request):
        query = validated_query(s.Partner314bListQuery, request)
        partners = list(selectors.partners_of(organization=request.auth.organization, mode=request.auth.mode, **query))
        return Response({"partners": s.Partner314bResponse(partners, many=True).data, "total": len(partners)})


class Partner314bVerifyView(V1APIView):
    minimum_role = services.PARTNER_ROLE

    @extend_schema(operation_id="fincen_314b_partners_verify", tags=TAGS, request=s.Partner314bVerify,
                   responses={200: s.Partner314bVerifyResponse},
                   description="Record the check of the partner's 314(b) notice: `verified` true enables sharing (409 on an expired "
                               "certification); false records a failed check and stops sharing (back to pending_verification).")
    def put(self, request, partner_id):
        partner = services.partner_verify(principal=request.auth, partner_id=partner_id, **validated(s.Partner314bVerify, request.data))
        return Response(s.Partner314bVerifyResponse(partner).data)


class Requests314bView(V1APIView):
    minimum_role = services.READ_ROLE
    action_roles = {"post": services.SHARE_ROLE}

    @extend_schema(operation_id="fincen_314b_requests_create", tags=TAGS, request=s.Request314bCreate,
                   responses={200: s.Request314bResponse},
                   description="Send a request to a verified partner whose certification is in force (409 otherwise); due 14 days "
                               "later. A partner that uses this service, and has verified you in turn, receives it there.")
    def post(self, request):
        created = services.request_send(principal=request.auth, **validated(s.Request314bCreate, request.data))
        return Response(s.Request314bResponse(created).data)

    @extend_schema(operation_id="fincen_314b_requests_list", tags=TAGS, responses={200: s.Request314bListResponse},
                   parameters=[OpenApiParameter("status", str, enum=RequestStatus.values), OpenApiParameter("partner_id", str),
                               OpenApiParameter("direction", str, enum=RequestDirection.values), *page_parameters()],
                   description="Requests sent and received, newest first.")
    def get(self, request):
        query = validated_query(s.Request314bListQuery, request)
        limit, offset = query.pop("limit"), query.pop("offset")
        rows = selectors.requests_of(organization=request.auth.organization, mode=request.auth.mode, **query)
        total = rows.count()
        page = list(rows[offset:offset + limit])
        return Response({"requests": s.Request314bResponse(page, many=True).data, "total": total, "limit": limit, "offset": offset,
                         "has_more": offset + len(page) < total})


class Request314bRespondView(V1APIView):
    minimum_role = services.SHARE_ROLE

    @extend_schema(operation_id="fincen_314b_requests_respond", tags=TAGS, request=s.Request314bRespond,
                   responses={200: s.Request314bRespondResponse},
                   description="Answer a received request, once, before its deadline (409 for an outbound, answered or expired "
                               "request). `sar_bsa_id` only with `share_sar_reference` true.")
    def post(self, request, request_id):
        answered = services.request_respond(principal=request.auth, request_id=request_id, **validated(s.Request314bRespond, request.data))
        return Response(s.Request314bRespondResponse(answered).data)
