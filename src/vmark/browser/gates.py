"""Is the page a tab reached a gate (login wall, consent interstitial, human-verification challenge,
rate limit) rather than the content asked for? Advisory only: it changes what the agent is told,
never what is authorized, and every hint asks the agent to involve the person.

Precision comes first. A gate is reported only on a terse page (a long page is content, whatever
else it carries), and then either for a rendered challenge widget alone or for at least two
independent signals. Signals come from four channels, at most one counted per channel and kind:
the HTTP ``status``, the ``url``, the page's words (title and text: one channel, since the same
author wrote both) and its ``markup`` (html and frames). So a price of $429, a "Protected by
Cloudflare" footer or an article about CAPTCHAs never classify: each is at most one signal.

Decisions:
- A challenge widget embedded in a long page (a comment form under an article) is part of that page,
  not a gate; invisible widgets (reCAPTCHA v3, invisible hCaptcha) never count.
- A consent dialog is a gate only when little else is visible: the page's visible lines outside the
  dialog must stay short, unless the URL itself is a consent interstitial.
- ``text`` is the page's visible text with its line breaks (``innerText``), ``frames`` the URLs of
  its attached frames, ``html`` its serialized DOM.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Literal
from urllib.parse import urlsplit

from vmark.protocol import browser_results
from vmark.protocol.limits import GATE_MAX_HTML_CHARS

GateKind = Literal["login", "consent", "challenge", "rate-limit"]

#: a page with more visible text than this is content, not a gate
TERSE_CHARS = 3000
#: visible text outside a consent dialog above which the dialog is a banner over a page
CONSENT_OTHER_CHARS = 600

HINTS: dict[GateKind, str] = {
    "challenge": "The site is asking for human verification. Ask the person to complete it in this tab, then retry.",
    "login": "The site wants a sign-in before it shows this page. Ask the person to sign in in this tab, then retry.",
    "consent": (
        "The site shows a consent dialog before its content. Ask the person to make their choice in this tab,"
        " then retry."
    ),
    "rate-limit": "The site is limiting requests. Wait before trying again, and tell the person if it persists.",
}


@dataclass(frozen=True)
class Gate:
    kind: GateKind
    hint: str
    #: the evidence, as ``channel:what`` (e.g. ``status:429``), for logs and tests
    signals: tuple[str, ...]

    def as_data(self) -> browser_results.Gate:
        """What an agent is shown: ``{kind, hint}``."""
        return {"kind": self.kind, "hint": self.hint}


def _phrases(*patterns: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(patterns) + r")", re.IGNORECASE)


_APOS = "['\u2019]"
_WORDS: dict[GateKind, re.Pattern[str]] = {
    "challenge": _phrases(
        r"just a moment",
        r"checking (?:if the site connection is secure|your browser)",
        r"verify(?:ing)? (?:that )?you are (?:a )?human",
        rf"(?:you{_APOS}re|you are) not a robot",
        r"complete the security check",
        r"human verification",
        r"unusual traffic from your (?:computer )?network",
        r"press (?:&|and) hold",
        r"enable javascript and cookies to continue",
        r"needs to review the security of your connection",
        r"attention required! \| cloudflare",
    ),
    "rate-limit": _phrases(
        r"too many requests",
        r"rate[- ]?limit(?:ed|ing)?\b",
        r"(?:request|usage) limit (?:exceeded|reached)",
        r"you(?: have|{_APOS}ve)? (?:sent|made) too many",
        r"slow down",
        r"try again (?:later|in \d+ (?:seconds?|minutes?))",
    ),
    "login": _phrases(
        r"(?:sign|log) ?in to (?:continue|view|see|access|read)",
        r"(?:sign|log) ?in or (?:sign up|join|register|create an account) to",
        r"please (?:sign|log) ?in\b",
        r"you (?:must|need to) (?:be )?(?:signed|logged) ?in",
        r"(?:sign|log) ?in(?: is)? required",
        r"join to view",
        r"your session has expired",
    ),
    "consent": _phrases(
        r"we use cookies",
        r"uses cookies",
        r"we value your privacy",
        r"your privacy choices",
        r"before you continue",
        r"we and our (?:\d+ )?partners",
        r"cookie (?:consent|preferences|settings)",
        r"(?:accept|reject|allow) (?:all )?cookies",
        r"manage (?:your )?(?:cookies|consent|preferences)",
    ),
}
_STATUSES: dict[GateKind, frozenset[int]] = {
    "challenge": frozenset({403, 503}),
    "rate-limit": frozenset({429}),
    "login": frozenset({401}),
    "consent": frozenset(),
}
_LOGIN_PATH = re.compile(
    r"/(?:log[-_]?in|sign[-_]?in|log[-_]?on|auth(?:enticate|orize)?|sso|authwall|session/new|servicelogin)(?:[/.?]|$)",
    re.IGNORECASE,
)
_CONSENT_BUTTON = re.compile(
    r"(?:i )?(?:accept|agree|allow|reject|decline|refuse|consent|do not consent)"
    r"(?: all| to all| cookies| all cookies| and continue| & continue| and close| necessary(?: cookies)?"
    r"| only necessary(?: cookies)?)?",
    re.IGNORECASE,
)
_CMP_CONTAINER = re.compile(
    r"onetrust-(?:banner|consent)-sdk|cybotcookiebot|qc-cmp2|sp_message_container|didomi-popup|truste-consent"
    r"|usercentrics-root|cmpbox|fc-consent-root|cookie-law-info-bar|osano-cm-window|cky-consent|iubenda-cs-banner"
    r"|\bcc-window\b",
    re.IGNORECASE,
)
_CONSENT_WORD = re.compile(r"cookie|consent|privacy|gdpr", re.IGNORECASE)
_WIDGET_CLASSES = {"cf-turnstile": "turnstile", "h-captcha": "hcaptcha", "g-recaptcha": "recaptcha"}
_WIDGET_CLASSES |= {"frc-captcha": "friendly-captcha"}
_CHALLENGE_IDS = frozenset({"challenge-form", "challenge-running", "challenge-stage", "cf-challenge-running"})
#: the interstitial's own script assigns its options (a page merely mentioning the name does not)
_CF_OPTIONS = re.compile(r"_cf_chl_opt\s*=\s*\{")
_SPACE = re.compile(r"\s+")
#: when a page shows several gates, the one the agent should hear about
_PRECEDENCE: tuple[GateKind, ...] = ("challenge", "rate-limit", "login", "consent")


def _squash(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


# --- markup ------------------------------------------------------------------------------------------
@dataclass
class _Capture:
    """Text collected inside one element, until its end tag (same-name nesting counted)."""

    tag: str
    kind: Literal["button", "consent"]
    depth: int = 1
    parts: list[str] = field(default_factory=list)


@dataclass
class _Markup:
    frames: list[str] = field(default_factory=list)
    widgets: list[str] = field(default_factory=list)
    challenge: list[str] = field(default_factory=list)
    password_fields: int = 0
    buttons: list[str] = field(default_factory=list)
    consent_containers: list[str] = field(default_factory=list)
    #: the text inside consent containers, squashed and lowercased
    consent_text: list[str] = field(default_factory=list)


class _Scanner(HTMLParser):
    """One pass over the html collecting what the signals need. Text inside ``<code>``-like content
    arrives as data, never as tags, so an article quoting widget markup is not widget markup."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found = _Markup()
        self._open: list[_Capture] = []
        self._raw: str | None = None  # inside <script> or <style>, whose content is not text

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        for capture in self._open:
            if capture.tag == tag:
                capture.depth += 1
        if tag in ("script", "style"):
            self._raw = tag
        src = a.get("src", "")
        if tag in ("iframe", "frame") and src:
            self.found.frames.append(src)
        if tag == "script" and "/cdn-cgi/challenge-platform/" in src and "/orchestrate/" in src:
            self.found.challenge.append("cf-challenge-script")
        if a.get("id") in _CHALLENGE_IDS:
            self.found.challenge.append(a["id"])
        self._note_widget(tag, a)
        kind = a.get("type", "").lower() if tag == "input" else ""
        if kind == "password":
            self.found.password_fields += 1
        if kind in ("button", "submit"):
            self.found.buttons.append(a.get("aria-label") or a.get("value", ""))
        elif tag == "button" or a.get("role") == "button":
            self._open.append(_Capture(tag, "button", parts=[a.get("aria-label", "")]))
        if self._is_consent_container(tag, a):
            self.found.consent_containers.append(a.get("id") or a.get("class") or tag)
            self._open.append(_Capture(tag, "consent"))

    def _note_widget(self, tag: str, a: dict[str, str]) -> None:
        # a widget class on a button binds an invisible check (reCAPTCHA v3, invisible hCaptcha) to it
        if a.get("data-size") == "invisible" or tag in ("button", "input", "a"):
            return
        classes = a.get("class", "").split()
        self.found.widgets += [name for cls, name in _WIDGET_CLASSES.items() if cls in classes]
        ident = a.get("id", "")
        if ident == "px-captcha":
            self.found.widgets.append("perimeterx")
        elif ident.startswith("cf-chl-widget"):
            self.found.widgets.append("turnstile")

    @staticmethod
    def _is_consent_container(tag: str, a: dict[str, str]) -> bool:
        names = " ".join((a.get("id", ""), a.get("class", ""), a.get("aria-label", "")))
        if _CMP_CONTAINER.search(names):
            return True
        dialog = tag == "dialog" or a.get("role") in ("dialog", "alertdialog") or a.get("aria-modal") == "true"
        return dialog and bool(_CONSENT_WORD.search(names))

    def handle_endtag(self, tag: str) -> None:
        if tag == self._raw:
            self._raw = None
        for capture in list(self._open):
            if capture.tag == tag:
                capture.depth -= 1
                if capture.depth == 0:
                    self._finish(capture)

    def handle_data(self, data: str) -> None:
        if self._raw is not None:
            if self._raw == "script" and _CF_OPTIONS.search(data):
                self.found.challenge.append("cf-challenge-options")
            return
        for capture in self._open:
            capture.parts.append(data)

    def _finish(self, capture: _Capture) -> None:
        self._open.remove(capture)
        text = _squash(" ".join(capture.parts))
        if capture.kind == "button":
            self.found.buttons.append(text)
        else:
            self.found.consent_text.append(text.lower())

    def close(self) -> None:
        super().close()
        for capture in list(self._open):  # elements never closed end with the document
            self._finish(capture)


def _scan(html: str | None) -> _Markup:
    if not html:
        return _Markup()
    scanner = _Scanner()
    scanner.feed(html[:GATE_MAX_HTML_CHARS])
    scanner.close()
    return scanner.found


def _host_is(host: str, domain: str) -> bool:
    return host == domain or host.endswith("." + domain)


def _frame_widget(src: str) -> str | None:
    """The provider of a visible challenge widget served in this frame, if it is one."""
    try:
        parts = urlsplit(src)
    except ValueError:
        return None
    host, path, rest = (parts.hostname or ""), parts.path, f"{parts.path}?{parts.query}#{parts.fragment}"
    if "invisible" in rest.lower():
        return None
    if host == "challenges.cloudflare.com":
        return "turnstile"
    if _host_is(host, "hcaptcha.com") and "frame=checkbox" in rest:
        return "hcaptcha"
    recaptcha_host = _host_is(host, "google.com") or _host_is(host, "recaptcha.net")
    if recaptcha_host and "/recaptcha/" in path and path.endswith("/anchor"):
        return "recaptcha"
    if _host_is(host, "captcha-delivery.com"):
        return "datadome"
    return None


# --- signals -----------------------------------------------------------------------------------------
def _url_signal(kind: GateKind, url: str) -> str | None:
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    host = parts.hostname or ""
    if kind == "challenge":
        if "__cf_chl_" in parts.query or "/cdn-cgi/challenge-platform/" in parts.path:
            return "url:cf-challenge"
        return "url:google-sorry" if _host_is(host, "google.com") and parts.path.startswith("/sorry/") else None
    if kind == "login":
        return "url:login-path" if _LOGIN_PATH.search(parts.path) else None
    if kind == "consent":
        consent = host.startswith(("consent.", "guce.")) or "/consent" in parts.path.lower()
        return "url:consent" if consent else None
    return None


def _markup_signal(kind: GateKind, markup: _Markup) -> str | None:
    if kind == "challenge" and markup.challenge:
        return f"markup:{markup.challenge[0]}"
    if kind == "login" and markup.password_fields:
        return "markup:password-field"
    if kind == "consent":
        if markup.consent_containers:
            return "markup:consent-dialog"
        if any(_CONSENT_BUTTON.fullmatch(_squash(label)) for label in markup.buttons):
            return "markup:consent-button"
    return None


def _words_signal(kind: GateKind, words: str) -> str | None:
    match = _WORDS[kind].search(words)
    return f"words:{match.group(0).lower()}" if match else None


def _signals(kind: GateKind, *, url: str, words: str, status: int | None, markup: _Markup) -> tuple[str, ...]:
    found = (
        f"status:{status}" if status in _STATUSES[kind] else None,
        _url_signal(kind, url),
        _words_signal(kind, words),
        _markup_signal(kind, markup),
    )
    return tuple(s for s in found if s is not None)


def _belongs_to_consent(line: str, dialog_text: str) -> bool:
    return line.lower() in dialog_text or bool(_WORDS["consent"].search(line)) or bool(_CONSENT_BUTTON.fullmatch(line))


def _outside_consent(text: str, markup: _Markup) -> int:
    """Visible characters on lines that belong neither to a consent dialog nor to consent wording."""
    dialog_text = "\n".join(markup.consent_text)
    lines = (_squash(line) for line in text.splitlines())
    return sum(len(line) for line in lines if line and not _belongs_to_consent(line, dialog_text))


def _widget(frames: Sequence[str], markup: _Markup) -> str | None:
    for src in (*frames, *markup.frames):
        provider = _frame_widget(src)
        if provider is not None:
            return provider
    return markup.widgets[0] if markup.widgets else None


# --- the API -----------------------------------------------------------------------------------------
def detect_gate(
    *,
    url: str,
    title: str,
    text: str,
    html: str | None = None,
    status: int | None = None,
    frames: Sequence[str] = (),
) -> Gate | None:
    """The gate the page reads as, or None. See the module docstring for the rules."""
    if len(_squash(text)) > TERSE_CHARS:
        return None
    markup = _scan(html)
    widget = _widget(frames, markup)
    if widget is not None:
        return Gate("challenge", HINTS["challenge"], (f"widget:{widget}",))
    words = _squash(f"{title}\n{text}")
    for kind in _PRECEDENCE:
        signals = _signals(kind, url=url, words=words, status=status, markup=markup)
        if len(signals) < 2:
            continue
        banner = kind == "consent" and "url:consent" not in signals
        if banner and _outside_consent(text, markup) > CONSENT_OTHER_CHARS:
            continue  # a banner over a page that has its own content
        return Gate(kind, HINTS[kind], signals)
    return None
