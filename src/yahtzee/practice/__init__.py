"""练习 (L6-L8): the puzzles' store, service, views and routes."""
