"""The one name for a JSON object whose keys and values are not known yet: a request's arguments before they are
checked, a value a page or a program handed over as it is. Everything with a known shape has its ``TypedDict``
(:mod:`.results`, :mod:`.wire_types`) or a dataclass of its own package."""

from typing import Any, TypeAlias

#: a JSON object as it came: arbitrary values, to be checked before anything relies on them
JSONObject: TypeAlias = dict[str, Any]
