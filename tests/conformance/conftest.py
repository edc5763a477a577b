from tests.http.conftest import alice, http_url  # noqa: F401  (the same app and server as the HTTP tests)
