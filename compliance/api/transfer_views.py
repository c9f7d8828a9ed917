"""Travel-rule transfers (docs/travel-rule.md): initiate and poll under /v1/compliance/transfer, and a
customer's travel-rule record of a transaction under /v1/onboarding/entities/{entity_id}/transfers."""

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from common.api.serializers import validated
from common.api.views import V1APIView
from common.errors import NotFound, ValidationFailed
from compliance.api import transfer_serializers as s
from compliance.api.vasp_serializers import inbound_record
from compliance.travel_rule import selectors, services
from onboarding.models import Entity

TAGS = ["compliance"]


class TransferInitiateView(V1APIView):
    minimum_role = services.INITIATE_ROLE

    @extend_schema(operation_id="compliance_transfer_initiate", tags=TAGS, request=s.InitiateTransferRequest,
                   responses={200: s.TransferIdResponse},
                   description="Record a transfer between two of your customers with its travel-rule (IVMS101) data, once both "
                               "are compliant (else 409 NOT_COMPLIANT naming the side and why), and start the travel-rule process. "
                               "With beneficiary_vasp_id instead of beneficiary_entity_id, the beneficiary is a customer of that "
                               "counterparty VASP, which is sent the inquiry and whose answer acknowledges or rejects it. "
                               "Poll GET /v1/compliance/transfer/{transfer_id} until `acknowledged`, then execute it on chain.")
    def post(self, request):
        body = validated(s.InitiateTransferRequest, request.data)
        outcome = services.transfer_initiate(principal=request.auth, **body)
        transfer = outcome.transfer
        return Response(s.TransferIdResponse({"pk": transfer.pk, "salt": transfer.salt, "status": transfer.status,
                                              "commitment": transfer.commitment, "travel_rule_required": transfer.travel_rule_required,
                                              "duplicate": not outcome.created}).data)


class TransferStatusView(V1APIView):
    @extend_schema(operation_id="compliance_transfer_get", tags=TAGS, responses={200: s.TravelRuleStatusResponse})
    def get(self, request, transfer_id):
        principal = request.auth
        transfer = selectors.transfer_of(organization=principal.organization, mode=principal.mode, transfer_id=transfer_id)
        if transfer is None:
            raise NotFound("No travel-rule transfer of yours has this id.")
        return Response(s.TravelRuleStatusResponse(transfer).data)


class EntityTravelRuleView(V1APIView):
    @extend_schema(operation_id="entity_transfers_travel_rule", tags=["onboarding: alerts and transfers"],
                   responses={200: s.CustomerTravelRuleResponse},
                   description="The travel-rule record of the transaction tx_hash, for its originating or beneficiary entity "
                               "(404 for any other entity, and for a transaction without a travel-rule record). For a "
                               "transfer another VASP announced to the entity, tx_hash may also be the commitment the "
                               "transaction carries or the originating VASP's transfer id.")
    def get(self, request, entity_id, tx_hash):
        principal = request.auth
        if "\x00" in tx_hash:  # PostgreSQL cannot compare text holding NUL: a 500 before
            raise ValidationFailed.for_field("tx_hash", "A transaction hash may not contain the NUL character.")
        if not Entity.objects.filter(pk=entity_id, organization=principal.organization, mode=principal.mode).exists():
            raise NotFound("No entity of yours has this id.")
        transfer = selectors.travel_rule_of_transaction(organization=principal.organization, mode=principal.mode,
                                                         entity_id=entity_id, tx_hash=tx_hash.strip()[:100])
        if transfer is None:
            transfer = inbound_record(principal, entity_id, tx_hash.strip()[:100])
        if transfer is None:
            raise NotFound("No travel-rule record of this entity has this transaction hash.")
        return Response(s.CustomerTravelRuleResponse(transfer, context={"entity_id": entity_id}).data)
