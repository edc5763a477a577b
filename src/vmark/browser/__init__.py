"""The embedded browser: tabs, navigation, reading and acting on web pages, bounded by approvals."""
