"""好友房间 (O1-O9): the rooms' store, service, event streams and routes."""
