"""Case management: attaching alerts, assignment, status, comments, merge and split, deadlines."""
