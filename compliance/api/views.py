"""Compliance status: per entity, per wallet, and in batches of up to 1,000 items (viewer and above).

Built for speed: responses are plain dicts from compliance.status (no model serializer on the hot
path), from a constant number of indexed queries (compliance.selectors): the status's, and one for what the
on-chain oracle holds for the response's wallets."""

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from common.api.serializers import validated
from common.api.views import V1APIView
from common.chain import MAX_CHAIN_ID, AddressError, normalized_address
from common.errors import NotFound, ValidationFailed
from compliance import selectors
from compliance.api import serializers as s
from compliance.status import status_response

NOT_FOUND_ITEM = {"entity_id": None, "status": None, "compliant": None, "flags": None, "risk_tier": None, "wallets": [],
                  "updated_at": None}


def _onchain(principal, wallets) -> dict:
    """What the oracle holds for `wallets`, in the caller's organization and mode (one query)."""
    return selectors.onchain_states(organization=principal.organization, mode=principal.mode, wallet_ids=[w.pk for w in wallets])


class EntityStatusView(V1APIView):
    @extend_schema(operation_id="compliance_status_entity", tags=["compliance"], responses={200: s.ComplianceStatusResponse})
    def get(self, request, entity_id):
        principal = request.auth
        found = selectors.entity_with_wallets(organization=principal.organization, mode=principal.mode, entity_id=entity_id)
        if found is None:
            raise NotFound("No entity of yours has this id.")
        entity, wallets = found
        return Response(status_response(entity, wallets, onchain=_onchain(principal, wallets)))


class WalletStatusView(V1APIView):
    @extend_schema(operation_id="compliance_status_wallet", tags=["compliance"], responses={200: s.ComplianceStatusResponse})
    def get(self, request, chain_id: int, address: str):
        if chain_id > MAX_CHAIN_ID:
            raise ValidationFailed.for_field("chain_id", "A chain id is below 2^63.")
        if "\x00" in address:
            raise ValidationFailed.for_field("address", "An address may not contain the NUL character.")
        try:
            address = normalized_address(chain_id, address)  # as registration takes it: a bad EIP-55 checksum is a typo
        except AddressError as exc:
            raise ValidationFailed.for_field("address", str(exc)) from None
        principal = request.auth
        wallet = selectors.wallet_with_entity(organization=principal.organization, mode=principal.mode, chain_id=chain_id,
                                              address=address)
        if wallet is None:
            raise NotFound("No wallet of yours is registered with this chain and address.")
        return Response(status_response(wallet.entity, [wallet], wallet=wallet, onchain=_onchain(principal, [wallet])))


class BatchStatusView(V1APIView):
    @extend_schema(operation_id="compliance_status_batch", tags=["compliance"], request=s.BatchStatusRequest,
                   responses={200: s.BatchStatusItem(many=True)})
    def post(self, request):
        body = validated(s.BatchStatusRequest, request.data)
        principal = request.auth
        scope = {"organization": principal.organization, "mode": principal.mode}
        keys = [self._key(item) for item in body["wallets"]]
        wallets = selectors.wallets_by_key(**scope, keys={key for key in keys if not isinstance(key, AddressError)})
        entities = selectors.entities_with_wallets(**scope, entity_ids=set(body["entity_ids"]))
        onchain = _onchain(principal, [*wallets.values(), *(w for _, listed in entities.values() for w in listed)])
        results = [self._wallet_item(item, key, wallets.get(key) if not isinstance(key, AddressError) else None, onchain)
                   for item, key in zip(body["wallets"], keys, strict=True)]
        results += [self._entity_item(entity_id, entities.get(entity_id), onchain) for entity_id in body["entity_ids"]]
        return Response(results)

    @staticmethod
    def _key(item: dict) -> tuple[int, str] | AddressError:
        """The stored form of the item's address, or why it cannot be one (an item's error, as the
        single look-up's 422: a malformed EVM address, a mixed-case one failing its checksum)."""
        try:
            return item["chain_id"], normalized_address(item["chain_id"], item["address"])
        except AddressError as exc:
            return exc

    @staticmethod
    def _wallet_item(item: dict, key, wallet, onchain: dict) -> dict:
        query = {"chain_id": item["chain_id"], "address": item["address"]}
        if isinstance(key, AddressError):
            return {"query": query, "found": False, "error": f"address: {key}", **NOT_FOUND_ITEM}
        if wallet is None:
            return {"query": query, "found": False, "error": "No wallet of yours is registered with this chain and address.",
                    **NOT_FOUND_ITEM}
        return {"query": query, "found": True, **status_response(wallet.entity, [wallet], wallet=wallet, onchain=onchain)}

    @staticmethod
    def _entity_item(entity_id, found, onchain: dict) -> dict:
        query = {"entity_id": str(entity_id)}
        if found is None:
            return {"query": query, "found": False, "error": "No entity of yours has this id.", **NOT_FOUND_ITEM}
        return {"query": query, "found": True, **status_response(*found, onchain=onchain)}
