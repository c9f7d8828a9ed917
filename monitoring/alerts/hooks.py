"""What follows a batch's alerts, in the same transaction: new alerts join their entity's case
(issue 5: a new alert joins the entity's open case or opens one), and the touched entities' risk
scores are recomputed by a worker after commit (alert history feeds the risk score)."""

from monitoring import risk_feed


def after_alerts(*, organization, mode: str, opened: list, touched_entity_ids: set) -> None:
    from filings.cases.attach import cases_attach_opened

    if opened:
        cases_attach_opened(organization=organization, mode=mode, alerts=opened)
    risk_feed.schedule(touched_entity_ids, reason="alerts opened or extended")


def after_disposition(*, alert, by) -> None:
    """In the disposition's transaction: the alert's case (if any) records it on its timeline."""
    from filings.cases.attach import case_note_disposition

    case_note_disposition(alert=alert, by=by)


def after_orphaned(*, transaction_ids: list, chain_id: int, fork: int) -> int:
    """In the orphaning's transaction: the cases of the alerts that link these (now orphaned) transfers note it on their
    timelines. Returns the notes written."""
    from filings.cases.attach import case_note_orphaned
    from monitoring.models import Alert

    links = [(alert, tx) for alert in Alert.objects.filter(transactions__in=transaction_ids).distinct()
             for tx in alert.transactions.filter(pk__in=transaction_ids)]
    return case_note_orphaned(links=links, chain_id=chain_id, fork=fork) if links else 0
