"""Template helpers of the console's alert, case and entity pages: shortened addresses, collapsed
timelines, pages of 25 transfers."""

from django import template
from django.core.paginator import Paginator

from monitoring.graph.selectors import short_address

register = template.Library()
TRANSFERS_PER_PAGE = 25

register.filter("short_address", short_address)


def transfers_page(request, transfers, parameter: str = "tx_page"):
    """The page of `transfers` the query string asks for (25 a page; an unknown page is the last)."""
    page = Paginator(transfers, TRANSFERS_PER_PAGE).get_page(request.GET.get(parameter))
    page.numbers = list(page.paginator.get_elided_page_range(page.number, on_each_side=2, on_ends=1))  # 1 2 … 7 8 9 … 40
    return page


def collapsed(events, same=lambda event: (event.kind, event.actor_label, event.body, str(event.data))):
    """Runs of identical timeline steps (same kind, actor and text) as one row each: [(first, last, count)]."""
    rows: list[list] = []
    for event in events:
        if rows and same(rows[-1][1]) == same(event):
            rows[-1][1], rows[-1][2] = event, rows[-1][2] + 1
        else:
            rows.append([event, event, 1])
    return [tuple(row) for row in rows]
