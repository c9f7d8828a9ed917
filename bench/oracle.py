"""The compliance oracle's figures (issue 25; docs/oracle.md, "Speed"), on local anvil nodes.

    .venv/bin/python bench/oracle.py            # 10,000 wallets per batch size, 200 status changes
    .venv/bin/python bench/oracle.py --quick    # 1,000 wallets per batch size, 30 status changes

Runs on a throw-away DATA_DIR (its own SQLite database and filesystem broker, what `make run` uses),
removed at the end; the user's database is never opened. Prints:

1. The contract's gas (bench/oracle_gas.py's figures): setStatuses per wallet at batch sizes 1, 10,
   100 and 200, and what a statusOf read costs a calling contract.
2. Publishing --wallets wallet updates through the real publisher (compliance.onchain.publisher.
   publish_pass, again at each new block until every row is confirmed), on an anvil mining a block
   every --block-time seconds, at each chain batch size 1, 10, 100 and 200 (new wallets each time, so
   first writes): wallets confirmed per second from the first pass's start to the last row confirmed,
   the time to the last transaction signed and the first pass's time (from the publisher's progress
   lines), the transactions broadcast again by later passes, and gas per wallet from the receipts
   (what the chain charged, 21,000 per transaction included). The rows are written as an entity-level
   change writes them: entities and wallets bulk-created, then compliance.services.onchain_updates_write
   per entity (the chain disabled while they are written, so no task is enqueued: nothing but the bench
   runs the publisher then).
3. Latency: a real Celery worker (concurrency 2) and beat, started as `make run` starts them, with the
   default beat interval (config/celery.py), and an anvil mining a block every --block-time seconds;
   --changes entities are suspended through onboarding.services.entity_review (its transaction
   writes the rows and enqueues the publisher on commit) at random intervals (uniform, mean --gap
   seconds). For each change, from its commit: to its rows signed into a transaction (published_at),
   to its block (the block's timestamp: whole seconds) and to its rows confirmed with 1 confirmation
   (confirmed_at, written by the worker); median, p95, p99 and max.
Figures are printed; nothing is asserted (goals: at most 30,000 gas per wallet at batch 100; p99 from
commit to confirmed at most 10 s; statusOf at most 5,000 gas).
"""

import argparse
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from compliance.onchain.anvil import CHAIN_ID as LOCAL  # noqa: E402
from compliance.onchain.anvil import Anvil  # noqa: E402

BATCHES = (1, 10, 100, 200)
# anvil's first default account (its well-known test mnemonic): the chain's signer, set only in the environment.
SIGNER_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"


def say(line: str) -> None:
    print(line, flush=True)


def percentile(values: list[float], share: float) -> float:
    """Nearest rank: the smallest value with at least `share` of the values at or below it."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def summary(values: list[float]) -> str:
    return (f"median {statistics.median(values):5.2f}  p95 {percentile(values, 0.95):5.2f}  p99 {percentile(values, 0.99):5.2f}  "
            f"max {max(values):5.2f}")


def setup_django(data_dir: Path) -> None:
    """This process and the worker and beat it starts: the throw-away DATA_DIR, its SQLite file, its filesystem broker."""
    os.environ.update({"DATA_DIR": str(data_dir), "DATABASE_URL": f"sqlite:///{data_dir / 'db.sqlite3'}",
                       "CELERY_BROKER_URL": "filesystem://localhost//", "CELERY_TASK_ALWAYS_EAGER": "false",
                       "LOG_LEVEL": "WARNING", "DJANGO_SETTINGS_MODULE": "config.settings",
                       f"CHAIN_SIGNER_KEY_{LOCAL}": SIGNER_KEY})
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", "--noinput", verbosity=0)
    call_command("createcachetable", verbosity=0)


def organization():
    from accounts.services import user_create_verified
    from organizations.services import organization_create

    user = user_create_verified(email="bench-oracle@example.com", password="bench-oracle-Pa55!")
    return organization_create(actor=user, name="Oracle bench", slug="oracle-bench")


def new_entities(org, count: int, wallets_each: int, *, status: str, tag: str) -> list:
    """`count` entities of `status`, each with `wallets_each` active wallets on the local chain (bulk-created)."""
    from onboarding.models import Entity, Wallet

    entities = Entity.objects.bulk_create([
        Entity(organization=org, mode="live", legal_name=f"Oracle bench {tag} {i}", entity_type="business", jurisdiction="US",
               status=status, risk_score=50, risk_tier="medium") for i in range(count)], batch_size=1000)
    Wallet.objects.bulk_create([
        Wallet(organization=org, mode="live", entity=entity, chain_id=LOCAL, address="0x" + random.randbytes(20).hex())
        for entity in entities for _ in range(wallets_each)], batch_size=2000)
    return entities


def node_chain(node: Anvil, *, batch_size: int = 100):
    """The local Chain row pointed at `node` (CHAIN_RPC_URL_31337), a fresh oracle deployed, enabled."""
    from compliance.models import Chain
    from compliance.onchain.publisher import deploy_oracle

    os.environ[f"CHAIN_RPC_URL_{LOCAL}"] = node.url
    Chain.objects.filter(chain_id=LOCAL).update(enabled=False, oracle_address="", next_nonce=None, batch_size=batch_size, confirmations=1)
    deploy_oracle(LOCAL)
    Chain.objects.filter(chain_id=LOCAL).update(enabled=True)
    return Chain.objects.get(chain_id=LOCAL)


class Progress:
    """The publisher's progress lines: when the last transaction was signed, and a line every 1,000 signed
    (one pass may sign thousands)."""

    def __init__(self, started: float):
        self.started, self.signed, self.last_signed = started, 0, None

    def __call__(self, line: str) -> None:
        if " signed for " in line:
            self.signed += 1
            self.last_signed = time.perf_counter()
            if self.signed % 1000 == 0:
                say(f"    {self.signed:,} transactions signed ({self.last_signed - self.started:.0f} s)")


def next_block(w3, after: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while w3.eth.block_number <= after and time.monotonic() < deadline:
        time.sleep(0.05)


def publish_all(org, w3, size: int, count: int, wallets_each: int, block_time: float) -> dict:
    """`count` wallet updates written as the service writes them, then publish_pass until they are all confirmed: the
    next pass as soon as a new block is mined (a worker kept busy), so the figure is the publisher's and the chain's."""
    from compliance.models import Chain, ChainTransaction, OnchainStatusUpdate
    from compliance.onchain.contracts import contract_at, unpack_status
    from compliance.onchain.publisher import publish_pass
    from compliance.services import onchain_updates_write

    entities = new_entities(org, math.ceil(count / wallets_each), wallets_each, status="suspended", tag=f"batch {size}")
    Chain.objects.filter(chain_id=LOCAL).update(enabled=False, batch_size=size)  # no task enqueued while the rows are written
    started = time.perf_counter()
    for entity in entities:
        onchain_updates_write(entity=entity, reason="entity suspended")
    write_seconds = time.perf_counter() - started
    chain = Chain.objects.get(chain_id=LOCAL)
    Chain.objects.filter(pk=chain.pk).update(enabled=True)
    rows = OnchainStatusUpdate.objects.filter(entity__in=entities)
    count = rows.count()
    first_tx = ChainTransaction.objects.filter(chain=chain).count()

    started = time.perf_counter()
    progress, passes, rebroadcast, confirmed, first_pass = Progress(started), 0, 0, 0, 0.0
    last_change = started
    while confirmed < count:
        head = w3.eth.block_number
        began = time.perf_counter()
        result = publish_pass(LOCAL, progress=progress)
        passes, rebroadcast, confirmed = passes + 1, rebroadcast + result.rebroadcast, confirmed + result.confirmed
        if result.signed:
            first_pass = time.perf_counter() - began
        if result.confirmed or result.signed:
            last_change = time.perf_counter()
        elif time.perf_counter() - last_change > 120:
            say(f"    nothing confirmed for 120 s: stopping with {confirmed:,} of {count:,} confirmed")
            break
        if passes % 10 == 0:
            say(f"    pass {passes}: {confirmed:,} of {count:,} confirmed")
        if confirmed < count:
            next_block(w3, head if not result.signed else w3.eth.block_number, 4 * block_time + 2)
    seconds = time.perf_counter() - started

    hashes = list(ChainTransaction.objects.filter(chain=chain).order_by("nonce").values_list("tx_hash", flat=True)[first_tx:])
    gas = sum(w3.eth.get_transaction_receipt(tx_hash)["gasUsed"] for tx_hash in hashes)
    blocks = {w3.eth.get_transaction_receipt(tx_hash)["blockNumber"] for tx_hash in hashes}
    oracle = contract_at(w3, "ComplianceOracle", w3.to_checksum_address(chain.oracle_address))
    sample = random.sample(list(rows.values_list("address", "version")), min(50, count))
    wrong = sum(unpack_status(oracle.functions.packedStatusOf(w3.to_checksum_address(address)).call()).version != version
                for address, version in sample)
    return {"size": size, "wallets": count, "confirmed": confirmed, "write": write_seconds, "seconds": seconds, "passes": passes,
            "transactions": len(hashes), "blocks": len(blocks), "rebroadcast": rebroadcast, "gas": gas / count,
            "sign": (progress.last_signed or started) - started, "first_pass": first_pass, "wrong": wrong, "sampled": len(sample)}


def throughput(org, wallets: int, wallets_each: int, block_time: float) -> list[dict]:
    results = []
    # Mining on an interval: anvil 1.7.1's automine (a block per transaction) stops mining after a burst of a
    # few thousand transactions from one sender, the rest left pending for good; a chain has a block time anyway.
    with Anvil(block_time=block_time) as node:
        w3 = node.web3()
        node_chain(node)
        say(f"anvil {node.url} (a block every {block_time:g} s, gas limit 30M), ComplianceOracle deployed by deploy_oracle")
        for size in BATCHES:
            say(f"  batch size {size}: writing {wallets:,} rows, publishing ...")
            result = publish_all(org, w3, size, wallets, wallets_each, block_time)
            say(f"  batch size {size}: {result['confirmed']:,} of {result['wallets']:,} confirmed in {result['seconds']:.1f} s")
            results.append(result)
    return results


def start_worker_and_beat(data_dir: Path) -> list[subprocess.Popen]:
    """What `make run` starts besides the web server (common/management/commands/serve.py): a worker with
    concurrency 2 and beat (django_celery_beat's DatabaseScheduler), their output in DATA_DIR."""
    commands = {"worker": [sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel", "WARNING", "--concurrency", "2"],
                "beat": [sys.executable, "-m", "celery", "-A", "config", "beat", "--loglevel", "WARNING",
                         "--schedule", str(data_dir / "celerybeat-schedule")]}
    return [subprocess.Popen(command, cwd=ROOT, env=os.environ.copy(), start_new_session=True, stdin=subprocess.DEVNULL,
                             stdout=open(data_dir / f"{name}.log", "w"), stderr=subprocess.STDOUT)  # noqa: SIM115 - closed with the process
            for name, command in commands.items()]


def stop(processes: list[subprocess.Popen]) -> None:
    from harness import stop_process

    for process in processes:
        stop_process(process, timeout=20)


def suspend(principal, entity) -> float:
    """Suspends `entity` through the service (rows written, publisher enqueued on commit); the commit's time."""
    from onboarding.services import entity_review

    entity_review(principal=principal, entity_id=entity.pk, action="suspend", reason="bench: suspended")
    return time.time()


def wait_confirmed(entities, timeout: float) -> bool:
    from compliance.models import OnchainStatus, OnchainStatusUpdate

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not OnchainStatusUpdate.objects.filter(entity__in=entities).exclude(status=OnchainStatus.CONFIRMED).exists():
            return True
        time.sleep(0.2)
    return False


def latency(org, data_dir: Path, changes: int, wallets_each: int, block_time: float, gap: float) -> dict:
    from django.db.models import Max

    from common.principal import Principal
    from compliance.models import ChainTransaction, OnchainStatusUpdate

    principal = Principal.system(org, "live")
    entities = new_entities(org, changes + 1, wallets_each, status="active", tag="latency")
    with Anvil(block_time=block_time) as node:
        w3 = node.web3()
        chain = node_chain(node)
        transactions_before = ChainTransaction.objects.filter(chain=chain).count()
        processes = start_worker_and_beat(data_dir)
        try:
            say(f"anvil {node.url} (a block every {block_time:g} s); worker and beat started; a first change to warm up ...")
            suspend(principal, entities[0])
            if not wait_confirmed(entities[:1], 120):
                logs = "".join((data_dir / f"{name}.log").read_text()[-3000:] for name in ("worker", "beat"))
                raise SystemExit(f"the warm-up change was not confirmed within 120 s; worker and beat said:\n{logs}")
            committed = {}
            for index, entity in enumerate(entities[1:], 1):
                time.sleep(random.uniform(0, 2 * gap))
                committed[entity.pk] = suspend(principal, entity)
                if index % 25 == 0:
                    say(f"  {index} of {changes} changes committed")
            done = wait_confirmed(entities[1:], 120)
        finally:
            stop(processes)
        rows = OnchainStatusUpdate.objects.filter(entity__in=entities[1:]).values("entity_id").annotate(
            signed=Max("published_at"), confirmed=Max("confirmed_at"), block=Max("transaction__block_number"))
        block_times = {}
        for number in {row["block"] for row in rows if row["block"] is not None}:
            block_times[number] = w3.eth.get_block(number)["timestamp"]
        result = {"signed": [], "mined": [], "confirmed": [], "complete": done, "changes": changes,
                  "transactions": ChainTransaction.objects.filter(chain=chain).count() - transactions_before}
        for row in rows:
            start = committed[row["entity_id"]]
            if row["confirmed"] is not None:
                result["signed"].append(row["signed"].timestamp() - start)
                result["mined"].append(block_times[row["block"]] - start)
                result["confirmed"].append(row["confirmed"].timestamp() - start)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="1,000 wallets per batch size and 30 changes")
    parser.add_argument("--wallets", type=int, help="wallet updates published at each batch size (default 10,000)")
    parser.add_argument("--wallets-per-entity", type=int, default=10, help="wallets of each entity of the publishing run")
    parser.add_argument("--changes", type=int, help="status changes of the latency run (default 200)")
    parser.add_argument("--gap", type=float, default=1.0, help="mean seconds between two changes of the latency run")
    parser.add_argument("--block-time", type=float, default=1.0, help="anvil's block interval (seconds)")
    parser.add_argument("--skip", choices=("gas", "publish", "latency"), action="append", default=[], help="leave a part out")
    args = parser.parse_args()
    wallets = args.wallets or (1000 if args.quick else 10_000)
    changes = args.changes or (30 if args.quick else 200)
    random.seed(25)

    from compliance.onchain.anvil import anvil_installed

    if not anvil_installed():
        sys.exit("anvil is not installed: scripts/npm-deps compliance/onchain (make bench runs it)")
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    say(f"bench/oracle.py {'--quick ' if args.quick else ''}on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, "
        f"load average before {load}")
    data_dir = Path(tempfile.mkdtemp(prefix="bench-oracle-"))
    try:
        setup_django(data_dir)
        org = organization()
        if "gas" not in args.skip:
            from oracle_gas import print_contract_gas

            say("\n== 1. The contract's gas (bench/oracle_gas.py)")
            with Anvil() as node:
                print_contract_gas(node.web3())
        published = []
        if "publish" not in args.skip:
            say(f"\n== 2. Publishing {wallets:,} wallet updates through publish_pass (SQLite, {args.wallets_per_entity} wallets an entity)")
            published = throughput(org, wallets, args.wallets_per_entity, args.block_time)
        waited = None
        if "latency" not in args.skip:
            from config.celery import app

            beat = app.conf.beat_schedule["compliance.publish_status"]["schedule"]
            say(f"\n== 3. Latency: {changes} entity suspensions (3 wallets each), a real worker and beat (every {beat:g} s)")
            waited = latency(org, data_dir, changes, 3, args.block_time, args.gap)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)

    if published:
        say(f"\nPublishing (publish_pass again at each new block until every row is confirmed; a block every {args.block_time:g} s)")
        say(f"{'batch':>6} {'wallets':>8} {'txs':>6} {'blocks':>6} {'passes':>6} {'seconds':>8} {'wallets/s':>9} {'signing s':>9} "
            f"{'1st pass s':>10} {'resent':>7} {'gas/wallet':>10} {'rows written/s':>14}")
        for r in published:
            say(f"{r['size']:>6} {r['confirmed']:>8,} {r['transactions']:>6,} {r['blocks']:>6} {r['passes']:>6} {r['seconds']:>8.1f} "
                f"{r['confirmed'] / r['seconds']:>9,.0f} {r['sign']:>9.1f} {r['first_pass']:>10.1f} {r['rebroadcast']:>7,} "
                f"{r['gas']:>10,.0f} {r['wallets'] / r['write']:>14,.0f}")
        wrong = sum(r["wrong"] for r in published)
        say(f"on-chain check: {sum(r['sampled'] for r in published)} sampled wallets read back, {wrong} not at the row's version")
        at_100 = next(r["gas"] for r in published if r["size"] == 100)
        say(f"goal: at most 30,000 gas per wallet at batch 100: {'met' if at_100 <= 30_000 else 'NOT met'} ({at_100:,.0f})")
    if waited:
        say(f"\nLatency from the change's commit, seconds ({len(waited['confirmed'])} of {waited['changes']} changes confirmed"
            f"{'' if waited['complete'] else ', the others not within 120 s'}; {waited['transactions']} transactions)")
        say(f"  to signed (published_at):       {summary(waited['signed'])}")
        say(f"  to its block (block timestamp): {summary(waited['mined'])}   (whole seconds: up to 1 s early)")
        say(f"  to confirmed (confirmed_at):    {summary(waited['confirmed'])}")
        p99 = percentile(waited["confirmed"], 0.99)
        say(f"goal: p99 at most 10 s: {'met' if p99 <= 10 and waited['complete'] else 'NOT met'} ({p99:.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
