"""scale-check: a sweep of many ranks in one launch and what it took (usage), and the command
(cli)."""
