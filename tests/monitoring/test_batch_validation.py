"""The hand-written batch validator (monitoring.api.batch_validation) against the serializer it
stands in for: the same validated data for every body it accepts, the serializer's own errors
for every body it does not."""

import copy
import uuid
from datetime import datetime

import pytest
from rest_framework.exceptions import ValidationError

from monitoring.api.batch_validation import _Fallback, _fast, validated_batch, validated_transfer
from monitoring.api.ingest_serializers import BatchRequest, IngestedTransactionRequest

EVM = "0x52908400098527886E0F7030069857D2E4169EE7"  # EIP-55 mixed case
ITEM = {"chain_id": 1, "from_address": EVM, "to_address": "0x" + "ab" * 20, "amount": "00150.2500", "asset": "USDC",
        "timestamp": "2026-03-01T12:00:00Z", "tx_hash": "0xABCDEF", "log_index": 3,
        "entity_id": "6f1c2d9e-1b7a-4c9e-9d6f-3b2a1c0d9e8f", "reference": " ref-1 "}


def serializer_result(body):
    serializer = BatchRequest(data=body)
    if serializer.is_valid():
        return "ok", serializer.validated_data
    return "error", serializer.errors


def validator_result(body):
    try:
        return "ok", validated_batch(body)
    except ValidationError as exc:
        return "error", exc.detail


def with_item(**changes):
    item = {**ITEM, **changes}
    return {"transactions": [{k: v for k, v in item.items() if v is not DROP}]}


DROP = object()

VALID = [
    {"transactions": [ITEM]},
    {"transactions": [ITEM] * 3, "run_monitoring": False},
    with_item(chain_id=0, from_address="  acct-1 ", to_address="psp-00001", asset="USD"),
    with_item(chain_id=DROP, from_address="acct-1", to_address="acct-2"),
    with_item(tx_hash=DROP, log_index=DROP, entity_id=DROP, asset=DROP, reference=DROP),
    with_item(tx_hash="", entity_id=None, asset="", reference=""),
    with_item(tx_hash="   "),
    with_item(chain_id=0, tx_hash="0xABC"),  # kept as sent off-chain
    with_item(amount="1" * 78, timestamp="2026-03-01T12:00:00.123456+02:00"),
    with_item(amount="0.000000000000000000000000000000000001", timestamp="2026-03-01 12:00"),
    with_item(entity_id="6F1C2D9E1B7A4C9E9D6F3B2A1C0D9E8F"),
    with_item(to_address="0x" + "AB" * 20),
    with_item(chain_id=2**63 - 1, log_index=2**31 - 1),
]

OTHER = [
    [], "text", {"transactions": []}, {"transactions": {}}, {"transactions": [ITEM], "extra": 1},
    {"transactions": [ITEM] * 1001}, {"transactions": [ITEM], "run_monitoring": "false"},
    {"transactions": [ITEM], "run_monitoring": None}, {"run_monitoring": True}, {"transactions": [ITEM, "x"]},
    with_item(extra="x"), with_item(run_monitoring=False), with_item(from_address=DROP), with_item(amount=DROP),
    with_item(timestamp=DROP), with_item(from_address=""), with_item(from_address="   "), with_item(from_address=None),
    with_item(from_address=12), with_item(from_address="0x123"), with_item(to_address=EVM.lower()[:-1] + "X"),
    with_item(from_address="0x52908400098527886e0F7030069857D2E4169EE7"), with_item(chain_id=0, from_address="a" * 201),
    with_item(amount="-1"), with_item(amount="1e5"), with_item(amount=""), with_item(amount=150), with_item(amount=1.5),
    with_item(amount=True), with_item(amount="9" * 79), with_item(amount="1." + "1" * 37), with_item(amount="١٢٣"),
    with_item(amount="0" * 5000 + "x"), with_item(timestamp="1969-12-31T23:59:59Z"),
    with_item(timestamp="yesterday"), with_item(timestamp=""), with_item(timestamp=None), with_item(timestamp=1700000000),
    with_item(timestamp="2026-02-30T00:00:00Z"), with_item(chain_id="1"), with_item(chain_id=-1), with_item(chain_id=2**63),
    with_item(chain_id=1.0), with_item(chain_id=True), with_item(chain_id=None), with_item(log_index="0"),
    with_item(log_index=2**31), with_item(tx_hash=None), with_item(tx_hash="h" * 101), with_item(tx_hash=5),
    with_item(entity_id="not-a-uuid"), with_item(entity_id=5), with_item(entity_id=""), with_item(asset="A" * 21),
    with_item(asset=None), with_item(reference="r" * 201), with_item(reference="a\x00b"), with_item(reference="café"),
    with_item(chain_id=0, from_address="acct\ud800"),
]


@pytest.mark.parametrize("body", VALID)
def test_valid_bodies_take_the_fast_path_with_the_serializers_data(body):
    expected = serializer_result(copy.deepcopy(body))
    assert expected[0] == "ok"
    fast = _fast(copy.deepcopy(body))
    assert fast == expected[1]
    assert [list(item) for item in fast["transactions"]] == [list(item) for item in expected[1]["transactions"]]  # key order
    for got, want in zip(fast["transactions"], expected[1]["transactions"], strict=True):
        assert {k: type(v) for k, v in got.items()} == {k: type(v) for k, v in want.items()}
        assert isinstance(got["timestamp"], datetime) and got["timestamp"].tzinfo == want["timestamp"].tzinfo
        assert got.get("entity_id") is None or isinstance(got["entity_id"], uuid.UUID)


@pytest.mark.parametrize("body", OTHER, ids=range(len(OTHER)))
def test_other_bodies_get_the_serializers_answer(body):
    assert validator_result(copy.deepcopy(body)) == serializer_result(copy.deepcopy(body))


def test_other_bodies_leave_the_fast_path():
    # Some are valid to the serializer (a chain_id sent as "1", an integer amount, a non-ASCII
    # reference): the serializer accepts them, in its own way.
    assert sum(serializer_result(copy.deepcopy(body))[0] == "ok" for body in OTHER) >= 5
    for body in OTHER:
        with pytest.raises(_Fallback):
            _fast(copy.deepcopy(body))


SINGLE_VALID = [dict(ITEM), {**ITEM, "run_monitoring": False}, {k: v for k, v in ITEM.items() if k not in ("tx_hash", "chain_id")}]
SINGLE_OTHER = [{**ITEM, "run_monitoring": "no"}, {**ITEM, "run_monitoring": None}, {**ITEM, "extra": 1}, [ITEM],
                {**ITEM, "amount": "1e3"}, {**ITEM, "chain_id": "1"}, {k: v for k, v in ITEM.items() if k != "timestamp"}]


def single_serializer_result(body):
    serializer = IngestedTransactionRequest(data=body)
    if serializer.is_valid():
        return "ok", serializer.validated_data
    return "error", serializer.errors


@pytest.mark.parametrize("body", SINGLE_VALID + SINGLE_OTHER, ids=range(len(SINGLE_VALID + SINGLE_OTHER)))
def test_single_transfer_bodies_get_the_serializers_data_or_errors(body):
    expected = single_serializer_result(copy.deepcopy(body))
    try:
        got = "ok", validated_transfer(copy.deepcopy(body))
    except ValidationError as exc:
        got = "error", exc.detail
    assert got == expected
    if got[0] == "ok":
        assert list(got[1]) == list(expected[1])
