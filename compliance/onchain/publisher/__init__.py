"""The status publisher (docs/oracle.md, "Publishing"): pending OnchainStatusUpdate rows of a chain become
setStatuses transactions signed with the chain's signer key (CHAIN_SIGNER_KEY_<chain_id>, never stored).

One pass (`run.publish_pass`):
1. tracks the chain's transactions (`tracking`): without a receipt the stored signed bytes are broadcast again
   (identical, so never a second transaction for one nonce), or, stuck past ONCHAIN_STUCK_AFTER, replaced with the
   same nonce and rows and fees raised by at least 12.5 % (`signing.replace`); of a nonce's attempts the mined one
   wins; a reverted receipt puts its rows back to pending; a successful one `confirmations` deep, whose block is
   still the chain's block at that height, confirms them; a block reorganised away sends the same bytes again;
2. under the chain row's lock and the pending rows' (skip_locked), keeps each wallet's latest pending row (the
   others become superseded), signs batches of up to batch_size with nonces from Chain.next_nonce, and stores
   each signed transaction (and marks its rows published) before anything is broadcast (`signing.sign_pending`);
3. broadcasts what it signed, then tracks again.

Modules: `common` (RPC connection with timeout and retries, signer, broadcast), `signing`, `tracking`, `run`,
`deploy` (manage.py deploy_oracle).
"""

from compliance.onchain.publisher.common import (
    PassResult,
    PublisherError,
    broadcast,
    connect,
    rpc_urls,
    signer_account,
    signer_address,
)
from compliance.onchain.publisher.deploy import deploy_oracle
from compliance.onchain.publisher.run import publish_pass

__all__ = ["PassResult", "PublisherError", "broadcast", "connect", "deploy_oracle", "publish_pass", "rpc_urls", "signer_account",
           "signer_address"]
