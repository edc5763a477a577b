"""The review of agent changes, the app's side (the service is :class:`Review`; one concept a module):
``pending`` (a document's pending set and how a transaction moves it), ``backlog`` (the history and the AI
revisions waiting for review), ``saving`` (persistence and restore), ``push`` (the pages' ``review`` events)."""

from .service import Rejection, Review

__all__ = ["Rejection", "Review"]
