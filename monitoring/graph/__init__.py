"""The counterparty graph of an entity: who its money went to and came from, up to two hops over a
period, summed in SQL and cut to the largest counterparties (docs/console.md, "Counterparty graph")."""
