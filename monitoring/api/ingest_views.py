from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from common.api.serializers import validated
from common.api.views import V1APIView
from monitoring.api import ingest_serializers as s
from monitoring.api.batch_validation import validated_batch, validated_transfer
from monitoring.ingestion import services

TAGS = ["monitoring: ingestion"]


class TransferIngestView(V1APIView):
    minimum_role = services.INGEST_ROLE

    @extend_schema(operation_id="monitoring_transfers_ingest", request=s.IngestedTransactionRequest,
                   responses={200: s.IngestResponse}, tags=TAGS,
                   description="Store one transaction and (unless run_monitoring is false) evaluate the 53 rules. "
                               "A known (chain_id, tx_hash, log_index) returns the stored record, not evaluated again.")
    def post(self, request):
        item = validated_transfer(request.data)
        run = item.pop("run_monitoring")
        outcome = services.transaction_ingest(principal=request.auth, item=item, run_monitoring=run)
        record = outcome.record
        return Response(s.IngestResponse({"id": record.pk, "tx_hash": record.tx_hash, "monitored": record.monitored,
                                          "alerts_triggered": outcome.alerts_triggered, "duplicate": not outcome.created}).data)


class TransferBatchView(V1APIView):
    minimum_role = services.INGEST_ROLE

    @extend_schema(operation_id="monitoring_transfers_batch", request=s.BatchRequest, responses={200: s.BatchResponse}, tags=TAGS)
    def post(self, request):
        body = validated_batch(request.data)
        outcome = services.transactions_ingest_batch(principal=request.auth, items=body["transactions"],
                                                     run_monitoring=body["run_monitoring"])
        return Response(s.BatchResponse(outcome).data)


class FiatEventIngestView(V1APIView):
    minimum_role = services.INGEST_ROLE

    @extend_schema(operation_id="monitoring_fiat_events_ingest", request=s.FiatEventRequest, responses={200: s.FiatEventResponse},
                   tags=TAGS)
    def post(self, request):
        item = validated(s.FiatEventRequest, request.data)
        run = item.pop("run_monitoring")
        outcome = services.fiat_event_ingest(principal=request.auth, item=item, run_monitoring=run)
        record = outcome.record
        return Response(s.FiatEventResponse({"id": record.pk, "entity_id": record.entity_id, "event_type": record.event_type,
                                             "monitored": record.monitored, "alerts_triggered": outcome.alerts_triggered,
                                             "duplicate": not outcome.created}).data)
