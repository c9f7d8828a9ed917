"""The chain indexer's figures (issue 26; docs/indexer.md, "Figures"), on a local anvil, driven in-process.

    .venv/bin/python bench/indexer.py            # 1,000 wallets, 20,000 transfers over 2,000 blocks, 100 latency samples
    .venv/bin/python bench/indexer.py --quick    # 1,000 wallets, 2,000 transfers over 200 blocks, 20 samples

Runs on a throw-away DATA_DIR (its own SQLite database), removed at the end; the user's database is never opened. With
--database-url postgres://…/NAME, on that PostgreSQL database instead (dropped and created again: give a bench's own name).

Set-up: one organization with every rule at its default settings (all 53 on), `--wallets` registered wallets (one
business customer each, mode live), prices for DUSD (1 USD) and ETH (3,000 USD). On anvil: the demo CompliantToken
(its oracle says every address used is compliant), then `--transfers` transfers, `--per-block` a block (automine off,
evm_mine after each block's transactions): half ERC-20 (DUSD), half native (ETH), with `--mix retail` amounts (the
default: around 80 USD, heavy-tailed, one in 250 around 6,000 USD, as bench/ingest.py's customers) or `--mix wide` (10 to
2,000 DUSD, 0.001 to 0.5 ETH, uniform: about a third of the transfers open or extend an alert), from the node's
accounts, each to a registered wallet with probability `--relevant` (else to one of as many unregistered addresses).

1. Catch-up: the chain's cursor starts at the first transfer block, confirmations 0; index_pass (what the Celery task
   runs) again and again until it is caught up. Relevant transfers indexed and monitored per second (wall time of the
   passes), the RPC calls and their retries, and this process's RSS every 2,000 relevant transfers.
2. Steady state: automine on; each 1-second tick sends, at a uniform random moment of the tick, a native transfer of
   100 ETH (300,000 USD: the large-transfer rule opens an alert) to a registered wallet not used before, then runs a
   pass at the tick's end (a 1-second beat, in-process). Latency: from the transfer's receipt (its block mined, automine)
   to its alert existing (after the pass that opened it); p50, p99, max; RSS at the end.
Figures are printed; nothing is asserted (goals: catch-up at least 2,000 relevant transfers/s; latency p99 at most 2 s).
"""

import argparse
import math
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from compliance.onchain.anvil import CHAIN_ID as LOCAL  # noqa: E402
from compliance.onchain.anvil import Anvil, rpc  # noqa: E402

ETH = 10**18
YEAR = 365 * 24 * 3600
TRANSFER = "0xa9059cbb"  # transfer(address,uint256)


def say(line: str) -> None:
    print(line, flush=True)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def setup_django(data_dir: Path, database_url: str | None) -> None:
    if database_url:  # a throw-away PostgreSQL database, dropped and created again
        from bench.harness import fresh_database

        fresh_database(database_url)
    os.environ.update({"DATA_DIR": str(data_dir), "DATABASE_URL": database_url or f"sqlite:///{data_dir / 'db.sqlite3'}",
                       "CELERY_BROKER_URL": "memory://", "CELERY_TASK_ALWAYS_EAGER": "false", "LOG_LEVEL": "WARNING",
                       "DJANGO_SETTINGS_MODULE": "config.settings"})
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", "--noinput", verbosity=0)
    call_command("createcachetable", verbosity=0)


def organization(rules_on: bool = True):
    from accounts.services import user_create_verified
    from monitoring.models import AssetPrice
    from organizations.services import organization_create

    user = user_create_verified(email="bench-indexer@example.com", password="bench-indexer-Pa55!")
    org = organization_create(actor=user, name="Indexer bench", slug="indexer-bench")
    for asset, rate in (("DUSD", 1), ("ETH", 3000)):
        AssetPrice.objects.update_or_create(organization=org, asset=asset, defaults={"usd_rate": Decimal(rate), "decimals": 0})
    if not rules_on:
        from monitoring.models import RuleSetting
        from monitoring.rules.registry import RULES

        for rule in RULES:
            RuleSetting.objects.update_or_create(organization=org, rule_code=rule.code, defaults={"enabled": False})
    return org


def register(org, addresses: list[str]) -> None:
    from onboarding.models import Entity, Wallet

    entities = Entity.objects.bulk_create([
        Entity(organization=org, mode="live", legal_name=f"Indexer bench customer {i}", entity_type="business", jurisdiction="US",
               status="active", risk_score=20, risk_tier="low") for i in range(len(addresses))], batch_size=1000)
    Wallet.objects.bulk_create([Wallet(organization=org, mode="live", entity=entity, chain_id=LOCAL, address=address)
                                for entity, address in zip(entities, addresses, strict=True)], batch_size=2000)


def batch(url: str, calls: list[tuple[str, list]]) -> list:
    body = [{"jsonrpc": "2.0", "id": n, "method": method, "params": params} for n, (method, params) in enumerate(calls)]
    replies = sorted(requests.post(url, json=body, timeout=60).json(), key=lambda reply: reply["id"])
    errors = [reply["error"] for reply in replies if "error" in reply]
    if errors:
        raise RuntimeError(f"{len(errors)} calls failed: {errors[0]}")
    return [reply["result"] for reply in replies]


def deploy_token(w3, addresses: list[str]):
    """The demo CompliantToken behind an oracle that says every address of `addresses` and every node account is compliant;
    DUSD minted to the node's accounts."""
    from compliance.onchain.contracts import Status, deploy, pack_status

    owner = w3.eth.accounts[0]
    oracle = deploy(w3, "ComplianceOracle", owner)
    w3.eth.wait_for_transaction_receipt(oracle.functions.addOperator(owner).transact({"from": owner}))
    now = w3.eth.get_block("latest")["timestamp"]
    word = pack_status(Status(risk_tier=1, flags=0, updated_at=now, expires_at=now + YEAR, version=1))
    everyone = [w3.to_checksum_address(address) for address in addresses] + list(w3.eth.accounts)
    for start in range(0, len(everyone), 200):
        chunk = everyone[start:start + 200]
        w3.eth.wait_for_transaction_receipt(oracle.functions.setStatuses(chunk, [word] * len(chunk)).transact({"from": owner}))
    token = deploy(w3, "CompliantToken", "Demo DUSD", "DUSD", oracle.address, owner)
    for account in w3.eth.accounts:
        w3.eth.wait_for_transaction_receipt(token.functions.mint(account, 10**30).transact({"from": owner}))
    return token


def send_history(node: Anvil, w3, token, registered: list[str], others: list[str], args) -> tuple[int, int, int]:
    """`args.transfers` transfers in blocks of `args.per_block`. Returns (first block, last block, relevant transfers)."""
    rnd, senders, relevant = random.Random(5), [account.lower() for account in w3.eth.accounts], 0
    rpc(node.url, "evm_setAutomine", [False])
    first = w3.eth.block_number + 1
    blocks = args.transfers // args.per_block
    for number in range(blocks):
        calls = []
        for _ in range(args.per_block):
            hit = rnd.random() < args.relevant
            relevant += hit
            receiver, sender = rnd.choice(registered if hit else others), rnd.choice(senders)
            if rnd.random() < 0.5:
                amount = rnd.randint(10, 2_000) * ETH if args.mix == "wide" else retail_usd(rnd) * ETH // 100
                data = TRANSFER + receiver[2:].rjust(64, "0") + hex(amount)[2:].rjust(64, "0")
                calls.append(("eth_sendTransaction", [{"from": sender, "to": token.address, "data": data, "gas": hex(120_000)}]))
            else:
                value = rnd.randint(1, 500) * ETH // 1000 if args.mix == "wide" else retail_usd(rnd) * ETH // 100 // 3_000
                calls.append(("eth_sendTransaction", [{"from": sender, "to": receiver, "value": hex(value), "gas": hex(21_000)}]))
        batch(node.url, calls)
        rpc(node.url, "evm_mine", [])
        if (number + 1) % 500 == 0:
            say(f"    {number + 1:,} blocks mined")
    rpc(node.url, "evm_setAutomine", [True])
    return first, w3.eth.block_number, relevant


def retail_usd(rnd: random.Random) -> int:
    """A retail amount in US cents, as bench/ingest.py's customers move: around 80 USD (heavy-tailed),
    one transfer in 250 large (around 6,000 USD)."""
    centre = 6_000 if rnd.random() < 1 / 250 else 80
    return max(100, round(rnd.lognormvariate(math.log(centre), 0.6) * 100))


def catch_up(chain, first: int, relevant: int) -> None:
    from monitoring.indexer.services import index_pass
    from monitoring.models import ChainCursor, Transaction

    ChainCursor.objects.update_or_create(chain=chain, defaults={"start_block": first, "last_block": None, "window": []})
    samples, retries, passes, alerts = [(0, rss_mb())], 0, 0, 0
    next_sample = 2000

    def progress(result):
        nonlocal next_sample
        stored = Transaction.objects.count()
        if stored >= next_sample:
            samples.append((stored, rss_mb()))
            next_sample += 2000

    began = time.perf_counter()
    while True:
        result = index_pass(chain, progress=progress)
        passes += 1
        retries += result.retries
        alerts += result.alerts
        if result.error:
            sys.exit(f"the pass failed: {result.error}")
        if not result.behind:
            break
    seconds = time.perf_counter() - began
    stored = Transaction.objects.count()
    say(f"  {stored:,} transfers stored (of {relevant:,} relevant sent) in {seconds:.1f} s over {passes} passes: "
        f"{stored / seconds:,.0f} relevant transfers/s indexed and monitored (goal 2,000); {alerts:,} alerts; {retries} RPC retries")
    samples.append((stored, rss_mb()))
    say("  RSS (MB) by transfers stored: " + ", ".join(f"{count:,}: {mb:.0f}" for count, mb in samples))


def steady_state(node: Anvil, w3, chain, fresh: list[str], samples: int) -> None:
    from monitoring.indexer.services import index_pass
    from monitoring.models import Alert

    rnd, senders, latencies = random.Random(9), list(w3.eth.accounts), []
    index_pass(chain)
    for n in range(samples):
        tick = time.perf_counter()
        time.sleep(rnd.random() * 0.9)
        tx_hash = w3.eth.send_transaction({"from": senders[n % len(senders)], "to": w3.to_checksum_address(fresh[n]), "value": 100 * ETH})
        w3.eth.wait_for_transaction_receipt(tx_hash, poll_latency=0.01)
        mined = time.perf_counter()
        time.sleep(max(0.0, tick + 1 - time.perf_counter()))
        while True:
            index_pass(chain)
            if Alert.objects.filter(transactions__tx_hash=tx_hash.to_0x_hex()).exists():
                latencies.append(time.perf_counter() - mined)
                break
            if time.perf_counter() - mined > 30:
                sys.exit(f"no alert for {tx_hash.to_0x_hex()} after 30 s")
            time.sleep(max(0.0, 1 - (time.perf_counter() - tick) % 1))
    say(f"  block mined → alert, {samples} transfers, 1-second beat, 0 confirmations: p50 {statistics.median(latencies):.2f} s  "
        f"p99 {percentile(latencies, 0.99):.2f} s  max {max(latencies):.2f} s (goal p99 ≤ 2 s); RSS {rss_mb():.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--wallets", type=int, default=1000)
    parser.add_argument("--transfers", type=int)
    parser.add_argument("--per-block", type=int, default=10)
    parser.add_argument("--relevant", type=float, default=0.5)
    parser.add_argument("--mix", choices=("retail", "wide"), default="retail",
                        help="amounts: retail (around 80 USD, one in 250 around 6,000: the alert rate of bench/ingest.py's "
                             "traffic) or wide (10 to 2,000 DUSD and 3 to 1,500 USD of ETH, uniform: about one transfer in three "
                             "opens or extends an alert, most of them unhosted_large_transfer)")
    parser.add_argument("--samples", type=int)
    parser.add_argument("--database-url", help="a PostgreSQL URL whose database is dropped and created again (default: SQLite in the "
                                                 "throw-away DATA_DIR)")
    parser.add_argument("--rules-off", action="store_true", help="every rule disabled: what indexing and storing alone cost")
    parser.add_argument("--profile", action="store_true", help="cProfile the catch-up: the 40 costliest functions (cumulative)")
    parser.add_argument("--profile-out", help="with --profile: the whole profile written to this file too (pstats)")
    args = parser.parse_args()
    args.transfers = args.transfers or (2000 if args.quick else 20_000)
    args.samples = args.samples or (20 if args.quick else 100)

    data_dir = Path(tempfile.mkdtemp(prefix="bench-indexer-"))
    try:
        setup_django(data_dir, args.database_url)
        from compliance.models import Chain

        with Anvil(extra_args=["--accounts", "20", "--balance", "1000000", "--gas-limit", "100000000"]) as node:
            w3 = node.web3()
            rnd = random.Random(1)
            registered = ["0x" + rnd.randbytes(20).hex() for _ in range(args.wallets)]
            others = ["0x" + rnd.randbytes(20).hex() for _ in range(args.wallets)]
            fresh = registered[-args.samples:]  # the latency transfers' receivers: registered, not sent to before
            say(f"set-up: {args.wallets:,} registered wallets, {args.transfers:,} transfers ({args.mix} amounts), "
                f"{args.per_block} a block, {args.relevant:.0%} relevant; "
                + ("every rule off" if args.rules_off else "all rules on (defaults)"))
            org = organization(rules_on=not args.rules_off)
            register(org, registered)
            token = deploy_token(w3, registered + others)
            os.environ[f"CHAIN_RPC_URL_{LOCAL}"] = node.url
            Chain.objects.filter(chain_id=LOCAL).update(enabled=True, confirmations=0, rpc_urls=[node.url])
            chain = Chain.objects.get(chain_id=LOCAL)
            from monitoring.models import IndexedToken

            IndexedToken.objects.create(chain=chain, address=token.address.lower(), symbol="DUSD", decimals=18)
            began = time.perf_counter()
            first, last, relevant = send_history(node, w3, token, registered[:-args.samples], others, args)
            say(f"  blocks {first}-{last} mined in {time.perf_counter() - began:.0f} s")
            say("1. catch-up")
            if args.profile:
                import cProfile
                import pstats

                profiler = cProfile.Profile()
                profiler.runcall(catch_up, chain, first, relevant)
                pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
                if args.profile_out:
                    profiler.dump_stats(args.profile_out)
            else:
                catch_up(chain, first, relevant)
            if not args.rules_off:
                say("2. steady state")
                steady_state(node, w3, chain, fresh, args.samples)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
