"""The packages of vmark's optional extras, as its metadata pins them: what a fix tells a person to install."""

from __future__ import annotations

import importlib.metadata


def extra_requirement(package: str, extra: str) -> str:
    """``package`` as vmark's ``extra`` pins it (``name==version``), or its bare name."""
    try:
        requires = importlib.metadata.requires("vmark") or []
    except importlib.metadata.PackageNotFoundError:
        requires = []
    for requirement in requires:
        spec, _, marker = requirement.partition(";")
        if spec.strip().startswith(package) and f'extra == "{extra}"' in marker.replace("'", '"'):
            return spec.strip()
    return package
