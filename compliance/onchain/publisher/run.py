"""One pass of the publisher over a chain: track, sign the pending rows, track again."""

from django.utils import timezone

from compliance.models import Chain
from compliance.onchain.publisher.common import PassResult, connect, note_error, signer_key
from compliance.onchain.publisher.signing import sign_pending
from compliance.onchain.publisher.tracking import track


def publish_pass(chain_id: int, *, progress=None, require_enabled: bool = True) -> PassResult:
    """One pass over chain `chain_id` (see the package's docstring). `progress(line)` hears what it does. Any failure
    (an RPC that refuses or times out once its retries are spent) is recorded on the chain's last_error and raised:
    what was stored stays, and the next pass carries on from it."""
    say = progress or (lambda line: None)
    result = PassResult(chain_id)
    chain = Chain.objects.filter(chain_id=chain_id).first()
    why = ("no such chain" if chain is None else "disabled" if require_enabled and not chain.enabled
           else "no oracle deployed (manage.py deploy_oracle)" if not chain.oracle_address
           else f"CHAIN_SIGNER_KEY_{chain_id} is not set" if not signer_key(chain_id) else "")
    if why:
        result.skipped = why
        say(f"chain {chain_id}: skipped, {why}")
        return result
    try:
        w3 = connect(chain)
        track(chain, w3, result, say)
        sign_pending(chain, w3, result, say)
        track(chain, w3, result, say)
    except Exception as error:
        note_error(chain, f"{type(error).__name__}: {error}")
        raise
    Chain.objects.filter(pk=chain.pk).exclude(last_error="").update(last_error="", updated_at=timezone.now())
    return result
