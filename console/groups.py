"""The console's model groups follow the work, not the Django apps: the index and the sidebar list
Work queues, Customers, Reports and filings, Information sharing, Configuration, then System (the
plumbing: outbox, audit trail, e-mail addresses, beat tables), which only admins see."""

WORK_QUEUES = "Work queues"
CUSTOMERS = "Customers"
REPORTS = "Reports and filings"
INFORMATION_SHARING = "Information sharing"
CONFIGURATION = "Configuration"
SYSTEM = "System"

GROUPS: dict[str, tuple[str, ...]] = {  # model labels (lower case), in the order they are listed
    WORK_QUEUES: ("monitoring.alert", "filings.case", "onboarding.screeninghit", "monitoring.fincen314amatch"),
    CUSTOMERS: ("onboarding.entity", "onboarding.compliancecheck", "compliance.onchainstatusupdate"),
    REPORTS: ("filings.filingrecord",),
    INFORMATION_SHARING: ("monitoring.fincen314afile", "monitoring.fincen314brequest", "monitoring.fincen314bpartner",
                          "compliance.travelruletransfer", "compliance.inboundtravelruletransfer", "compliance.counterpartyvasp"),
    CONFIGURATION: ("monitoring.rulesetting", "monitoring.blockedaddress", "monitoring.addresstag", "monitoring.codelistentry",
                    "monitoring.assetprice", "onboarding.screeninglistsetting", "onboarding.kybpolicy", "compliance.travelrulepolicy",
                    "onboarding.sanctionslist", "onboarding.sanctionslistversion", "onboarding.sanctionsrefresh",
                    "organizations.organization", "organizations.membership", "organizations.invitation", "accounts.user",
                    "accounts.ssoconnection", "organizations.apikey", "webhooks.webhookendpoint"),
    SYSTEM: ("common.auditlogentry", "webhooks.event", "webhooks.delivery", "webhooks.inboundcallback", "common.outboundemail",
             "accounts.sessiontoken", "account.emailaddress", "compliance.chain", "compliance.chaintransaction",
             "django_celery_beat.periodictask", "django_celery_beat.intervalschedule", "django_celery_beat.crontabschedule",
             "django_celery_beat.clockedschedule", "django_celery_beat.solarschedule"),
}
GROUP_OF = {label: group for group, labels in GROUPS.items() for label in labels}
POSITION = {label: position for labels in GROUPS.values() for position, label in enumerate(labels)}


def group_of(label: str) -> str:
    """A model's group by its label ("monitoring.alert"); a model no one placed is plumbing."""
    return GROUP_OF.get(label.lower(), SYSTEM)
