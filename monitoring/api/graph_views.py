"""GET /v1/onboarding/entities/{entity_id}/counterparty-graph: the entity's counterparties up to two hops."""

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from common.api.serializers import validated_query
from common.errors import NotFound
from filings.cases.selectors import case_transactions
from filings.models import Case
from monitoring.api.alert_views import EntityScopedView
from monitoring.api.graph_serializers import CounterpartyGraphQuery, CounterpartyGraphResponse
from monitoring.graph.selectors import counterparty_graph
from monitoring.models import Alert

DESCRIPTION = """The entity's counterparties over the last `days` days, and with `hops=2` theirs, as nodes and edges
weighted by USD amount and number of transfers. Customers, tagged and sanctioned addresses and customers with open
alerts are marked; with `alert_id` or `case_id` (of this entity) the transfers of that alert or case are highlighted.
A large neighbourhood is cut to the `limit` largest counterparties by USD amount (half of them for hop 2 when
`hops=2`), the entity's own edges all kept and other edges up to four per node; `cut` says how many there were."""


class CounterpartyGraphView(EntityScopedView):
    @extend_schema(operation_id="entity_counterparty_graph", responses={200: CounterpartyGraphResponse}, description=DESCRIPTION,
                   tags=["onboarding: alerts and transfers"],
                   parameters=[CounterpartyGraphQuery])  # each field with its bounds and default
    def get(self, request, entity_id):
        entity, query = self.entity(entity_id), validated_query(CounterpartyGraphQuery, request)
        highlight = self.highlighted(entity, query.pop("alert_id", None), query.pop("case_id", None))
        graph = counterparty_graph(organization=entity.organization, mode=entity.mode, entity=entity, highlight_transactions=highlight,
                                   **query)
        return Response(CounterpartyGraphResponse(graph).data)

    @staticmethod
    def highlighted(entity, alert_id, case_id):
        """The transfers of the alert or case named, which must be the entity's own (else a 404)."""
        if alert_id:
            alert = Alert.objects.filter(pk=alert_id, organization=entity.organization, mode=entity.mode, entity=entity).first()
            if alert is None:
                raise NotFound("No alert of this entity has this id.")
            return alert.transactions.all()
        if case_id:
            case = Case.objects.filter(pk=case_id, organization=entity.organization, mode=entity.mode, entity=entity).first()
            if case is None:
                raise NotFound("No case of this entity has this id.")
            return case_transactions(case)
        return None
