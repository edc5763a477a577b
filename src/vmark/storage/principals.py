"""Principals: named client tokens, so approvals and delegations belong to someone.

Only a SHA-256 of each token is stored; the token itself is shown once, when made.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import time
from pathlib import Path
from typing import Any

from ..core.ids import new_token
from .atomic_json import read_json, update_json

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class PrincipalError(ValueError):
    pass


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class Principals:
    def __init__(self, path: Path) -> None:
        self.path = path

    def _load(self) -> dict[str, dict[str, Any]]:
        data = read_json(self.path)
        return data if isinstance(data, dict) else {}

    def add(self, name: str) -> str:
        if not _NAME.match(name):
            raise PrincipalError(f"invalid principal name {name!r} (letters, digits, . _ -; at most 64)")
        token = new_token()

        def insert(data: dict[str, Any]) -> None:
            if name in data:
                raise PrincipalError(f"principal {name!r} already exists")
            data[name] = {"token_sha256": _digest(token), "created": time.time()}

        update_json(self.path, insert)
        return token

    def remove(self, name: str) -> None:
        def delete(data: dict[str, Any]) -> None:
            if name not in data:
                raise PrincipalError(f"no principal named {name!r}")
            del data[name]

        update_json(self.path, delete)

    def list(self) -> list[dict[str, Any]]:
        return [{"name": n, "created": v.get("created")} for n, v in sorted(self._load().items())]

    def authenticate(self, token: str) -> str | None:
        digest = _digest(token)
        for name, entry in self._load().items():
            if hmac.compare_digest(str(entry.get("token_sha256", "")), digest):
                return name
        return None
