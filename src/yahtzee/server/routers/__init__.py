"""One router per resource: games, records, advice, health."""
