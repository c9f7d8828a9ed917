"""The transfer ingest bodies (`BatchRequest`, `IngestedTransactionRequest`) validated without
DRF's per-field machinery.

A 1,000-item batch through the serializer runs some 20,000 field validations (a third of storing
the batch). `validated_batch` checks the common, well-formed body by hand and hands back exactly
what `BatchRequest(...).validated_data` would; anything it does not recognise as plainly valid
(a wrong type, a blank, a number sent as a string, an unknown field, an address that fails
normalisation, a non-ASCII string, ...) goes through the serializer instead, so every error a
client sees is the serializer's own message. It only ever accepts a subset of what the serializer
accepts; tests/monitoring/test_batch_validation.py compares both on valid and malformed bodies.
"""

from uuid import UUID

from django.utils import timezone
from rest_framework import serializers

from common.api.serializers import validated
from common.chain import MAX_CHAIN_ID, AddressError, normalized_address
from monitoring.amounts import AmountError, canonical_amount
from monitoring.api.ingest_serializers import MAX_BATCH, BatchItem, BatchRequest, EventTimestampField, IngestedTransactionRequest

_ITEM_FIELDS = frozenset(BatchItem().fields)
_SINGLE_FIELDS = frozenset(IngestedTransactionRequest().fields)
_BODY_FIELDS = frozenset(BatchRequest().fields)
# IngestedTransactionRequest.timestamp's parsing, time zone and future limit. The zone is the settings'
# (the API never activates another): DRF would look the current zone up once per item (3 % of a batch).
_TIMESTAMP = EventTimestampField(default_timezone=timezone.get_default_timezone())
_CHAIN_MAX, _LOG_INDEX_MAX = MAX_CHAIN_ID, 2**31 - 1


class _Fallback(Exception):
    """The body needs the serializer (to accept it in a form not handled here, or to word its errors)."""


def validated_batch(data) -> dict:
    """BatchRequest's validated data for `data` (a 422 through the serializer when invalid)."""
    try:
        return _fast(data)
    except _Fallback:
        return validated(BatchRequest, data)


def validated_transfer(data) -> dict:
    """IngestedTransactionRequest's validated data for `data` (a 422 through the serializer when invalid)."""
    try:
        if type(data) is not dict or not data.keys() <= _SINGLE_FIELDS:
            raise _Fallback
        run_monitoring = data.get("run_monitoring", True)
        if type(run_monitoring) is not bool:
            raise _Fallback
        item = _item({key: value for key, value in data.items() if key != "run_monitoring"})
    except _Fallback:
        return validated(IngestedTransactionRequest, data)
    return {**item, "run_monitoring": run_monitoring}  # the last declared field


def _fast(data) -> dict:
    if type(data) is not dict or not data.keys() <= _BODY_FIELDS:
        raise _Fallback
    run_monitoring = data.get("run_monitoring", True)
    items = data.get("transactions")
    if type(run_monitoring) is not bool or type(items) is not list or not 0 < len(items) <= MAX_BATCH:
        raise _Fallback
    return {"transactions": [_item(item) for item in items], "run_monitoring": run_monitoring}


def _text(value, max_length: int, *, blank: bool = False) -> str:
    """A CharField's value (trimmed) when it is a plain ASCII string without NUL within max_length."""
    if type(value) is not str or not value.isascii() or "\x00" in value:
        raise _Fallback
    value = value.strip()
    if len(value) > max_length or not (value or blank):
        raise _Fallback
    return value


def _integer(value, maximum: int) -> int:
    if type(value) is not int or not 0 <= value <= maximum:
        raise _Fallback
    return value


def _item(item) -> dict:
    """One BatchItem's validated data, keys in the serializer's order (fields, then validate())."""
    if type(item) is not dict or not item.keys() <= _ITEM_FIELDS:
        raise _Fallback
    try:
        out = {"from_address": _text(item["from_address"], 200), "to_address": _text(item["to_address"], 200),
               "amount": canonical_amount(_text(item["amount"], 1000))}
        timestamp = item["timestamp"]
        if type(timestamp) is not str:
            raise _Fallback
        out["timestamp"] = _TIMESTAMP.to_internal_value(timestamp)
    except (KeyError, AmountError, serializers.ValidationError):
        raise _Fallback from None
    if len(out["amount"]) > 120:
        raise _Fallback
    chain_id = out["chain_id"] = _integer(item.get("chain_id", 0), _CHAIN_MAX)
    if "tx_hash" in item:
        out["tx_hash"] = _text(item["tx_hash"], 100, blank=True)
    out["log_index"] = _integer(item.get("log_index", 0), _LOG_INDEX_MAX)
    if "entity_id" in item:
        entity_id = item["entity_id"]
        if entity_id is not None:
            if type(entity_id) is not str:
                raise _Fallback
            try:
                entity_id = UUID(hex=entity_id)
            except ValueError:
                raise _Fallback from None
        out["entity_id"] = entity_id
    out["asset"] = _text(item["asset"], 20, blank=True) if "asset" in item else ""
    out["reference"] = _text(item["reference"], 200, blank=True) if "reference" in item else ""
    # IngestedTransactionRequest.validate
    try:
        out["from_address"] = normalized_address(chain_id, out["from_address"])
        out["to_address"] = normalized_address(chain_id, out["to_address"])
    except AddressError:
        raise _Fallback from None
    if out.get("tx_hash") and chain_id and out["tx_hash"].startswith("0x"):
        out["tx_hash"] = out["tx_hash"].lower()
    return out
