"""Notifications: other apps call `notification_create` in their own transactions."""
