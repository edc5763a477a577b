"""Gate detection on realistic pages: what classifies, on which signals, and what never does."""

from __future__ import annotations

from typing import Any

import pytest

from vmark.browser.gates import HINTS, TERSE_CHARS, Gate, detect_gate

_PARAGRAPH = (
    "The city council met on Tuesday to discuss the new transit plan, which would add three bus lines "
    "and extend service hours on weekends. Residents spoke for and against the proposal for nearly two "
    "hours, and the vote was postponed until the budget office has finished its review of the costs. "
)
_LONG_ARTICLE = _PARAGRAPH * 12  # about 3,500 characters: content, not a gate

# --- pages that are gates --------------------------------------------------------------------------
_CF_INTERSTITIAL_HTML = """<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>
<meta http-equiv="refresh" content="390"><meta name="robots" content="noindex,nofollow">
<script>(function(){window._cf_chl_opt={cvId: '3',cZone: "example.com",cType: 'managed',
cRay: '8a1b2c3d4e5f6789',cH: 'x', cFPWv: 'b', cITimeS: '1718000000'};})();</script>
<script src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=8a1b2c3d4e5f6789"></script>
</head><body class="no-js"><div class="main-wrapper" role="main"><div class="main-content">
<h1 class="zone-name-title h1">example.com</h1><h2 class="h2" id="challenge-running">Verifying you are human.
This may take a few seconds.</h2><div id="challenge-stage"></div></div></div>
<div class="footer" role="contentinfo"><div class="footer-inner">Ray ID: <code>8a1b2c3d4e5f6789</code>
Performance &amp; security by <a href="https://www.cloudflare.com">Cloudflare</a></div></div></body></html>"""
_CF_INTERSTITIAL_TEXT = """example.com
Verifying you are human. This may take a few seconds.
example.com needs to review the security of your connection before proceeding.
Ray ID: 8a1b2c3d4e5f6789
Performance & security by Cloudflare"""
_TURNSTILE_FRAME = (
    "https://challenges.cloudflare.com/cdn-cgi/challenge-platform/h/g/turnstile/if/ov2/av0/rcv/abc12/"
    "0x4AAAAAAADnPIDROrmt1Wwj/light/fbE/new/normal/auto/"
)
_HCAPTCHA_FRAME = (
    "https://newassets.hcaptcha.com/captcha/v1/2b1e5c1/static/hcaptcha.html#frame=checkbox&id=0x1&host=shop.example"
    "&sentry=true&theme=light&size=normal&sitekey=10000000-ffff-ffff-ffff-000000000001"
)
_RECAPTCHA_FRAME = (
    "https://www.google.com/recaptcha/api2/anchor?ar=1&k=6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI&co=aHR0cHM6"
    "&hl=en&v=pCoGBhjs9s8EhFOHJFe8cqis&size=normal&cb=abc123"
)
_RECAPTCHA_INVISIBLE_FRAME = (
    "https://www.google.com/recaptcha/api2/anchor?ar=1&k=6LdKey&co=aHR0cHM6&hl=en&v=pCoG&size=invisible&cb=x1"
)
_GOOGLE_SORRY_HTML = """<html><head><title>https://www.google.com/search?q=weather</title></head><body>
<div style="max-width:400px;"><hr noshade size="1"><br>
<form id="captcha-form" action="index" method="post">
<script src="https://www.google.com/recaptcha/api.js" async defer></script>
<div id="recaptcha" class="g-recaptcha" data-sitekey="6LfwuyUTAAAAAOAmoS0fdqijC2PbbdH4kjq62Y1b" data-s="x"></div>
<input type='hidden' name='q' value='EgQ'><input type="hidden" name="continue" value="https://www.google.com/">
</form><hr noshade size="1"><div style="font-size:13px;"><b>About this page</b><br><br>
Our systems have detected unusual traffic from your computer network.</div></div></body></html>"""
_ONETRUST_HTML = """<html><head><title>Daily Planet</title></head><body><div id="app"></div>
<div id="onetrust-consent-sdk"><div class="onetrust-pc-dark-filter"></div>
<div id="onetrust-banner-sdk" class="otCenterRounded" role="alertdialog" aria-modal="true"
aria-label="Privacy"><div class="ot-sdk-container"><h2 id="onetrust-policy-title">We value your privacy</h2>
<div id="onetrust-policy-text">We and our 143 partners store and/or access information on a device, such as
cookies, and process personal data. You may accept or manage your choices below.</div>
<div id="onetrust-button-group"><button id="onetrust-pc-btn-handler">Manage preferences</button>
<button id="onetrust-reject-all-handler">Reject All</button>
<button id="onetrust-accept-btn-handler">Accept All</button></div></div></div></div></body></html>"""
_ONETRUST_TEXT = """We value your privacy
We and our 143 partners store and/or access information on a device, such as cookies, and process personal data. \
You may accept or manage your choices below.
Manage preferences
Reject All
Accept All
Daily Planet"""
_GOOGLE_CONSENT_HTML = """<html><head><title>Before you continue to Google</title></head><body>
<div class="saveButtonContainer"><h1>Before you continue to Google</h1>
<p>We use cookies and data to deliver and maintain Google services.</p>
<form action="https://consent.google.com/save" method="POST"><input type="hidden" name="set_eom" value="true">
<button class="VfPpkd-LgbsSe" aria-label="Reject all"><span>Reject all</span></button></form>
<form action="https://consent.google.com/save" method="POST">
<button class="VfPpkd-LgbsSe"><span>Accept all</span></button></form>
<a href="https://consent.google.com/ml?continue=x">More options</a></div></body></html>"""
_GOOGLE_CONSENT_TEXT = """Before you continue to Google
We use cookies and data to
Deliver and maintain Google services
Track outages and protect against spam, fraud, and abuse
Measure audience engagement and site statistics to understand how our services are used
Reject all
Accept all
More options
Privacy · Terms"""
_LOGIN_HTML = """<html><head><title>Sign in | The Ledger</title></head><body><main class="auth">
<h1>Sign in to continue</h1><p>Subscribers sign in to read the full story.</p>
<form method="post" action="/login"><label>Email <input type="email" name="email" autocomplete="username"></label>
<label>Password <input type="password" name="password" autocomplete="current-password"></label>
<button type="submit">Sign in</button></form><a href="/forgot">Forgot password?</a></main></body></html>"""
_LOGIN_TEXT = (
    "Sign in to continue\nSubscribers sign in to read the full story.\nEmail\nPassword\nSign in\nForgot password?"
)

_POSITIVES: list[tuple[str, dict[str, Any], Gate]] = [
    (
        "cloudflare interstitial before the widget renders",
        {
            "url": "https://example.com/article/42",
            "title": "Just a moment...",
            "text": _CF_INTERSTITIAL_TEXT,
            "html": _CF_INTERSTITIAL_HTML,
            "status": 403,
        },
        Gate("challenge", HINTS["challenge"], ("status:403", "words:just a moment", "markup:cf-challenge-options")),
    ),
    (
        "cloudflare interstitial, html not captured, tokens in the url",
        {
            "url": "https://example.com/article/42?__cf_chl_rt_tk=abc.def-1718000000-0-gaNycGzNCxs",
            "title": "Just a moment...",
            "text": _CF_INTERSTITIAL_TEXT,
        },
        Gate("challenge", HINTS["challenge"], ("url:cf-challenge", "words:just a moment")),
    ),
    (
        "rendered turnstile widget",
        {
            "url": "https://example.com/article/42",
            "title": "Just a moment...",
            "text": _CF_INTERSTITIAL_TEXT,
            "html": _CF_INTERSTITIAL_HTML,
            "status": 403,
            "frames": ["https://example.com/article/42", _TURNSTILE_FRAME],
        },
        Gate("challenge", HINTS["challenge"], ("widget:turnstile",)),
    ),
    (
        "hcaptcha checkbox on a bare page, status 200",
        {
            "url": "https://shop.example/checkout",
            "title": "shop.example",
            "text": "One more thing\nPlease complete the check below to go on.",
            "status": 200,
            "frames": [_HCAPTCHA_FRAME],
        },
        Gate("challenge", HINTS["challenge"], ("widget:hcaptcha",)),
    ),
    (
        "recaptcha anchor frame",
        {"url": "https://forum.example/", "title": "Checking", "text": "", "frames": [_RECAPTCHA_FRAME]},
        Gate("challenge", HINTS["challenge"], ("widget:recaptcha",)),
    ),
    (
        "google sorry page: recaptcha container in the html",
        {
            "url": "https://www.google.com/sorry/index?continue=https://www.google.com/search%3Fq%3Dweather",
            "title": "https://www.google.com/search?q=weather",
            "text": "About this page\nOur systems have detected unusual traffic from your computer network.",
            "html": _GOOGLE_SORRY_HTML,
            "status": 429,
        },
        Gate("challenge", HINTS["challenge"], ("widget:recaptcha",)),
    ),
    (
        "turnstile container on a short verification page",
        {
            "url": "https://downloads.example/get/installer",
            "title": "Verify to download",
            "text": "Almost there\nConfirm the download\nDownload",
            "html": '<main><h1>Almost there</h1><form method="post"><div class="cf-turnstile" data-sitekey='
            '"0x4AAAAAAABkMYinukE8nzY"></div><button>Download</button></form></main>',
        },
        Gate("challenge", HINTS["challenge"], ("widget:turnstile",)),
    ),
    (
        "datadome captcha frame",
        {
            "url": "https://www.retailer.example/p/123",
            "title": "retailer.example",
            "text": "",
            "status": 403,
            "frames": ["https://geo.captcha-delivery.com/captcha/?initialCid=AHrlqAAA&hash=ABC&cid=x&t=fe&s=1234"],
        },
        Gate("challenge", HINTS["challenge"], ("widget:datadome",)),
    ),
    (
        "perimeterx press-and-hold",
        {
            "url": "https://tickets.example/",
            "title": "Access to this page has been denied",
            "text": "Before we continue...\nPress & Hold to confirm you are a human (and not a bot).",
            "html": '<html><body><h1>Before we continue...</h1><div id="px-captcha"></div></body></html>',
        },
        Gate("challenge", HINTS["challenge"], ("widget:perimeterx",)),
    ),
    (
        "nginx 429",
        {
            "url": "https://api-docs.example/v2/search",
            "title": "429 Too Many Requests",
            "text": "429 Too Many Requests\nnginx",
            "html": "<html><head><title>429 Too Many Requests</title></head><body><center><h1>429 Too Many "
            "Requests</h1></center><hr><center>nginx</center></body></html>",
            "status": 429,
        },
        Gate("rate-limit", HINTS["rate-limit"], ("status:429", "words:too many requests")),
    ),
    (
        "cloudflare error 1015",
        {
            "url": "https://example.com/search?q=x",
            "title": "Access denied | example.com used Cloudflare to restrict access",
            "text": "Error 1015\nRay ID: 8a1b2c3d4e5f6789\nYou are being rate limited\nWhat happened?\nThe owner of "
            "this website (example.com) has banned you temporarily from accessing this website.",
            "status": 429,
        },
        Gate("rate-limit", HINTS["rate-limit"], ("status:429", "words:rate limited")),
    ),
    (
        "login wall after a redirect",
        {
            "url": "https://ledger.example/login?next=%2Fstories%2F2024%2Fbudget",
            "title": "Sign in | The Ledger",
            "text": _LOGIN_TEXT,
            "html": _LOGIN_HTML,
            "status": 200,
        },
        Gate("login", HINTS["login"], ("url:login-path", "words:sign in to continue", "markup:password-field")),
    ),
    (
        "401 with a sign-in message, no html",
        {
            "url": "https://wiki.example/private/page",
            "title": "Unauthorized",
            "text": "You must be logged in to see this page.",
            "status": 401,
        },
        Gate("login", HINTS["login"], ("status:401", "words:you must be logged in")),
    ),
    (
        "google consent interstitial",
        {
            "url": "https://consent.google.com/ml?continue=https://www.google.com/&gl=DE&hl=en&pc=s&src=1",
            "title": "Before you continue to Google",
            "text": _GOOGLE_CONSENT_TEXT,
            "html": _GOOGLE_CONSENT_HTML,
            "status": 200,
        },
        Gate("consent", HINTS["consent"], ("url:consent", "words:before you continue", "markup:consent-button")),
    ),
    (
        "consent platform covering a page with little else",
        {
            "url": "https://dailyplanet.example/",
            "title": "Daily Planet",
            "text": _ONETRUST_TEXT,
            "html": _ONETRUST_HTML,
            "status": 200,
        },
        Gate("consent", HINTS["consent"], ("words:we value your privacy", "markup:consent-dialog")),
    ),
    (
        "login wall with a consent banner: the login is what matters",
        {
            "url": "https://ledger.example/login",
            "title": "Sign in | The Ledger",
            "text": _LOGIN_TEXT + "\n" + _ONETRUST_TEXT,
            "html": _LOGIN_HTML + _ONETRUST_HTML,
        },
        Gate("login", HINTS["login"], ("url:login-path", "words:sign in to continue", "markup:password-field")),
    ),
]


@pytest.mark.parametrize(("page", "gate"), [(p, g) for _, p, g in _POSITIVES], ids=[n for n, _, _ in _POSITIVES])
def test_gates_are_detected(page: dict[str, Any], gate: Gate) -> None:
    assert detect_gate(**page) == gate


# --- pages that are not gates ----------------------------------------------------------------------
_PRODUCT_HTML = """<html><head><title>Aurora 27" Monitor | Gadget Store</title></head><body>
<header><a href="/account/login">Sign in</a> <a href="/cart">Cart</a></header><main><h1>Aurora 27" 4K Monitor</h1>
<p class="price">$429.00</p><p>Only 429 left in stock. 429 ratings.</p><button>Add to cart</button>
<p>Ships in 2 days. Free returns.</p></main></body></html>"""
_CF_FOOTER_HTML = """<html><head><title>How we rebuilt our search | Eng Blog</title>
<script defer src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script></head><body>
<article><h1>How we rebuilt our search</h1><p>{body}</p></article>
<footer><p>© 2024 Eng Blog · Protected by Cloudflare · <a href="/privacy">Privacy</a></p></footer></body></html>"""
_CAPTCHA_ARTICLE_TEXT = """CAPTCHAs explained: how sites check that you are human
You have seen them: a box that says "I'm not a robot", a grid of traffic lights, or a page that says \
"Just a moment..." while it is checking your browser. Sites use them to verify you are human before \
letting you post or sign up.
Adding reCAPTCHA to a form takes one element:
<div class="g-recaptcha" data-sitekey="your_site_key"></div>
Cloudflare Turnstile works the same way with class cf-turnstile, and hCaptcha with h-captcha.
When a site is under attack it may answer 403 or 503 and show an interstitial instead."""
_CAPTCHA_ARTICLE_HTML = """<html><head><title>CAPTCHAs explained | Dev Notes</title></head><body><article>
<h1>CAPTCHAs explained: how sites check that you are human</h1><p>You have seen them...</p>
<pre><code>&lt;div class="g-recaptcha" data-sitekey="your_site_key"&gt;&lt;/div&gt;
&lt;iframe src="https://challenges.cloudflare.com/cdn-cgi/challenge-platform/h/g/turnstile/if/"&gt;</code></pre>
<p>Cloudflare Turnstile works the same way with class <code>cf-turnstile</code>.</p>
<script>// demo: window._cf_chl_opt is what the interstitial sets</script></article></body></html>"""
_LONG_ARTICLE_WITH_LOGIN_HTML = f"""<html><head><title>Council delays transit vote | City News</title></head><body>
<header><a href="/login">Log in</a><div class="login-dropdown" hidden><form action="/login" method="post">
<input type="text" name="user"><input type="password" name="pass"><button>Log in</button></form></div></header>
<article><h1>Council delays transit vote</h1><p>{_LONG_ARTICLE}</p>
<p><a href="/login">Log in to read more stories like this</a></p></article></body></html>"""
_BANNER_OVER_PAGE_TEXT = _ONETRUST_TEXT + "\nCouncil delays transit vote\n" + "\n".join([_PARAGRAPH.strip()] * 3)

_NEGATIVES: list[tuple[str, dict[str, Any]]] = [
    (
        "a price of $429",
        {
            "url": "https://gadgets.example/p/aurora-27",
            "title": 'Aurora 27" Monitor | Gadget Store',
            "text": 'Sign in\nCart\nAurora 27" 4K Monitor\n$429.00\nOnly 429 left in stock. 429 ratings.\nAdd to cart\n'
            "Ships in 2 days. Free returns.",
            "html": _PRODUCT_HTML,
            "status": 200,
        },
    ),
    (
        "a 'Protected by Cloudflare' footer on a normal short article",
        {
            "url": "https://blog.example/search-rebuild",
            "title": "How we rebuilt our search | Eng Blog",
            "text": "How we rebuilt our search\n"
            + _PARAGRAPH
            + "\n© 2024 Eng Blog · Protected by Cloudflare · Privacy",
            "html": _CF_FOOTER_HTML.format(body=_PARAGRAPH),
            "status": 200,
        },
    ),
    (
        "a short article about CAPTCHAs quoting widget markup",
        {
            "url": "https://devnotes.example/captchas-explained",
            "title": "CAPTCHAs explained | Dev Notes",
            "text": _CAPTCHA_ARTICLE_TEXT,
            "html": _CAPTCHA_ARTICLE_HTML,
            "status": 200,
        },
    ),
    (
        "a long article about CAPTCHAs with a live demo widget",
        {
            "url": "https://devnotes.example/captchas-explained",
            "title": "Just a moment: CAPTCHAs explained",
            "text": _CAPTCHA_ARTICLE_TEXT + "\n" + _LONG_ARTICLE,
            "html": _CAPTCHA_ARTICLE_HTML,
            "status": 200,
            "frames": [_RECAPTCHA_FRAME],
        },
    ),
    (
        "a long article with a small login link and a hidden login form",
        {
            "url": "https://citynews.example/2024/transit-vote",
            "title": "Council delays transit vote | City News",
            "text": "Log in\nCouncil delays transit vote\n" + _LONG_ARTICLE + "\nLog in to read more stories like this",
            "html": _LONG_ARTICLE_WITH_LOGIN_HTML,
            "status": 200,
        },
    ),
    (
        "a comment form with a recaptcha checkbox under a long article",
        {
            "url": "https://citynews.example/2024/transit-vote",
            "title": "Council delays transit vote | City News",
            "text": _LONG_ARTICLE + "\nLeave a comment\nPost comment",
            "html": '<html><body><article>...</article><form><div class="g-recaptcha" data-sitekey="k"></div>'
            "<button>Post comment</button></form></body></html>",
            "frames": [_RECAPTCHA_FRAME],
        },
    ),
    (
        "invisible recaptcha v3 on a short contact page",
        {
            "url": "https://studio.example/contact",
            "title": "Contact | Studio",
            "text": "Contact us\nName\nEmail\nMessage\nSend",
            "html": '<html><body><form><button class="g-recaptcha" data-sitekey="k" data-callback="onSubmit">Send'
            '</button><div class="h-captcha" data-size="invisible"></div></form>'
            '<div class="grecaptcha-badge" data-style="bottomright"></div></body></html>',
            "frames": [_RECAPTCHA_INVISIBLE_FRAME],
        },
    ),
    (
        "a cookie banner over a page with its own content",
        {
            "url": "https://dailyplanet.example/2024/transit",
            "title": "Council delays transit vote | Daily Planet",
            "text": _BANNER_OVER_PAGE_TEXT,
            "html": _ONETRUST_HTML,
            "status": 200,
        },
    ),
    (
        "a 429 with nothing that says so",
        {"url": "https://example.com/", "title": "example.com", "text": "", "status": 429},
    ),
    (
        "'too many requests' in a short note, status 200",
        {
            "url": "https://status.example/incidents/12",
            "title": "Incident 12: API errors",
            "text": "Between 10:02 and 10:15 UTC some clients received Too Many Requests errors. Resolved.",
            "status": 200,
        },
    ),
    (
        "a plain 403",
        {
            "url": "https://files.example/private/",
            "title": "403 Forbidden",
            "text": "403 Forbidden\nnginx",
            "status": 403,
        },
    ),
    (
        "a login form alone: one signal",
        {
            "url": "https://shop.example/account",
            "title": "Your account",
            "text": "Your account\nEmail\nPassword\nLog in\nNew here? Create an account.",
            "html": '<form><input type="email"><input type="password"><button>Log in</button></form>',
            "status": 200,
        },
    ),
    (
        "an empty page",
        {"url": "about:blank", "title": "", "text": ""},
    ),
]


@pytest.mark.parametrize("page", [p for _, p in _NEGATIVES], ids=[n for n, _ in _NEGATIVES])
def test_non_gates_are_not_classified(page: dict[str, Any]) -> None:
    assert detect_gate(**page) is None


def test_the_long_fixtures_are_long_and_the_short_ones_short() -> None:
    assert len(_LONG_ARTICLE) > TERSE_CHARS
    assert len(_CAPTCHA_ARTICLE_TEXT) < TERSE_CHARS
    assert len(_BANNER_OVER_PAGE_TEXT) < TERSE_CHARS


def test_hints_involve_the_person_and_the_agent_sees_kind_and_hint() -> None:
    gate = detect_gate(url="https://x.example/", title="", text="", frames=[_TURNSTILE_FRAME])
    assert gate is not None
    assert gate.as_data() == {
        "kind": "challenge",
        "hint": "The site is asking for human verification. Ask the person to complete it in this tab, then retry.",
    }
    assert all("the person" in hint for hint in HINTS.values())
    assert HINTS["login"] == (
        "The site wants a sign-in before it shows this page. Ask the person to sign in in this tab, then retry."
    )


def test_unclosed_and_broken_markup_does_not_break_detection() -> None:
    html = '<div id="onetrust-banner-sdk"><p>We use cookies<button>Accept all<button>Reject all'
    gate = detect_gate(url="https://a.example/", title="", text="We use cookies\nAccept all\nReject all", html=html)
    assert gate == Gate("consent", HINTS["consent"], ("words:we use cookies", "markup:consent-dialog"))
