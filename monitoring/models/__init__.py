"""The monitoring app's models, one module per aggregate. Keep this file a plain list of imports."""

from monitoring.models.activity import FiatEvent, Transaction  # noqa: F401
from monitoring.models.alerts import Alert, AlertHit  # noqa: F401
from monitoring.models.backtests import BacktestJob  # noqa: F401
from monitoring.models.configuration import (  # noqa: F401
    AddressTag,
    AssetPrice,
    BlockedAddress,
    CodeListEntry,
    RuleSetting,
)
from monitoring.models.fincen314a import Fincen314aFile, Fincen314aMatch, Fincen314aSubject  # noqa: F401
from monitoring.models.fincen314b import Fincen314bPartner, Fincen314bRequest  # noqa: F401
from monitoring.models.indexer import ChainCursor, IndexedToken, IndexedTransfer  # noqa: F401
from monitoring.models.labels import EntityLabel  # noqa: F401
from monitoring.models.notifications import Notification, NotificationType  # noqa: F401
