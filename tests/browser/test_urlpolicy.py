"""Browser targets: which URLs a tab may be sent to, and what of a URL an agent sees (no network: every
name is answered by an injected resolver)."""

from __future__ import annotations

import socket

import pytest

from vmark.browser.urlpolicy import Reason, TargetVerdict, check_target, origin_of, redact_url

_DNS = {
    "example.com": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
    "xn--bcher-kva.de": ["81.169.145.78"],
    "intranet": ["10.1.2.3"],
    "rebind.example": ["93.184.216.34", "127.0.0.1"],
    "cgnat.example": ["100.100.100.200"],
    "v6private.example": ["fd12:3456::1"],
    "meta.example": ["169.254.169.254"],
    "mapped.example": ["::ffff:192.168.1.1"],
    "local.example": ["fe80::1%eth0"],
}


def _resolve(host: str) -> list[str]:
    if host not in _DNS:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    return [address.partition("%")[0] for address in _DNS[host]]


def _check(url: str, *, allow_private: bool = False) -> TargetVerdict:
    return check_target(url, allow_private=allow_private, resolve=_resolve)


# --- allowed: public http(s), normalized the way the browser reads it ------------------------------
@pytest.mark.parametrize(
    ("url", "normalized", "detail"),
    [
        (
            "https://example.com/a?q=1#top",
            "https://example.com/a?q=1#top",
            "example.com resolves to public addresses only",
        ),
        ("HTTP://EXAMPLE.com:80", "http://example.com/", "example.com resolves to public addresses only"),
        ("https://example.com:443/x", "https://example.com/x", "example.com resolves to public addresses only"),
        ("https://example.com:8443/x", "https://example.com:8443/x", "example.com resolves to public addresses only"),
        ("  https://example.com/\t\n ", "https://example.com/", "example.com resolves to public addresses only"),
        ("https://exa\tmple.com/", "https://example.com/", "example.com resolves to public addresses only"),
        ("http://bücher.de/", "http://xn--bcher-kva.de/", "xn--bcher-kva.de resolves to public addresses only"),
        ("http://8.8.8.8/", "http://8.8.8.8/", "8.8.8.8 is a public address"),
        ("http://0x8.0x8.0x8.0x8/", "http://8.8.8.8/", "8.8.8.8 is a public address"),
        ("http://134744072/", "http://8.8.8.8/", "8.8.8.8 is a public address"),
        (
            "http://[2606:4700:4700::1111]/",
            "http://[2606:4700:4700::1111]/",
            "2606:4700:4700::1111 is a public address",
        ),
        ("http://[::ffff:8.8.8.8]/", "http://[::ffff:808:808]/", "::ffff:808:808 is a public address"),
        ("http://[64:ff9b::8.8.8.8]/", "http://[64:ff9b::808:808]/", "64:ff9b::808:808 is a public address"),
        # a backslash is a slash to the browser, so this goes to example.com, path /@127.0.0.1/
        (
            "http://example.com\\@127.0.0.1/",
            "http://example.com/@127.0.0.1/",
            "example.com resolves to public addresses only",
        ),
    ],
)
def test_public_targets_are_allowed_and_normalized(url: str, normalized: str, detail: str) -> None:
    assert _check(url) == TargetVerdict(True, "ok", normalized, detail)


# --- refused addresses, in every spelling --------------------------------------------------------
@pytest.mark.parametrize(
    ("url", "reason", "normalized"),
    [
        ("http://127.0.0.1/", "loopback", "http://127.0.0.1/"),
        ("http://127.255.255.254:8080/x", "loopback", "http://127.255.255.254:8080/x"),
        ("http://2130706433/", "loopback", "http://127.0.0.1/"),
        ("http://0x7f.1/", "loopback", "http://127.0.0.1/"),
        ("http://017700000001/", "loopback", "http://127.0.0.1/"),
        ("http://0x7f000001/", "loopback", "http://127.0.0.1/"),
        ("http://0177.0.0.1/", "loopback", "http://127.0.0.1/"),
        ("http://127.1/", "loopback", "http://127.0.0.1/"),
        ("http://127.0.1/", "loopback", "http://127.0.0.1/"),
        ("http://127.0.0.1./", "loopback", "http://127.0.0.1/"),
        ("http://%31%32%37.0.0.1/", "loopback", "http://127.0.0.1/"),
        ("http://\uff11\uff12\uff17.\uff10.\uff10.\uff11/", "loopback", "http://127.0.0.1/"),
        ("http://127\u30020\u30020\u30021/", "loopback", "http://127.0.0.1/"),
        ("http://[::1]/", "loopback", "http://[::1]/"),
        ("http://[0:0:0:0:0:0:0:1]:81/", "loopback", "http://[::1]:81/"),
        ("http://[::ffff:127.0.0.1]/", "loopback", "http://[::ffff:7f00:1]/"),
        ("http://[::ffff:7f00:1]/", "loopback", "http://[::ffff:7f00:1]/"),
        ("http://[64:ff9b::127.0.0.1]/", "loopback", "http://[64:ff9b::7f00:1]/"),
        ("http://[2002:7f00:1::]/", "loopback", "http://[2002:7f00:1::]/"),
        ("http://10.0.0.1/", "private", "http://10.0.0.1/"),
        ("http://172.16.0.1/", "private", "http://172.16.0.1/"),
        ("http://172.31.255.255/", "private", "http://172.31.255.255/"),
        ("http://192.168.1.1/", "private", "http://192.168.1.1/"),
        ("http://0xc0.0xa8.1.1/", "private", "http://192.168.1.1/"),
        ("http://3232235777/", "private", "http://192.168.1.1/"),
        ("http://100.64.0.1/", "private", "http://100.64.0.1/"),
        ("http://100.127.255.254/", "private", "http://100.127.255.254/"),
        ("http://[fc00::1]/", "private", "http://[fc00::1]/"),
        ("http://[fd12:3456::1]/", "private", "http://[fd12:3456::1]/"),
        ("http://[fec0::1]/", "private", "http://[fec0::1]/"),
        ("http://[::ffff:10.0.0.1]/", "private", "http://[::ffff:a00:1]/"),
        ("http://169.254.1.1/", "link-local", "http://169.254.1.1/"),
        ("http://[fe80::1]/", "link-local", "http://[fe80::1]/"),
        ("http://[::ffff:169.254.1.1]/", "link-local", "http://[::ffff:a9fe:101]/"),
        ("http://169.254.169.254/latest/meta-data/", "metadata", "http://169.254.169.254/latest/meta-data/"),
        ("http://2852039166/", "metadata", "http://169.254.169.254/"),
        ("http://0xa9.0xfe.0xa9.0xfe/", "metadata", "http://169.254.169.254/"),
        ("http://[::ffff:169.254.169.254]/", "metadata", "http://[::ffff:a9fe:a9fe]/"),
        ("http://[fd00:ec2::254]/", "metadata", "http://[fd00:ec2::254]/"),
        ("http://168.63.129.16/", "metadata", "http://168.63.129.16/"),
        ("http://0.0.0.0/", "unspecified", "http://0.0.0.0/"),
        ("http://0/", "unspecified", "http://0.0.0.0/"),
        ("http://0.1.2.3/", "unspecified", "http://0.1.2.3/"),
        ("http://[::]/", "unspecified", "http://[::]/"),
        ("http://224.0.0.1/", "multicast", "http://224.0.0.1/"),
        ("http://239.255.255.250/", "multicast", "http://239.255.255.250/"),
        ("http://[ff02::1]/", "multicast", "http://[ff02::1]/"),
        ("http://240.0.0.1/", "reserved", "http://240.0.0.1/"),
        ("http://255.255.255.255/", "reserved", "http://255.255.255.255/"),
        ("http://192.0.2.1/", "reserved", "http://192.0.2.1/"),
        ("http://198.18.0.1/", "reserved", "http://198.18.0.1/"),
        ("http://[2001:db8::1]/", "reserved", "http://[2001:db8::1]/"),
        ("http://[::127.0.0.1]/", "reserved", "http://[::7f00:1]/"),
    ],
)
def test_non_public_addresses_are_refused(url: str, reason: str, normalized: str) -> None:
    verdict = _check(url)
    assert (verdict.allowed, verdict.reason, verdict.url) == (False, reason, normalized)


@pytest.mark.parametrize(
    ("url", "verdict"),
    [
        ("http://127.0.0.1/", TargetVerdict(False, "loopback", "http://127.0.0.1/", "127.0.0.1 is a loopback address")),
        (
            "http://[fe80::1]/",
            TargetVerdict(False, "link-local", "http://[fe80::1]/", "fe80::1 is a link-local address"),
        ),
        ("http://0/", TargetVerdict(False, "unspecified", "http://0.0.0.0/", "0.0.0.0 is an unspecified address")),
        (
            "http://localhost:3000/",
            TargetVerdict(False, "localhost", "http://localhost:3000/", "localhost names this computer"),
        ),
        (
            "http://LOCALHOST./",
            TargetVerdict(False, "localhost", "http://localhost./", "localhost names this computer"),
        ),
        (
            "http://app.localhost/",
            TargetVerdict(False, "localhost", "http://app.localhost/", "app.localhost names this computer"),
        ),
        (
            "http://%6c%6f%63%61%6c%68%6f%73%74/",
            TargetVerdict(False, "localhost", "http://localhost/", "localhost names this computer"),
        ),
        (
            "http://metadata.google.internal/computeMetadata/v1/",
            TargetVerdict(
                False,
                "metadata",
                "http://metadata.google.internal/computeMetadata/v1/",
                "metadata.google.internal is a cloud metadata host",
            ),
        ),
        (
            "https://intranet/wiki",
            TargetVerdict(
                False, "private", "https://intranet/wiki", "intranet resolves to 10.1.2.3, a private address"
            ),
        ),
        (
            "https://rebind.example/",
            TargetVerdict(
                False, "loopback", "https://rebind.example/", "rebind.example resolves to 127.0.0.1, a loopback address"
            ),
        ),
        (
            "https://cgnat.example/",
            TargetVerdict(
                False,
                "private",
                "https://cgnat.example/",
                "cgnat.example resolves to 100.100.100.200, a private address",
            ),
        ),
        (
            "https://v6private.example/",
            TargetVerdict(
                False,
                "private",
                "https://v6private.example/",
                "v6private.example resolves to fd12:3456::1, a private address",
            ),
        ),
        (
            "https://meta.example/",
            TargetVerdict(
                False,
                "metadata",
                "https://meta.example/",
                "meta.example resolves to 169.254.169.254, a cloud metadata address",
            ),
        ),
        (
            "https://mapped.example/",
            TargetVerdict(
                False,
                "private",
                "https://mapped.example/",
                "mapped.example resolves to ::ffff:c0a8:101, a private address",
            ),
        ),
        (
            "https://local.example/",
            TargetVerdict(
                False, "link-local", "https://local.example/", "local.example resolves to fe80::1, a link-local address"
            ),
        ),
        (
            "https://nowhere.example/",
            TargetVerdict(False, "unresolvable", "https://nowhere.example/", "nowhere.example could not be resolved"),
        ),
    ],
)
def test_refusals_name_the_host_and_class(url: str, verdict: TargetVerdict) -> None:
    assert _check(url) == verdict


# --- refused whatever the setting: malformed, other schemes, user info -----------------------------
@pytest.mark.parametrize(
    ("url", "reason", "detail"),
    [
        ("file:///etc/passwd", "scheme", "file: URLs are not allowed, only http and https"),
        ("javascript:alert(1)", "scheme", "javascript: URLs are not allowed, only http and https"),
        ("JavaScript:alert(1)", "scheme", "javascript: URLs are not allowed, only http and https"),
        ("data:text/html,<h1>hi</h1>", "scheme", "data: URLs are not allowed, only http and https"),
        ("about:blank", "scheme", "about: URLs are not allowed, only http and https"),
        ("chrome://settings/", "scheme", "chrome: URLs are not allowed, only http and https"),
        ("view-source:https://example.com/", "scheme", "view-source: URLs are not allowed, only http and https"),
        ("ftp://example.com/", "scheme", "ftp: URLs are not allowed, only http and https"),
        ("ws://example.com/", "scheme", "ws: URLs are not allowed, only http and https"),
        ("example.com", "malformed", "malformed URL: the URL has no scheme; use http:// or https://"),
        ("//example.com/", "malformed", "malformed URL: the URL has no scheme; use http:// or https://"),
        ("", "malformed", "malformed URL: the URL has no scheme; use http:// or https://"),
        ("http://", "malformed", "malformed URL: the URL has no host"),
        ("http:///example.com", "malformed", "malformed URL: the URL has no host"),
        ("http://:80/", "malformed", "malformed URL: the URL has no host"),
        ("http://example.com:99999/", "malformed", "malformed URL: '99999' is not a valid port"),
        ("http://example.com:8o/", "malformed", "malformed URL: '8o' is not a valid port"),
        ("http://1:2:3/", "malformed", "malformed URL: '2:3' is not a valid port"),
        ("http://[::1/", "malformed", "malformed URL: the URL cannot be parsed"),
        ("http://[::1]x/", "malformed", "malformed URL: the IPv6 host is not closed by ']'"),
        ("http://[::1%25eth0]/", "malformed", "malformed URL: '[::1%25eth0]' is not a valid IPv6 address"),
        ("http://[127.0.0.1]/", "malformed", "malformed URL: the URL cannot be parsed"),
        ("http://256.0.0.1/", "malformed", "malformed URL: '256.0.0.1' is not a valid IPv4 address"),
        ("http://1.2.3.4.5/", "malformed", "malformed URL: '1.2.3.4.5' is not a valid IPv4 address"),
        ("http://0x100000000/", "malformed", "malformed URL: '0x100000000' is not a valid IPv4 address"),
        ("http://08.0.0.1/", "malformed", "malformed URL: '08.0.0.1' is not a valid IPv4 address"),
        ("http://example.09/", "malformed", "malformed URL: 'example.09' is not a valid IPv4 address"),
        ("http://1..1/", "malformed", "malformed URL: '1..1' is not a valid IPv4 address"),
        (
            "http://exa mple.com/",
            "malformed",
            "malformed URL: the host is empty or contains a character hosts cannot have",
        ),
        (
            "http://exa%20mple.com/",
            "malformed",
            "malformed URL: the host is empty or contains a character hosts cannot have",
        ),
        ("http://%ff.example/", "malformed", "malformed URL: the host is not valid UTF-8 once percent-decoded"),
        (
            "http://fa\u00df.de/",
            "malformed",
            "malformed URL: the host contains a character that IDNA encodings map differently",
        ),
        (
            "http://a\u200db.example/",
            "malformed",
            "malformed URL: the host contains a character that IDNA encodings map differently",
        ),
    ],
)
@pytest.mark.parametrize("allow_private", [False, True])
def test_malformed_and_other_schemes_are_refused(url: str, reason: Reason, detail: str, allow_private: bool) -> None:
    assert _check(url, allow_private=allow_private) == TargetVerdict(False, reason, "", detail)


@pytest.mark.parametrize(
    ("url", "normalized"),
    [
        ("http://user@example.com/", "http://example.com/"),
        ("http://user:secret@example.com/", "http://example.com/"),
        ("http://@example.com/", "http://example.com/"),
        ("http://example.com@127.0.0.1/", "http://127.0.0.1/"),
        ("http://a@b@8.8.8.8/", "http://8.8.8.8/"),
        ("http://example.com%2f@evil.example/", "http://evil.example/"),
    ],
)
@pytest.mark.parametrize("allow_private", [False, True])
def test_userinfo_is_refused(url: str, normalized: str, allow_private: bool) -> None:
    expected = TargetVerdict(False, "userinfo", normalized, "URLs with a user name or password are not allowed")
    assert _check(url, allow_private=allow_private) == expected


# --- allow_private: the local test sites -----------------------------------------------------------
@pytest.mark.parametrize(
    ("url", "normalized", "detail"),
    [
        ("http://127.0.0.1:8123/page", "http://127.0.0.1:8123/page", "127.0.0.1 is allowed"),
        ("http://2130706433/", "http://127.0.0.1/", "127.0.0.1 is allowed"),
        ("http://localhost:8123/", "http://localhost:8123/", "localhost is allowed"),
        ("http://[::1]:8123/", "http://[::1]:8123/", "::1 is allowed"),
        ("http://169.254.169.254/", "http://169.254.169.254/", "169.254.169.254 is allowed"),
        ("https://nowhere.example/", "https://nowhere.example/", "nowhere.example is allowed"),
    ],
)
def test_allow_private_allows_local_targets_without_resolving(url: str, normalized: str, detail: str) -> None:
    def no_dns(host: str) -> list[str]:
        raise AssertionError(f"resolved {host}")

    assert check_target(url, allow_private=True, resolve=no_dns) == TargetVerdict(True, "ok", normalized, detail)


def test_resolver_failures_and_garbage_are_unresolvable() -> None:
    def empty(host: str) -> list[str]:
        return []

    def garbage(host: str) -> list[str]:
        return ["not an address"]

    for resolver in (empty, garbage):
        verdict = check_target("https://example.com/", allow_private=False, resolve=resolver)
        assert (verdict.allowed, verdict.reason) == (False, "unresolvable")


def test_ip_literals_are_never_resolved() -> None:
    def no_dns(host: str) -> list[str]:
        raise AssertionError(f"resolved {host}")

    assert check_target("http://8.8.8.8/", allow_private=False, resolve=no_dns).allowed
    assert check_target("http://[::1]/", allow_private=False, resolve=no_dns).reason == "loopback"


def test_each_redirect_hop_is_judged_on_its_own() -> None:
    hops = ["https://example.com/start", "http://example.com/next", "http://127.0.0.1:8080/admin"]
    assert [_check(hop).reason for hop in hops] == ["ok", "ok", "loopback"]


# --- what agents see ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("url", "redacted"),
    [
        ("https://example.com/a/b?token=secret#frag", "https://example.com/a/b"),
        ("https://user:pw@Example.COM:443/p?q", "https://example.com/p"),
        ("http://example.com:8080", "http://example.com:8080/"),
        ("http://2130706433/x?y", "http://127.0.0.1/x"),
        ("http://[::1]:81/#x", "http://[::1]:81/"),
        ("https://example.com/?", "https://example.com/"),
        ("about:blank", "about:blank"),
        ("about:blank#frag", "about:blank"),
        ("about:srcdoc?x", "about:srcdoc"),
        ("data:text/html,<b>secret</b>", "data:"),
        ("javascript:alert(document.cookie)", "javascript:"),
        ("blob:https://example.com/6c1f-4e", "blob:"),
        ("file:///home/me/secret.txt", "file:"),
        ("chrome-error://chromewebdata/", "chrome-error:"),
        ("http://", ""),
        ("not a url", ""),
        ("", ""),
    ],
)
def test_redact_url(url: str, redacted: str) -> None:
    assert redact_url(url) == redacted


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("https://example.com/a?b#c", "https://example.com"),
        ("HTTPS://Example.com:443/", "https://example.com"),
        ("http://example.com:8080/x", "http://example.com:8080"),
        ("https://user:pw@example.com/", "https://example.com"),
        ("http://0x7f.1/", "http://127.0.0.1"),
        ("http://[::1]:81/", "http://[::1]:81"),
        ("http://bücher.de/", "http://xn--bcher-kva.de"),
        ("about:blank", "null"),
        ("data:text/plain,x", "null"),
        ("file:///etc/hosts", "null"),
        ("http://", "null"),
    ],
)
def test_origin_of(url: str, origin: str) -> None:
    assert origin_of(url) == origin
