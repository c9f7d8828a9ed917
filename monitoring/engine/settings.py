"""The organization's engine settings for a batch, built once per distinct content.

The stored rule settings are read for every batch (one small query), so a change made anywhere
applies to the next batch in every process; what is remembered is only the EngineSettings built
from a given content (validating fifty rules' parameters costs more than the query). Same result as
monitoring.configuration.selectors.engine_settings(organization).
"""

import json
import threading
from collections import OrderedDict

from monitoring.models import RuleSetting
from monitoring.rules import EngineSettings
from monitoring.rules import RuleSetting as EngineRuleSetting

MAX_ENTRIES = 64
_built: "OrderedDict[str, EngineSettings]" = OrderedDict()
_lock = threading.Lock()


def batch_settings(organization) -> EngineSettings:
    rows = list(RuleSetting.objects.filter(organization=organization).order_by("rule_code").values_list(
        "rule_code", "enabled", "parameters", "severity", "shadow"))
    key = json.dumps(rows, sort_keys=True, default=str)
    with _lock:
        found = _built.get(key)
        if found is not None:
            _built.move_to_end(key)
            return found
    built = EngineSettings.build({code: EngineRuleSetting(enabled=enabled, parameters=parameters, severity=severity or None,
                                                          shadow=shadow)
                                  for code, enabled, parameters, severity, shadow in rows})
    with _lock:
        _built[key] = built
        while len(_built) > MAX_ENTRIES:
            _built.popitem(last=False)
    return built
