"""The console's dates and times in one unambiguous form, as its own columns (SLA due, audit trail,
transactions) already print them: 2026-12-02 12:50:00, UTC (settings.TIME_ZONE), rather than
Django's English 'Dec. 2, 2026, 12:50 p.m.' beside them. Input formats stay Django's."""

DATE_FORMAT = "Y-m-d"
SHORT_DATE_FORMAT = "Y-m-d"
TIME_FORMAT = "H:i:s"
DATETIME_FORMAT = "Y-m-d H:i:s T"  # T: the zone, UTC
SHORT_DATETIME_FORMAT = "Y-m-d H:i T"
MONTH_DAY_FORMAT = "m-d"
YEAR_MONTH_FORMAT = "Y-m"
