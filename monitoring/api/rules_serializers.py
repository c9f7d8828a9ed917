from rest_framework import serializers

from common.api.fields import ChoiceField, StrictBooleanField
from common.api.serializers import StrictSerializer
from monitoring.choices import Severity
from monitoring.rules import Family


class SeverityField(ChoiceField):
    """A severity, documented as the one SeverityEnum component (settings.SPECTACULAR_SETTINGS)."""

    def __init__(self, **kwargs):
        super().__init__(choices=Severity.choices, **kwargs)


class RuleListQuery(StrictSerializer):
    family = ChoiceField(choices=[str(family) for family in Family], required=False)
    enabled = serializers.BooleanField(required=False, allow_null=True, default=None)


class RuleSettingPatch(StrictSerializer):
    enabled = StrictBooleanField(required=False)
    parameters = serializers.DictField(required=False, help_text=(
        "Overrides by parameter name, merged with the stored ones; null resets a parameter to its default."))
    severity = SeverityField(required=False, allow_null=True, help_text="Overrides the default severity; null restores it.")
    shadow = StrictBooleanField(required=False, help_text=(
        "Shadow mode: the rule is evaluated and its would-be hits recorded on the events' evaluation, but it raises no alert."))

    def validate_severity(self, value):
        return value or ""  # the service's "restore the default"


class ParameterSchema(serializers.Serializer):
    name = serializers.CharField()
    type = ChoiceField(choices=["decimal", "percent", "integer", "hours", "days", "strings", "dates", "text", "timezone"])
    default = serializers.JSONField()
    description = serializers.CharField()
    minimum = serializers.JSONField(required=False, help_text="A number for whole-number types, a decimal string otherwise.")
    maximum = serializers.JSONField(required=False)
    choices = serializers.ListField(child=serializers.CharField(), required=False)


class RuleResponse(serializers.Serializer):
    number = serializers.IntegerField()
    code = serializers.CharField()
    family = ChoiceField(choices=[str(family) for family in Family])
    enabled = serializers.BooleanField()
    shadow = serializers.BooleanField(help_text="Evaluated and recorded, but raises no alert.")
    severity = SeverityField(help_text="In force: the organization's override or the default.")
    default_severity = SeverityField()
    score = serializers.IntegerField(help_text="What a hit adds to the entity risk score.")
    parameters = serializers.DictField(help_text="In force: defaults with the organization's overrides.")
    overrides = serializers.DictField(help_text="The organization's overrides only.")
    defaults = serializers.DictField()
    parameter_schema = ParameterSchema(many=True)
    override_errors = serializers.DictField(child=serializers.ListField(child=serializers.CharField()),
                                            help_text="Stored overrides the rule no longer accepts (normally empty).")
    fires_when = serializers.CharField()
    typology = serializers.CharField()
    applies_to = serializers.ListField(child=serializers.CharField())
    value_based = serializers.BooleanField()
    lists = serializers.ListField(child=serializers.CharField(), help_text="The organization's lists the rule reads.")
    updated_at = serializers.DateTimeField(allow_null=True)
    updated_by = serializers.CharField(allow_null=True)


class CountSummary(serializers.Serializer):
    count = serializers.IntegerField()


class TagSummary(CountSummary):
    by_category = serializers.DictField(child=serializers.IntegerField())


class SanctionsAddressSummary(CountSummary):
    by_list = serializers.DictField(child=serializers.IntegerField())
    category = serializers.CharField(help_text="The address-tag category these addresses count as.")


class CodeListSummary(CountSummary):
    codes = serializers.ListField(child=serializers.CharField(), help_text="In force: the stored codes, or the defaults if none.")
    defaults_in_use = serializers.BooleanField()


class ListsSummary(serializers.Serializer):
    asset_prices = CountSummary()
    address_tags = TagSummary()
    sanctions_addresses = SanctionsAddressSummary()
    sanctions_names = CountSummary()
    blocked_addresses = CountSummary()
    high_risk_jurisdictions = CodeListSummary()
    privacy_assets = CodeListSummary()
    high_risk_mccs = CodeListSummary()


class RuleListResponse(serializers.Serializer):
    data = RuleResponse(many=True)
    total = serializers.IntegerField()
    lists = ListsSummary()
