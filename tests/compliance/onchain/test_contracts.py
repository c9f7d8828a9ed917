"""The oracle's contracts on a real node (anvil): ComplianceOracle's reads and writes, operators and
ownership, version ordering, expiry, the Chainalysis-compatible isSanctioned, CompliantToken, the
ERC-3643 module, and the gas goals (docs/oracle.md). No mocks: every call goes to the node."""

import pytest
from web3.exceptions import ContractCustomError
from web3.logs import DISCARD

from compliance.onchain.contracts import (
    Flag,
    RiskTier,
    Status,
    contract_at,
    decode_custom_error,
    deploy,
    pack_status,
    unpack_status,
)
from compliance.onchain.gas import set_statuses_gas, status_of_read_gas, wallets

HOUR = 3600
# The Chainalysis sanctions oracle's interface, and nothing else: what a protocol written for it holds.
CHAINALYSIS_ABI = [{"type": "function", "name": "isSanctioned", "stateMutability": "view",
                    "inputs": [{"name": "addr", "type": "address"}], "outputs": [{"name": "", "type": "bool"}]}]


@pytest.fixture
def oracle(w3, accounts):
    """A fresh ComplianceOracle owned by accounts[0], with accounts[1] as its operator (no database: these
    tests talk to the contract alone)."""
    contract = deploy(w3, "ComplianceOracle", accounts[0])
    w3.eth.wait_for_transaction_receipt(contract.functions.addOperator(accounts[1]).transact({"from": accounts[0]}))
    return contract


def chain_now(w3) -> int:
    return w3.eth.get_block("latest")["timestamp"]


def status(w3, *, flags=0, tier=RiskTier.LOW, version=1, ttl=HOUR) -> Status:
    now = chain_now(w3)
    return Status(risk_tier=tier, flags=flags, updated_at=now, expires_at=now + ttl, version=version)


def publish(oracle, sender, statuses: dict[str, Status | int]):
    """setStatuses from `sender`; returns the receipt."""
    words = [item if isinstance(item, int) else pack_status(item) for item in statuses.values()]
    tx_hash = oracle.functions.setStatuses(list(statuses), words).transact({"from": sender})
    return oracle.w3.eth.wait_for_transaction_receipt(tx_hash)


def events(contract, name: str, receipt) -> tuple:
    """The `name` events `contract` emitted in the transaction (other contracts' logs left out)."""
    return getattr(contract.events, name)().process_receipt(receipt, errors=DISCARD)


def refused(contract, call) -> tuple[str, tuple]:
    """Runs `call` (which must revert with a custom error of `contract`) and returns (error name, arguments)."""
    with pytest.raises(ContractCustomError) as caught:
        call()
    return decode_custom_error(contract, caught.value.data)


def as_status(read) -> tuple[Status, bool]:
    tier, flags, updated_at, expires_at, version, known = read
    return Status(tier, flags, updated_at, expires_at, version), known


# ---- the status word, Python against Solidity ----

def test_python_packing_matches_the_contract_both_ways(w3, oracle, accounts):
    wallet, other = wallets(2, "packing")
    written = Status(risk_tier=RiskTier.CRITICAL, flags=Flag.SANCTIONED | Flag.PEP | Flag.FROZEN, updated_at=1_700_000_000,
                     expires_at=(1 << 40) - 1, version=(1 << 64) - 1)
    publish(oracle, accounts[1], {wallet: written, other: status(w3, tier=RiskTier.MEDIUM, flags=Flag.UNDER_REVIEW, version=7)})
    # Python -> contract: the word packed here is the word stored, and statusOf reads its fields.
    assert oracle.functions.packedStatusOf(wallet).call() == pack_status(written)
    assert as_status(oracle.functions.statusOf(wallet).call()) == (written, True)
    # contract -> Python: the stored word unpacks to what statusOf reads.
    read, _known = as_status(oracle.functions.statusOf(other).call())
    assert unpack_status(oracle.functions.packedStatusOf(other).call()) == read
    assert read.risk_tier == RiskTier.MEDIUM and read.flags == Flag.UNDER_REVIEW and read.version == 7


def test_flag_constants_match_the_contract(oracle):
    for flag in Flag:
        assert getattr(oracle.functions, f"FLAG_{flag.name}")().call() == flag.value


def test_packing_refuses_fields_out_of_range():
    with pytest.raises(ValueError, match="flags"):
        pack_status(Status(risk_tier=0, flags=1 << 16, updated_at=0, expires_at=0, version=1))
    with pytest.raises(ValueError, match="version"):
        pack_status(Status(risk_tier=0, flags=0, updated_at=0, expires_at=0, version=-1))
    with pytest.raises(ValueError, match="not a status word"):
        unpack_status(1 << 168)


# ---- writes ----

def test_set_statuses_writes_and_emits(w3, oracle, accounts):
    first, second = wallets(2, "writes")
    one, two = status(w3, flags=Flag.HIGH_RISK, tier=RiskTier.HIGH, version=3), status(w3, version=1)
    receipt = publish(oracle, accounts[1], {first: one, second: two})
    updated = events(oracle, "StatusUpdated", receipt)
    assert [(e.args.wallet, e.args.version, e.args.riskTier, e.args.flags, e.args.updatedAt, e.args.expiresAt) for e in updated] == [
        (first, 3, RiskTier.HIGH, Flag.HIGH_RISK, one.updated_at, one.expires_at),
        (second, 1, RiskTier.LOW, 0, two.updated_at, two.expires_at)]
    assert unpack_status(oracle.functions.packedStatusOf(first).call()) == one
    assert unpack_status(oracle.functions.packedStatusOf(second).call()) == two


def test_a_non_operator_is_refused(w3, oracle, accounts):
    (wallet,) = wallets(1, "intruder")
    word = pack_status(status(w3))
    for caller in (accounts[0], accounts[2]):  # not even the owner writes statuses without being an operator
        assert refused(oracle, lambda c=caller: oracle.functions.setStatuses([wallet], [word]).transact({"from": c})) == (
            "NotOperator", (caller,))
    assert oracle.functions.packedStatusOf(wallet).call() == 0


def test_malformed_batches_revert_whole(w3, oracle, accounts):
    first, second = wallets(2, "malformed")
    good = pack_status(status(w3))
    send = oracle.functions.setStatuses
    assert refused(oracle, lambda: send([first, second], [good]).transact({"from": accounts[1]})) == ("LengthMismatch", (2, 1))
    assert refused(oracle, lambda: send([first, second], [good, good | 1 << 168]).transact({"from": accounts[1]})) == (
        "MalformedStatus", (1,))
    assert oracle.functions.packedStatusOf(first).call() == 0


def test_an_update_not_newer_is_skipped_and_changes_nothing(w3, oracle, accounts):
    wallet, other = wallets(2, "versions")
    current = status(w3, flags=Flag.SANCTIONED, version=5)
    publish(oracle, accounts[1], {wallet: current})
    stored = oracle.functions.packedStatusOf(wallet).call()
    for version in (5, 4, 0):  # the same version (a replay), an older one (reordered), none
        late = status(w3, version=version)
        batch = [pack_status(late), pack_status(status(w3, version=1))]
        assert oracle.functions.setStatuses([wallet, other], batch).call({"from": accounts[1]}) == 1  # only `other` written
        receipt = publish(oracle, accounts[1], {wallet: late})
        assert receipt["status"] == 1  # skipped, not reverted
        assert events(oracle, "StatusUpdated", receipt) == ()
        skipped = events(oracle, "StatusSkipped", receipt)
        assert [(e.args.wallet, e.args.version, e.args.storedVersion) for e in skipped] == [(wallet, version, 5)]
        assert oracle.functions.packedStatusOf(wallet).call() == stored
    assert oracle.functions.isSanctioned(wallet).call() is True
    # A replay of the whole batch is harmless too.
    receipt = publish(oracle, accounts[1], {wallet: current})
    assert receipt["status"] == 1 and oracle.functions.packedStatusOf(wallet).call() == stored
    # A newer version is written.
    publish(oracle, accounts[1], {wallet: status(w3, version=6)})
    assert oracle.functions.isSanctioned(wallet).call() is False


def test_set_statuses_returns_how_many_were_written(w3, oracle, accounts):
    wallet, other, third = wallets(3, "count")
    publish(oracle, accounts[1], {wallet: status(w3, version=2)})
    words = [pack_status(status(w3, version=v)) for v in (1, 1, 1)]
    assert oracle.functions.setStatuses([wallet, other, third], words).call({"from": accounts[1]}) == 2


# ---- operators and ownership ----

def test_the_owner_adds_and_removes_operators(w3, oracle, accounts):
    owner, newcomer, stranger = accounts[0], accounts[3], accounts[4]
    (wallet,) = wallets(1, "operators")
    assert oracle.functions.isOperator(newcomer).call() is False
    receipt = w3.eth.wait_for_transaction_receipt(oracle.functions.addOperator(newcomer).transact({"from": owner}))
    assert [e.args.operator for e in events(oracle, "OperatorAdded", receipt)] == [newcomer]
    assert oracle.functions.isOperator(newcomer).call() is True
    publish(oracle, newcomer, {wallet: status(w3, version=1)})
    assert oracle.functions.statusOf(wallet).call()[4] == 1

    receipt = w3.eth.wait_for_transaction_receipt(oracle.functions.removeOperator(newcomer).transact({"from": owner}))
    assert [e.args.operator for e in events(oracle, "OperatorRemoved", receipt)] == [newcomer]
    word = pack_status(status(w3, version=2))
    assert refused(oracle, lambda: oracle.functions.setStatuses([wallet], [word]).transact({"from": newcomer})) == (
        "NotOperator", (newcomer,))

    assert refused(oracle, lambda: oracle.functions.addOperator(stranger).transact({"from": stranger})) == ("NotOwner", (stranger,))
    assert refused(oracle, lambda: oracle.functions.removeOperator(accounts[1]).transact({"from": accounts[1]})) == (
        "NotOwner", (accounts[1],))
    assert refused(oracle, lambda: oracle.functions.addOperator("0x" + "00" * 20).transact({"from": owner})) == ("ZeroAddress", ())


def test_ownership_is_handed_on_in_two_steps(w3, oracle, accounts):
    owner, successor, stranger = accounts[0], accounts[5], accounts[6]
    assert refused(oracle, lambda: oracle.functions.transferOwnership(stranger).transact({"from": stranger})) == (
        "NotOwner", (stranger,))
    receipt = w3.eth.wait_for_transaction_receipt(oracle.functions.transferOwnership(successor).transact({"from": owner}))
    started = events(oracle, "OwnershipTransferStarted", receipt)
    assert [(e.args.previousOwner, e.args.newOwner) for e in started] == [(owner, successor)]
    assert oracle.functions.owner().call() == owner and oracle.functions.pendingOwner().call() == successor
    assert refused(oracle, lambda: oracle.functions.acceptOwnership().transact({"from": stranger})) == ("NotPendingOwner", (stranger,))

    receipt = w3.eth.wait_for_transaction_receipt(oracle.functions.acceptOwnership().transact({"from": successor}))
    moved = events(oracle, "OwnershipTransferred", receipt)
    assert [(e.args.previousOwner, e.args.newOwner) for e in moved] == [(owner, successor)]
    assert oracle.functions.owner().call() == successor
    assert oracle.functions.pendingOwner().call() == "0x" + "00" * 20
    assert refused(oracle, lambda: oracle.functions.addOperator(stranger).transact({"from": owner})) == ("NotOwner", (owner,))
    w3.eth.wait_for_transaction_receipt(oracle.functions.addOperator(stranger).transact({"from": successor}))
    assert oracle.functions.isOperator(stranger).call() is True


# ---- reads ----

def test_a_wallet_never_published_is_unknown(oracle):
    (wallet,) = wallets(1, "never")
    assert oracle.functions.statusOf(wallet).call() == (0, 0, 0, 0, 0, False)
    assert oracle.functions.isCompliant(wallet).call() is False  # unknown is not compliant
    assert oracle.functions.isFlagged(wallet).call() is False  # nothing is known against it
    assert oracle.functions.isSanctioned(wallet).call() is False


def test_each_flag_bit_flags_the_wallet(w3, oracle, accounts):
    flags = [*Flag, 1 << 6, 1 << 15]  # the six flags and two reserved bits, which count as flags
    targets = wallets(len(flags) + 1, "bits")
    publish(oracle, accounts[1], {wallet: status(w3, flags=int(flag)) for wallet, flag in zip(targets, flags, strict=False)}
            | {targets[-1]: status(w3, flags=0, tier=RiskTier.HIGH)})
    for wallet, flag in zip(targets, flags, strict=False):
        assert oracle.functions.isFlagged(wallet).call() is True, flag
        assert oracle.functions.isCompliant(wallet).call() is False, flag
        assert oracle.functions.isSanctioned(wallet).call() is (flag == Flag.SANCTIONED), flag
        assert oracle.functions.statusOf(wallet).call()[5] is True  # known: flagged is not unknown
    clean = targets[-1]  # the risk tier alone flags nothing: the high-risk flag bit does
    assert (oracle.functions.isFlagged(clean).call(), oracle.functions.isCompliant(clean).call()) == (False, True)


def test_an_expired_status_reads_as_unknown_not_compliant(w3, anvil, oracle, accounts):
    clean, sanctioned = wallets(2, "expiry")
    publish(oracle, accounts[1], {clean: status(w3, ttl=HOUR), sanctioned: status(w3, flags=Flag.SANCTIONED, ttl=HOUR)})
    assert oracle.functions.statusOf(clean).call()[5] is True
    assert oracle.functions.isCompliant(clean).call() is True
    expires_at = oracle.functions.statusOf(clean).call()[3]

    anvil.increase_time(HOUR + 1)
    assert chain_now(w3) >= expires_at
    read, known = as_status(oracle.functions.statusOf(clean).call())
    assert known is False and read.version == 1 and read.expires_at == expires_at  # the record stays readable
    assert oracle.functions.isCompliant(clean).call() is False
    assert oracle.functions.isFlagged(clean).call() is True  # the service no longer vouches for it
    assert oracle.functions.isSanctioned(clean).call() is False
    assert oracle.functions.isSanctioned(sanctioned).call() is True  # expiry never lifts a sanction
    assert oracle.functions.isFlagged(sanctioned).call() is True

    publish(oracle, accounts[1], {clean: status(w3, version=2)})  # a newer status makes it current again
    assert oracle.functions.isCompliant(clean).call() is True


def test_statuses_of_reads_a_list_in_order(w3, anvil, oracle, accounts):
    fresh, flagged, expiring, unknown = wallets(4, "list")
    publish(oracle, accounts[1], {fresh: status(w3, version=1), flagged: status(w3, flags=Flag.SUSPENDED, version=2),
                                  expiring: status(w3, version=3, ttl=60)})
    anvil.increase_time(61)
    reads = oracle.functions.statusesOf([fresh, flagged, expiring, unknown, fresh]).call()
    assert [(r[1], r[4], r[5]) for r in reads] == [(0, 1, True), (Flag.SUSPENDED, 2, True), (0, 3, False), (0, 0, False), (0, 1, True)]
    assert reads == [oracle.functions.statusOf(w).call() for w in (fresh, flagged, expiring, unknown, fresh)]
    assert oracle.functions.statusesOf([]).call() == []


def test_is_sanctioned_answers_through_the_chainalysis_interface(w3, oracle, accounts):
    sanctioned, clean, unknown = wallets(3, "chainalysis")
    publish(oracle, accounts[1], {sanctioned: status(w3, flags=Flag.SANCTIONED | Flag.FROZEN), clean: status(w3)})
    as_chainalysis = w3.eth.contract(address=oracle.address, abi=CHAINALYSIS_ABI)
    reader = deploy(w3, "OracleReader", oracle.address)  # declares the interface in Solidity, as a protocol does
    for wallet, expected in ((sanctioned, True), (clean, False), (unknown, False)):
        assert as_chainalysis.functions.isSanctioned(wallet).call() is expected
        assert reader.functions.sanctioned(wallet).call() is expected


# ---- CompliantToken ----

@pytest.fixture
def token(w3, oracle, accounts):
    alice, bob = accounts[2], accounts[3]
    publish(oracle, accounts[1], {alice: status(w3, version=1, ttl=24 * HOUR), bob: status(w3, version=1, ttl=24 * HOUR)})
    contract = deploy(w3, "CompliantToken", "Demo Compliant Token", "DCT", oracle.address, accounts[0])
    w3.eth.wait_for_transaction_receipt(contract.functions.mint(alice, 1_000).transact({"from": accounts[0]}))
    return contract


def test_the_token_moves_between_compliant_wallets(w3, token, accounts):
    alice, bob = accounts[2], accounts[3]
    assert (token.functions.name().call(), token.functions.symbol().call(), token.functions.decimals().call()) == (
        "Demo Compliant Token", "DCT", 18)
    receipt = w3.eth.wait_for_transaction_receipt(token.functions.transfer(bob, 100).transact({"from": alice}))
    assert [(e.args["from"], e.args.to, e.args.value) for e in events(token, "Transfer", receipt)] == [(alice, bob, 100)]
    w3.eth.wait_for_transaction_receipt(token.functions.approve(accounts[7], 50).transact({"from": bob}))
    w3.eth.wait_for_transaction_receipt(token.functions.transferFrom(bob, alice, 50).transact({"from": accounts[7]}))
    assert (token.functions.balanceOf(alice).call(), token.functions.balanceOf(bob).call()) == (950, 50)
    assert token.functions.totalSupply().call() == 1_000
    assert refused(token, lambda: token.functions.transfer(bob, 10_000).transact({"from": alice})) == (
        "InsufficientBalance", (alice, 950, 10_000))


def test_the_token_refuses_a_flagged_sender_and_receiver_until_cleared(w3, oracle, token, accounts):
    alice, bob = accounts[2], accounts[3]
    publish(oracle, accounts[1], {alice: status(w3, flags=Flag.SANCTIONED, version=2, ttl=24 * HOUR)})
    assert refused(token, lambda: token.functions.transfer(bob, 10).transact({"from": alice})) == ("NotCompliant", (alice,))
    w3.eth.wait_for_transaction_receipt(token.functions.approve(accounts[7], 10).transact({"from": alice}))
    assert refused(token, lambda: token.functions.transferFrom(alice, bob, 10).transact({"from": accounts[7]})) == (
        "NotCompliant", (alice,))

    publish(oracle, accounts[1], {alice: status(w3, version=3, ttl=24 * HOUR), bob: status(w3, flags=Flag.FROZEN, version=2)})
    assert refused(token, lambda: token.functions.transfer(bob, 10).transact({"from": alice})) == ("NotCompliant", (bob,))
    assert refused(token, lambda: token.functions.mint(bob, 10).transact({"from": accounts[0]})) == ("NotCompliant", (bob,))

    publish(oracle, accounts[1], {bob: status(w3, version=3, ttl=24 * HOUR)})  # cleared by a newer version
    w3.eth.wait_for_transaction_receipt(token.functions.transfer(bob, 10).transact({"from": alice}))
    assert token.functions.balanceOf(bob).call() == 10


def test_the_token_refuses_unknown_and_expired_wallets(w3, anvil, oracle, token, accounts):
    alice, bob, stranger = accounts[2], accounts[3], wallets(1, "token-stranger")[0]
    assert refused(token, lambda: token.functions.transfer(stranger, 1).transact({"from": alice})) == ("NotCompliant", (stranger,))
    publish(oracle, accounts[1], {bob: status(w3, version=2, ttl=60)})
    anvil.increase_time(61)
    assert refused(token, lambda: token.functions.transfer(bob, 1).transact({"from": alice})) == ("NotCompliant", (bob,))


def test_transfer_with_commitment_emits_the_commitment(w3, token, accounts):
    alice, bob = accounts[2], accounts[3]
    commitment = bytes.fromhex("ab" * 32)
    receipt = w3.eth.wait_for_transaction_receipt(token.functions.transferWithCommitment(bob, 25, commitment).transact({"from": alice}))
    committed = events(token, "TransferCommitment", receipt)
    assert [(e.args["from"], e.args.to, e.args.amount, e.args.commitment) for e in committed] == [(alice, bob, 25, commitment)]
    assert [(e.args["from"], e.args.to, e.args.value) for e in events(token, "Transfer", receipt)] == [(alice, bob, 25)]
    assert token.functions.balanceOf(bob).call() == 25


def test_only_the_owner_mints(w3, token, accounts):
    assert refused(token, lambda: token.functions.mint(accounts[2], 1).transact({"from": accounts[2]})) == ("NotOwner", (accounts[2],))


# ---- the ERC-3643 module ----

def test_the_module_checks_both_sides_with_the_oracle(w3, oracle, accounts):
    module = deploy(w3, "ComplianceOracleModule", oracle.address)
    compliance, zero = accounts[8], "0x" + "00" * 20
    clean, flagged, unknown = wallets(3, "module")
    publish(oracle, accounts[1], {clean: status(w3), flagged: status(w3, flags=Flag.UNDER_REVIEW)})
    check = module.functions.moduleCheck
    assert check(clean, clean, 1, compliance).call() is True
    assert check(clean, flagged, 1, compliance).call() is False
    assert check(flagged, clean, 1, compliance).call() is False
    assert check(clean, unknown, 1, compliance).call() is False
    assert check(zero, clean, 1, compliance).call() is True  # a mint: only the receiver is asked
    assert check(zero, flagged, 1, compliance).call() is False
    assert (module.functions.name().call(), module.functions.isPlugAndPlay().call(),
            module.functions.canComplianceBind(compliance).call(), module.functions.oracle().call()) == (
        "ComplianceOracleModule", True, True, oracle.address)


def test_the_module_binds_to_the_compliance_that_asks(w3, oracle, accounts):
    module = deploy(w3, "ComplianceOracleModule", oracle.address)
    compliance, other = accounts[8], accounts[9]
    assert refused(module, lambda: module.functions.bindCompliance(compliance).transact({"from": other})) == (
        "OnlyComplianceCanCall", (other,))
    assert refused(module, lambda: module.functions.moduleTransferAction(other, other, 1).transact({"from": compliance})) == (
        "OnlyComplianceCanCall", (compliance,))
    receipt = w3.eth.wait_for_transaction_receipt(module.functions.bindCompliance(compliance).transact({"from": compliance}))
    assert [e.args._compliance for e in events(module, "ComplianceBound", receipt)] == [compliance]
    assert module.functions.isComplianceBound(compliance).call() is True
    assert refused(module, lambda: module.functions.bindCompliance(compliance).transact({"from": compliance})) == (
        "ComplianceAlreadyBound", (compliance,))
    for hook in (module.functions.moduleTransferAction(other, other, 1), module.functions.moduleMintAction(other, 1),
                 module.functions.moduleBurnAction(other, 1)):
        assert w3.eth.wait_for_transaction_receipt(hook.transact({"from": compliance}))["status"] == 1
    receipt = w3.eth.wait_for_transaction_receipt(module.functions.unbindCompliance(compliance).transact({"from": compliance}))
    assert [e.args._compliance for e in events(module, "ComplianceUnbound", receipt)] == [compliance]
    assert module.functions.isComplianceBound(compliance).call() is False


# ---- gas (the goals) ----

def test_a_batch_of_100_first_writes_costs_at_most_30000_gas_per_wallet(w3, oracle, accounts):
    targets = wallets(100, "gas-batch")
    words = [pack_status(status(w3, flags=Flag.PEP, tier=RiskTier.MEDIUM, version=1)) for _ in targets]
    per_wallet = set_statuses_gas(oracle, targets, words, accounts[1]) / len(targets)
    assert all(oracle.functions.packedStatusOf(w).call() == words[0] for w in targets[::25])
    assert per_wallet <= 30_000, per_wallet


def test_a_status_of_read_costs_at_most_5000_gas(w3, oracle, accounts):
    """statusOf as a calling contract pays it (OracleReader: the call, the oracle's work, decoding the
    answer), the wallet's storage slot cold. The goal, 5,000, holds once the oracle is warm in the
    transaction (a second read, or the oracle in the access list). The first call of a transaction to
    any contract costs 2,500 more (EIP-2929: 2,600 instead of 100); with the cold slot's 2,100 that
    makes 4,700 that no contract can avoid, so a first, cold read cannot meet 5,000: it is held to the
    goal plus that surcharge (docs/oracle.md, "Gas")."""
    reader = deploy(w3, "OracleReader", oracle.address)
    (wallet,) = wallets(1, "gas-read")
    publish(oracle, accounts[1], {wallet: status(w3, flags=Flag.SANCTIONED, tier=RiskTier.CRITICAL)})
    assert reader.functions.readStatus(wallet).call() == oracle.functions.statusOf(wallet).call()
    warm, cold = status_of_read_gas(reader, wallet, warm=True), status_of_read_gas(reader, wallet)
    assert 2_400 <= cold - warm <= 2_600, (cold, warm)  # the surcharge, give or take the 63/64 rule's reserve
    assert warm <= 5_000, warm
    assert cold <= 5_000 + 2_500, cold


def test_contracts_are_read_back_at_their_address(w3, oracle):
    again = contract_at(w3, "ComplianceOracle", oracle.address)
    assert again.functions.owner().call() == oracle.functions.owner().call()
