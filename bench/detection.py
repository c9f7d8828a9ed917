"""Detection figures on the labelled synthetic bank (bench/typologies.py): recall and precision per typology.

    .venv/bin/python bench/detection.py [--accounts 20000] [--days 30] [--seeds 101 202] [--off RULE ...] [--json FILE]

For each seed: generates the bank, evaluates every transfer for each customer on it (both sides of a
transfer between customers), in time order, with all the rules on at their defaults (the engine's
pure core, contexts built once per account as storage builds them per batch, the transfer graph of
transfers between customers as rules 15, 51 and 53 read it), and scores the flagged accounts against
the generator's labels:

- an account is *flagged* when any rule hits on it (alerts dedupe per account and rule, as storage does);
- recall per typology: labelled accounts of that typology that are flagged, by any rule (and, shown
  beside it, by the typology's own rules only);
- precision per typology: of the accounts flagged by that typology's own rules (TYPOLOGY_RULES),
  the share that launder (any typology); overall precision: laundering accounts among all flagged;
- flagged legitimate accounts per 1,000 legitimate accounts (the alert budget), alerts per 1,000 accounts;
- engine throughput (transfers evaluated per second) with the network typology rules on and off,
  both in the same run.

Use new seeds for reported figures: the defaults were chosen on seeds 11 and 12.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter, defaultdict
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.typologies import START, TYPOLOGIES, Bank, generate  # noqa: E402
from monitoring.rules import (  # noqa: E402
    EngineSettings,
    Entity,
    EntityContext,
    EntityHistory,
    OrgLists,
    OrgNetwork,
    PeerGroupStats,
    RuleSetting,
    Transaction,
    TransferGraph,
    evaluate,
)

NETWORK_RULES = ("fan_in", "fan_out", "cyclic_flow", "scatter_gather", "gather_scatter", "layering_chain")
TYPOLOGY_RULES = {
    "fan_in": {"fan_in", "gather_scatter"},
    "fan_out": {"fan_out"},
    "cycle": {"cyclic_flow"},
    "scatter_gather": {"scatter_gather"},
    "structuring": {"structuring_below_threshold"},
    "pass_through": {"rapid_pass_through", "layering_chain"},
}
CHAIN = 0  # the bank's ledger: off-chain accounts
# A book of existing, active accounts: opened (wallets registered) a year before the data's first day and
# active the day before it; their transfers before that day are not in the data, so rule 18's baseline
# holds only what the data holds (as for an organization that starts monitoring an existing book).
OPENED = START - timedelta(days=365)


def rule_transfer(transfer, account: str, customers: dict[str, str]) -> Transaction:
    direction = "out" if transfer.sender == account else "in"
    other = transfer.recipient if direction == "out" else transfer.sender
    return Transaction(id=transfer.id, timestamp=transfer.at, direction=direction, amount=transfer.usd, usd_value=transfer.usd,
                       counterparty_address=other, chain_id=CHAIN, from_address=transfer.sender, to_address=transfer.recipient,
                       asset="USD", counterparty_entity_id=customers.get(other), travel_rule_present=True)


def peer_groups(bank: Bank, by_account: dict[str, list]) -> dict[str, PeerGroupStats]:
    """Each account's peer group (same entity type), the account left out: the statistics storage supplies to rule 30."""
    volumes: dict[str, dict[str, Decimal]] = defaultdict(dict)
    for account in bank.accounts:
        volumes[account.entity_type][account.address] = sum((t.usd for t in by_account[account.address]), Decimal(0))
    stats = {}
    for members in volumes.values():
        n, total, squares = len(members), sum(members.values()), sum(v * v for v in members.values())
        for address, own in members.items():
            size, rest = n - 1, total - own
            mean = rest / size if size else Decimal(0)
            variance = max((squares - own * own) / size - mean * mean, Decimal(0)) if size else Decimal(0)
            active = sum(1 for other, volume in members.items() if other != address and volume)
            stats[address] = PeerGroupStats(size=size, mean_volume_usd=mean, stddev_volume_usd=variance.sqrt(), active=active)
    return stats


def contexts(bank: Bank) -> dict[str, EntityContext]:
    customers = {a.address: a.address for a in bank.accounts}
    by_account: dict[str, list] = defaultdict(list)
    for transfer in bank.transfers:
        for side in {transfer.sender, transfer.recipient} & customers.keys():
            by_account[side].append(transfer)
    between = [t for t in bank.transfers if t.sender in customers and t.recipient in customers]
    graph = TransferGraph(rule_transfer(t, t.sender, customers) for t in between)
    tags = {(CHAIN, name): frozenset({"merchant"}) for name in bank.services}
    lists = OrgLists(address_tags=tags)
    network = OrgNetwork(registered_wallets={(CHAIN, address): address for address in customers}, transfers=graph)
    peers = peer_groups(bank, by_account)
    built = {}
    for account in bank.accounts:
        entity = Entity(id=account.address, entity_type=account.entity_type, jurisdiction="US", created_at=OPENED, onboarded_at=OPENED,
                        peer_group=peers[account.address])
        history = EntityHistory([rule_transfer(t, account.address, customers) for t in by_account[account.address]],
                                earlier_activity_at=START - timedelta(days=1))
        built[account.address] = EntityContext(entity=entity, history=history, own_wallets=frozenset({(CHAIN, account.address)}),
                                               wallet_first_seen={(CHAIN, account.address): OPENED},
                                               lists=lists, network=network)
    return built


def run(built: dict[str, EntityContext], settings: EngineSettings) -> tuple[dict[str, set[str]], int, float, Counter]:
    """({account: rules that hit}, transfers evaluated, seconds, skips by rule)."""
    flagged: dict[str, set[str]] = defaultdict(set)
    skips: Counter = Counter()
    evaluated, started = 0, time.perf_counter()
    for account, context in built.items():
        for event in context.history.transactions:
            evaluated += 1
            for result in evaluate(event, context, settings):
                if result.is_hit:
                    flagged[account].add(result.rule_code)
                else:
                    skips[result.rule_code] += 1
    return flagged, evaluated, time.perf_counter() - started, skips


def score(bank: Bank, flagged: dict[str, set[str]]) -> dict:
    labels = bank.labels()
    legit = len(bank.accounts) - len(labels)
    caught = [a for a in flagged if a in labels]
    by_typology = {}
    for typology in TYPOLOGIES:
        members = [a for a, t in labels.items() if t == typology]
        by_rules = [a for a, rules in flagged.items() if rules & TYPOLOGY_RULES[typology]]
        own = sum(bool(flagged.get(a, set()) & TYPOLOGY_RULES[typology]) for a in members)
        by_typology[typology] = {
            "accounts": len(members), "recall": _share(sum(a in flagged for a in members), len(members)),
            "recall_by_its_rules": _share(own, len(members)),
            "flagged_by_its_rules": len(by_rules), "precision": _share(sum(a in labels for a in by_rules), len(by_rules)),
        }  # fmt: skip
    per_rule = Counter(rule for rules in flagged.values() for rule in rules)
    false_by_rule = Counter(rule for account, rules in flagged.items() if account not in labels for rule in rules)
    return {
        "accounts": len(bank.accounts), "transfers": len(bank.transfers), "laundering_accounts": len(labels),
        "flagged": len(flagged), "recall": _share(len(caught), len(labels)), "precision": _share(len(caught), len(flagged)),
        "flagged_legitimate_per_1000": round(1000 * (len(flagged) - len(caught)) / legit, 1),
        "alerts_per_1000_accounts": round(1000 * sum(per_rule.values()) / len(bank.accounts), 1),
        "by_typology": by_typology, "accounts_by_rule": dict(per_rule.most_common()),
        "legitimate_accounts_by_rule": dict(false_by_rule.most_common()),
    }  # fmt: skip


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def report(seed: int, result: dict, throughput: dict) -> None:
    print(f"\nseed {seed}: {result['accounts']:,} accounts, {result['transfers']:,} transfers, "
          f"{result['laundering_accounts']:,} laundering accounts")
    print(f"  overall: recall {result['recall']}, precision {result['precision']}, flagged {result['flagged']:,}; "
          f"flagged legitimate per 1,000: {result['flagged_legitimate_per_1000']}; alerts per 1,000 accounts: "
          f"{result['alerts_per_1000_accounts']}")
    print(f"  {'typology':<16}{'accounts':>9}{'recall':>8}{'precision':>11}{'flagged by its rules':>22}{'recall by its rules':>21}")
    for typology, row in result["by_typology"].items():
        print(f"  {typology:<16}{row['accounts']:>9,}{row['recall']!s:>8}{row['precision']!s:>11}{row['flagged_by_its_rules']:>22,}"
              f"{row['recall_by_its_rules']!s:>21}")
    print(f"  legitimate accounts flagged, by rule: {result['legitimate_accounts_by_rule']}")
    print(f"  engine: {throughput['on']:,.0f} transfers/s with the network typology rules on, {throughput['off']:,.0f} off "
          f"(ratio {throughput['on'] / throughput['off']:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--accounts", type=int, default=20_000)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--laundering-share", type=float, default=0.09)
    parser.add_argument("--seeds", type=int, nargs="+", default=[101, 202])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    on = EngineSettings.build()
    off = EngineSettings.build({code: RuleSetting(enabled=False) for code in NETWORK_RULES})
    results = {}
    for seed in args.seeds:
        started = time.perf_counter()
        bank = generate(accounts=args.accounts, days=args.days, laundering_share=args.laundering_share, seed=seed)
        built = contexts(bank)
        print(f"seed {seed}: bank and contexts built in {time.perf_counter() - started:.1f} s", flush=True)
        flagged, evaluated, seconds_on, skips = run(built, on)
        _, _, seconds_off, _ = run(contexts(bank), off)
        throughput = {"on": evaluated / seconds_on, "off": evaluated / seconds_off}
        result = score(bank, flagged) | {"throughput": throughput, "skips": dict(skips), "parameters": bank.parameters}
        results[seed] = result
        report(seed, result, throughput)
    if len(results) > 1:
        recalls = [r["recall"] for r in results.values()]
        print(f"\nmean overall recall {statistics.fmean(recalls):.3f} over seeds {args.seeds}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=str))


if __name__ == "__main__":
    main()
