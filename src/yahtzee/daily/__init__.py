"""每日挑战 and 小组 (D1-D6): the daily challenge's and the groups' store, service and routes."""
