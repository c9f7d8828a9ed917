"""After evaluation: `monitored = true` on every evaluated record, and its evaluation record (the
rules skipped and why) where there is one.

Ingestion stores records it is about to evaluate with `monitored` already true (insert and
evaluation share one database transaction, so no one sees the difference), so the usual live
batch needs no UPDATE at all; `run_monitoring` marks what it loaded unmonitored. Evaluation
records are written in one statement on PostgreSQL (one per distinct record elsewhere).
"""

import json
from collections import defaultdict

from psycopg.types.json import Jsonb

from common.pg import on_postgres, pg_rows, uuid_list
from monitoring.models import FiatEvent, Transaction

EVALUATION_SQL = """UPDATE {table} AS t SET evaluation = v.evaluation
FROM unnest(%(ids)b::uuid[], %(evaluations)b::jsonb[]) AS v(id, evaluation) WHERE t.id = v.id RETURNING t.id"""


def mark_monitored(transactions, fiat_events, skips: dict[str, list[dict]], shadow: dict[str, list[dict]] | None = None) -> None:
    """`shadow`: per event, the hits of rules in shadow mode (written beside the skips)."""
    for model, records in ((Transaction, transactions), (FiatEvent, fiat_events)):
        if records:
            _mark(model, records, skips, shadow or {})


def _mark(model, records, skips: dict[str, list[dict]], shadow: dict[str, list[dict]]) -> None:
    unmarked = [record.pk for record in records if not record.monitored]
    if unmarked:
        model.objects.filter(pk__in=unmarked).update(monitored=True)
    evaluations = {}
    for record in records:
        record.monitored = True
        pk = str(record.pk)
        if skips.get(pk) or shadow.get(pk):
            record.evaluation = {"skipped": skips.get(pk, []), **({"shadow": shadow[pk]} if shadow.get(pk) else {})}
            evaluations[pk] = record.evaluation
    if evaluations and on_postgres():
        pg_rows(EVALUATION_SQL.format(table=model._meta.db_table),
            {"ids": uuid_list(evaluations), "evaluations": [Jsonb(value) for value in evaluations.values()]})
    elif evaluations:
        by_content: dict[str, list] = defaultdict(list)
        for pk, evaluation in evaluations.items():
            by_content[json.dumps(evaluation, sort_keys=True)].append(pk)
        for content, ids in by_content.items():
            model.objects.filter(pk__in=ids).update(evaluation=json.loads(content))
