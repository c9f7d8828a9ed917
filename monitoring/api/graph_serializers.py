"""The counterparty graph's query and answer (monitoring.graph.selectors)."""

from rest_framework import serializers

from monitoring.graph.selectors import DEFAULT_DAYS, DEFAULT_LIMIT, MAX_DAYS, MAX_LIMIT


class CounterpartyGraphQuery(serializers.Serializer):
    days = serializers.IntegerField(min_value=1, max_value=MAX_DAYS, default=DEFAULT_DAYS, help_text="The period: the last N days.")
    hops = serializers.IntegerField(min_value=1, max_value=2, default=2, help_text="1: the entity's counterparties; 2: theirs too.")
    limit = serializers.IntegerField(min_value=1, max_value=MAX_LIMIT, default=DEFAULT_LIMIT,
                                     help_text="The most counterparties shown (hop 1 and hop 2 together), the largest by USD amount.")
    alert_id = serializers.UUIDField(required=False, help_text="Highlight the transfers of this alert of the entity.")
    case_id = serializers.UUIDField(required=False, help_text="Highlight the transfers of this case of the entity.")

    def validate(self, attrs):
        if attrs.get("alert_id") and attrs.get("case_id"):
            raise serializers.ValidationError({"case_id": "Give alert_id or case_id, not both."})
        return attrs


class GraphNode(serializers.Serializer):
    id = serializers.CharField(help_text="entity:<uuid> for a customer, address:<chain_id>:<address> for an outside address.")
    kind = serializers.ChoiceField(choices=["subject", "customer", "address"])
    hop = serializers.IntegerField(help_text="0 the entity itself, 1 its counterparty, 2 a counterparty's counterparty.")
    label = serializers.CharField(help_text="The customer's legal name, or the address shortened.")
    entity_id = serializers.UUIDField(allow_null=True)
    status = serializers.CharField(allow_null=True, help_text="The customer's status (entities only).")
    chain_id = serializers.IntegerField(allow_null=True)
    address = serializers.CharField(allow_null=True)
    amount_usd = serializers.DecimalField(max_digits=30, decimal_places=2,
                                          help_text="USD moved with the entity (hop 1) or with the hop-1 nodes (hop 2).")
    transfer_count = serializers.IntegerField()
    tags = serializers.ListField(child=serializers.CharField(), help_text="The organization's address tags (mixer, darknet, ...).")
    sanctioned = serializers.CharField(allow_null=True, help_text="The list that puts the address off limits, if any.")
    open_alerts = serializers.IntegerField(help_text="Alerts of the customer not yet disposed.")
    highlighted = serializers.BooleanField(help_text="On a transfer of the alert or case asked for.")


class GraphEdge(serializers.Serializer):
    source = serializers.CharField()
    target = serializers.CharField()
    amount_usd = serializers.DecimalField(max_digits=30, decimal_places=2, help_text="Sum of the priced transfers.")
    transfer_count = serializers.IntegerField()
    unpriced_count = serializers.IntegerField(help_text="Transfers without a USD price (counted, not summed).")
    highlighted = serializers.BooleanField()


class GraphCut(serializers.Serializer):
    ranked_by = serializers.CharField()
    counterparties_total = serializers.IntegerField()
    counterparties_shown = serializers.IntegerField()
    second_hop_total = serializers.IntegerField()
    second_hop_shown = serializers.IntegerField()
    edges_total = serializers.IntegerField()
    edges_shown = serializers.IntegerField()
    truncated = serializers.BooleanField()


class CounterpartyGraphResponse(serializers.Serializer):
    entity_id = serializers.UUIDField()
    from_date = serializers.DateTimeField()
    to_date = serializers.DateTimeField()
    days = serializers.IntegerField()
    hops = serializers.IntegerField()
    limit = serializers.IntegerField()
    nodes = GraphNode(many=True)
    edges = GraphEdge(many=True)
    cut = GraphCut(help_text="How many there were and how many are shown.")
    highlighted_transfers = serializers.IntegerField(help_text="Transfers of the alert or case, among all edges shown or not.")
