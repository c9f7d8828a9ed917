"""Read-side analyses of an entity: its peer group and the entities related to it."""
