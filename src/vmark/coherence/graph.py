"""The revision graph: per object its known revisions, their parents, and where it lives.

Built once per projection from the ledger records (pure: no I/O). A revision id is derived
from its content and its sorted parents, so the parents of a revision are a property of the id
itself: one parent map shared by every object is consistent even when two objects happen to
mint the same revision (a copied file). Heads and "known" are per object.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeGuard

from .records import Record


@dataclass(frozen=True)
class RevisionInfo:
    content: str
    parents: tuple[str, ...]
    path: str


class RevisionGraph:
    def __init__(
        self,
        revisions: dict[str, dict[str, str]],
        parents: dict[str, tuple[str, ...]],
        content: dict[str, str],
        paths: dict[str, tuple[tuple[str, str], str]],
    ) -> None:
        # object -> {rev: path of its first revision record}
        self._revisions = revisions
        # rev -> parents / content digest (intrinsic to the rev, so shared by every object)
        self._parents = parents
        self._content = content
        # object -> (sort_key of the newest record naming a path, that path)
        self._paths = paths
        self._heads: dict[str, frozenset[str]] = {}
        # descendant -> every revision reachable from it (itself included); the projection only
        # asks about current revisions, so this holds at most one set per object
        self._ancestors: dict[str, frozenset[str]] = {}

    @classmethod
    def from_records(cls, records: Iterable[Record]) -> RevisionGraph:
        with paused_gc():
            return cls._build(records)

    @classmethod
    def _build(cls, records: Iterable[Record]) -> RevisionGraph:
        revisions: dict[str, dict[str, str]] = {}
        parents: dict[str, tuple[str, ...]] = {}
        content: dict[str, str] = {}
        paths: dict[str, tuple[tuple[str, str], str]] = {}
        # one pass, plain dicts and tuples: this runs over every record of the ledger
        for record in records:
            kind = record.kind
            if kind != "revision" and kind != "object" and kind != "move":
                continue
            body = record.body
            obj, path = body.get("object"), body.get("path")
            if type(obj) is not str or type(path) is not str:
                continue
            revs = revisions.get(obj)
            if revs is None:
                revs = revisions[obj] = {}
            if kind == "revision":
                rev, digest, rev_parents = body.get("rev"), body.get("content"), body.get("parents")
                if type(rev) is str and type(digest) is str and _str_list(rev_parents):
                    if rev not in revs:
                        revs[rev] = path
                    if rev not in parents:
                        parents[rev] = tuple(rev_parents)
                        content[rev] = digest
                # a corrupt revision is no revision; its object still has a path
            key = (record.time, record.id)
            known = paths.get(obj)
            if known is None or key > known[0]:
                paths[obj] = (key, path)
        return cls(revisions, parents, content, paths)

    def objects(self) -> tuple[str, ...]:
        """Every object some object/move/revision record names, sorted."""
        return tuple(sorted(self._revisions))

    def revisions(self, obj: str) -> dict[str, RevisionInfo]:
        """The known revisions of ``obj`` (rev -> content digest, parents, path)."""
        return {
            rev: RevisionInfo(self._content[rev], self._parents[rev], path)
            for rev, path in self._revisions.get(obj, {}).items()
        }

    def is_known(self, obj: str, rev: str) -> bool:
        revs = self._revisions.get(obj)
        return revs is not None and rev in revs

    def content_of(self, rev: str) -> str | None:
        """The content digest of a known revision, else None."""
        return self._content.get(rev)

    def parents_of(self, rev: str) -> tuple[str, ...]:
        return self._parents.get(rev, ())

    def latest_path(self, obj: str) -> str | None:
        """The path of the newest object/move/revision record of ``obj``."""
        known = self._paths.get(obj)
        return None if known is None else known[1]

    def heads(self, obj: str) -> frozenset[str]:
        """The known revisions of ``obj`` that are no parent of another of its revisions."""
        cached = self._heads.get(obj)
        if cached is None:
            revs = self._revisions.get(obj, {})
            parents = {parent for rev in revs for parent in self._parents[rev]}
            cached = frozenset(rev for rev in revs if rev not in parents)
            self._heads[obj] = cached
        return cached

    def is_ancestor(self, a: str, b: str) -> bool:
        """True when ``a == b`` or ``a`` is reachable from ``b`` through parents."""
        return a == b or a in self.ancestors(b)

    def ancestors(self, rev: str) -> frozenset[str]:
        """``rev`` and every revision reachable from it through parents (memoized).

        A parent that was never recorded is in the set too: it is reachable, it just has no
        parents of its own that we know of.
        """
        cached = self._ancestors.get(rev)
        if cached is None:
            cached = frozenset(self._walk(rev))
            self._ancestors[rev] = cached
        return cached

    def _walk(self, start: str) -> Iterator[str]:
        # iterative DFS with a visited set: histories can be long and merges share ancestors
        seen = {start}
        stack = [start]
        parents = self._parents
        while stack:
            rev = stack.pop()
            yield rev
            for parent in parents.get(rev, ()):
                if parent not in seen:
                    seen.add(parent)
                    stack.append(parent)


def _str_list(value: object) -> TypeGuard[list[str]]:
    if type(value) is not list:
        return False
    if len(value) < 2:  # the common case (a first revision, a plain edit) without a generator
        return not value or type(value[0]) is str
    return all(type(item) is str for item in value)


@contextmanager
def paused_gc() -> Iterator[None]:
    """No cyclic garbage collection while a projection builds its indexes.

    A projection allocates some 10^5 small tuples while the ledger's records (several 10^5
    objects) are alive; that triggers full collections which traverse all of them and cost
    more than the projection itself. The structures built here hold no cycles, so nothing is
    lost by collecting later. Only re-enabled if it was on (callers may nest).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
