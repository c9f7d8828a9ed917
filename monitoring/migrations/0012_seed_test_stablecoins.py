"""Seeds the token registry with Circle's USDC on the seeded test chains (compliance 0005). Source: Circle's "USDC
contract addresses" page (developers.circle.com/stablecoins/usdc-contract-addresses), testnet table; 6 decimals.
Holesky and Hoodi have no Circle USDC; no USDT is seeded (Tether publishes no testnet deployment)."""

from django.db import migrations

USDC = (
    (11155111, "0x1c7d4b196cb0c7b01d743fbc6116a902379c7238"),  # Ethereum Sepolia
    (84532, "0x036cbd53842c5426634e7929541ec2318f3dcf7e"),  # Base Sepolia
    (421614, "0x75faf114eafb1bdbe2f0316df893fd58ce46aa4d"),  # Arbitrum Sepolia
    (80002, "0x41e94eb019c0762f9bfcf9fb1e58725bfb0e7582"),  # Polygon Amoy
)


def seed(apps, schema_editor):
    Chain, IndexedToken = apps.get_model("compliance", "Chain"), apps.get_model("monitoring", "IndexedToken")
    for chain_id, address in USDC:
        chain = Chain.objects.filter(chain_id=chain_id).first()
        if chain is not None:
            IndexedToken.objects.get_or_create(chain=chain, address=address, defaults={"symbol": "USDC", "decimals": 6})


class Migration(migrations.Migration):
    dependencies = [("monitoring", "0011_chaincursor_head"), ("compliance", "0005_seed_chains")]

    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
