from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.response import Response

from common.api.pagination import paginator
from common.api.serializers import PAGE_PARAMETERS, validated, validated_query
from common.api.views import V1ViewSet
from onboarding import selectors, services
from onboarding.api import serializers as s

ENTITY_FILTERS = [
    OpenApiParameter("status", str, enum=[c[0] for c in s.EntityStatus.choices]),
    OpenApiParameter("risk_tier", str, enum=[c[0] for c in s.RiskTier.choices]),
    OpenApiParameter("search", str, description="name (contains), external id, registration number or wallet address"),
]


class EntityViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, V1ViewSet):
    serializer_class = s.EntityResponse
    pagination_class = paginator(50, 200)
    action_roles = {"create": services.ONBOARD_ROLE, "add_wallet": services.ONBOARD_ROLE, "batch": services.ONBOARD_ROLE,
                    "approve": services.REVIEW_ROLE, "reject": services.REVIEW_ROLE, "suspend": services.REVIEW_ROLE}
    lookup_url_kwarg = "entity_id"

    def base_queryset(self):
        principal = self.principal
        if self.action != "list":
            return selectors.entities_of(organization=principal.organization, mode=principal.mode)
        query = validated_query(s.EntityListQuery, self.request, also=PAGE_PARAMETERS)
        return selectors.entities_filtered(organization=principal.organization, mode=principal.mode, **query)

    def _entity_response(self, entity, code=status.HTTP_200_OK):
        fresh = self.get_queryset().get(pk=entity.pk)
        return Response(s.EntityResponse(fresh).data, status=code)

    @extend_schema(operation_id="entities_list", parameters=ENTITY_FILTERS, tags=["onboarding"],
                   description="Your entities in this key's mode, newest first, paged; filter by status, risk tier or a search.")
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(operation_id="entities_get", tags=["onboarding"],
                   description="One entity with its status, risk, wallets and UBOs; another organization's or mode's id is a 404.")
    def retrieve(self, request, *args, **kwargs):
        return super().retrieve(request, *args, **kwargs)

    @extend_schema(operation_id="entities_create", request=s.OnboardEntityRequest, responses={201: s.EntityResponse},
                   tags=["onboarding"],
                   description="Onboard an entity (l1_analyst and above): a person or a business with its wallets and UBOs. It "
                               "starts `pending`; the sanctions screening runs in the worker right after. A repeated "
                               "external_id or wallet is a 409.")
    def create(self, request):
        entity = services.entity_create(principal=request.auth, data=validated(s.OnboardEntityRequest, request.data))
        return self._entity_response(entity, status.HTTP_201_CREATED)

    @extend_schema(operation_id="entities_create_batch", request=s.EntityBatchRequest, responses={201: s.EntityBatchResponse},
                   tags=["onboarding"],
                   description=f"Onboard up to {services.MAX_BATCH} entities with their wallets and UBOs in one request (l1_analyst "
                               "and above), all or nothing: any problem of any item (a field, an external_id or wallet taken or "
                               "given twice) is a 422 listing every item's problems as entities.<index>.<field>, and nothing is "
                               "stored. Each entity starts `pending` and is screened in the worker, as with single onboarding.")
    @action(detail=False, methods=["post"])
    def batch(self, request):
        items = validated(s.EntityBatchRequest, request.data)["entities"]
        entities = services.entities_create_batch(principal=request.auth, items=items)
        order = {entity.pk: index for index, entity in enumerate(entities)}
        stored = sorted(self.get_queryset().filter(pk__in=list(order)), key=lambda entity: order[entity.pk])
        return Response(s.EntityBatchResponse({"created": len(stored), "data": stored}).data, status=status.HTTP_201_CREATED)

    def _review(self, request, entity_id, decision):
        body = validated(s.EntityReviewRequest, request.data)
        entity = services.entity_review(principal=request.auth, entity_id=entity_id, action=decision, **body)
        return self._entity_response(entity)

    @extend_schema(operation_id="entities_approve", request=s.EntityReviewRequest, responses={200: s.EntityResponse},
                   tags=["onboarding"],
                   description="Approve a `pending` or `under_review` entity (l2_investigator and above): it becomes `active`. "
                               "A 409 when its sanctions screening has not completed or has open matches to decide first.")
    @action(detail=True, methods=["post"])
    def approve(self, request, entity_id=None):
        return self._review(request, entity_id, "approve")

    @extend_schema(operation_id="entities_reject", request=s.EntityReviewRequest, responses={200: s.EntityResponse},
                   tags=["onboarding"],
                   description="Reject a `pending` or `under_review` entity (l2_investigator and above), with a reason: it "
                               "becomes `rejected`. Another status is a 409.")
    @action(detail=True, methods=["post"])
    def reject(self, request, entity_id=None):
        return self._review(request, entity_id, "reject")

    @extend_schema(operation_id="entities_suspend", request=s.EntityReviewRequest, responses={200: s.EntityResponse},
                   tags=["onboarding"],
                   description="Suspend an `active` entity (l2_investigator and above), with a reason: it becomes `suspended`. "
                               "Another status is a 409.")
    @action(detail=True, methods=["post"])
    def suspend(self, request, entity_id=None):
        return self._review(request, entity_id, "suspend")

    @extend_schema(operation_id="wallets_list", responses={200: s.WalletResponse(many=True)}, tags=["onboarding"],
                   description="The entity's wallets, as a plain array (not paged).")
    @action(detail=True, methods=["get"], url_path="wallets", pagination_class=None)  # a plain array (README, "Lists")
    def wallets(self, request, entity_id=None):
        entity = self.get_object()
        return Response(s.WalletResponse(selectors.wallets_of_entity(entity), many=True).data)

    @extend_schema(operation_id="wallets_add", request=s.WalletRegistration, responses={201: s.WalletResponse},
                   tags=["onboarding"],
                   description="Register a wallet of the entity (l1_analyst and above): an EVM address with its chain_id, or an "
                               "off-chain identifier (chain_id 0). A wallet registered already is a 409.")
    @wallets.mapping.post
    def add_wallet(self, request, entity_id=None):
        wallet = services.wallet_add(principal=request.auth, entity_id=entity_id,
                                     **validated(s.WalletRegistration, request.data))
        return Response(s.WalletResponse(wallet).data, status=status.HTTP_201_CREATED)


