"""What the app answers the MCP server's own requests beside the tools (``mcp.<family>.<op>`` on the bridge):
its clients' resources, prompts and completions (``app/handlers/agent.py`` answers, ``mcp/surface.py`` turns
them into the SDK's types). The shapes are MCP's (2025-06-18), ``_meta`` VMark's.
"""

from typing import Literal, NotRequired, TypedDict


class ResourceMeta(TypedDict):
    """A resource's document: the tabs showing it, whether its text is unsaved, its file; ``revision`` when it
    is open (a file no tab shows has none)."""

    revision: NotRequired[str]
    tabIds: list[str]
    dirty: bool
    filePath: NotRequired[str]


class Resource(TypedDict):
    """An open tab, as ``resources/list`` lists it."""

    uri: str
    name: str
    title: str
    description: str
    mimeType: str
    _meta: ResourceMeta


class ResourceTemplate(TypedDict):
    uriTemplate: str
    name: str
    title: str
    description: str


class ResourceContents(TypedDict):
    uri: str
    mimeType: str
    text: str
    _meta: ResourceMeta


class Resources(TypedDict):
    resources: list[Resource]


class ResourceTemplates(TypedDict):
    resourceTemplates: list[ResourceTemplate]


class ResourceRead(TypedDict):
    contents: list[ResourceContents]


class ResourceChecked(TypedDict):
    """A URI a client may subscribe to."""

    uri: str


class PromptArgument(TypedDict):
    name: str
    description: str
    required: bool


class Prompt(TypedDict):
    name: str
    description: str
    arguments: list[PromptArgument]
    title: NotRequired[str]


class Prompts(TypedDict):
    prompts: list[Prompt]


class TextContent(TypedDict):
    type: Literal["text"]
    text: str


class PromptMessage(TypedDict):
    role: Literal["user"]
    content: TextContent


class PromptGot(TypedDict):
    """A prompt filled in: its description and the one user message."""

    description: str
    messages: list[PromptMessage]


class Completion(TypedDict):
    """``completion/complete``: the values that fit what was typed, at most ``COMPLETION_MAX_VALUES`` of them."""

    values: list[str]
    total: int
    hasMore: bool
