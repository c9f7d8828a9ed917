"""Seeds the known chains, disabled: an operator sets the RPC URLs and the signer, deploys the oracle and enables one."""

from django.db import migrations

CHAINS = (
    (11155111, "Sepolia", 2), (17000, "Holesky", 2), (560048, "Hoodi", 2), (84532, "Base Sepolia", 1),
    (421614, "Arbitrum Sepolia", 1), (80002, "Polygon Amoy", 1), (31337, "Local (anvil)", 1),
)


def seed(apps, schema_editor):
    Chain = apps.get_model("compliance", "Chain")
    for chain_id, name, confirmations in CHAINS:
        Chain.objects.get_or_create(chain_id=chain_id, defaults={"name": name, "confirmations": confirmations, "enabled": False,
                                                                 "rpc_urls": ["http://127.0.0.1:8545"] if chain_id == 31337 else []})


class Migration(migrations.Migration):
    dependencies = [("compliance", "0004_chains")]

    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
