"""The client's defences that need no server: what may go into a URL path, how ``Retry-After``
is read, which ``api_url`` is refused, and the token cache's files under a careless umask."""

import os
import stat

import pytest

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import (
    CODE,
    KEY,
    NAME,
    ApiClient,
    ApiError,
    api_path,
    list_of_objects,
    path_value,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._api_auth import TokenCache
from ansible_collections.cloudcompute.cloud.plugins.module_utils._api_errors import InvalidPathValue
from ansible_collections.cloudcompute.cloud.plugins.module_utils._api_retry import retry_after_seconds

# ------------------------------------------------------------------------------ api_path


@pytest.mark.parametrize(
    "parts, expected",
    [
        (
            ("/instances", path_value("2d9f1c3e-0000-4000-8000-000000000001", "id")),
            "/instances/2d9f1c3e-0000-4000-8000-000000000001",
        ),
        (
            ("/clusters", path_value("c1", "id"), "nodes", path_value("n:1", "node id"), "actions"),
            "/clusters/c1/nodes/n%3A1/actions",
        ),
        (
            ("/container-deployments", path_value("my-app", "name", NAME), "/status"),
            "/container-deployments/my-app/status",
        ),
        (("/instances/tags", path_value("team/a b?c#d", "key", KEY)), "/instances/tags/team%2Fa%20b%3Fc%23d"),
        (("/instance-availability", path_value("1V100.6V", "type", CODE)), "/instance-availability/1V100.6V"),
    ],
)
def test_path_values_are_encoded_as_exactly_one_segment(parts, expected):
    assert api_path(*parts) == expected


@pytest.mark.parametrize(
    "value, kind",
    [
        ("../ssh-keys", "id"),
        ("../../_emulator/requests", "id"),
        ("..", "id"),
        (".", "id"),
        ("", "id"),
        ("a/b", "id"),
        ("a?b=c", "id"),
        ("a#b", "id"),
        ("%2e%2e", "id"),
        ("a b", "id"),
        ("x" * 129, "id"),
        ("..", KEY),
        (".", KEY),
        ("", KEY),
        ("My-App", NAME),
        ("-app", NAME),
        ("app-", NAME),
        ("a" * 64, NAME),
        ("a.b", NAME),
        (None, "id"),
        (True, "id"),
        (["a"], "id"),
        ({"id": "a"}, "id"),
    ],
)
def test_values_that_are_not_what_they_must_be_are_refused_naming_the_option(value, kind):
    with pytest.raises(InvalidPathValue) as refused:
        api_path("/ssh-keys", path_value(value, "ssh_key.id", kind))
    assert refused.value.option == "ssh_key.id"
    assert str(refused.value).startswith("ssh_key.id ")
    assert isinstance(refused.value, ApiError)  # reported by every caller as a clean failure


def test_a_refusal_never_echoes_a_huge_value_whole():
    with pytest.raises(InvalidPathValue) as refused:
        api_path("/ssh-keys", path_value("/" * 100000, "id"))
    assert len(str(refused.value)) < 300


# ------------------------------------------------------------------------ list answers


@pytest.mark.parametrize(
    "body, answered",
    [
        ("text", "a string, not a JSON object or list"),
        ({"items": []}, "a JSON object"),
        ([{"id": "a"}, None], "a list holding null"),
        ([{"id": "a"}, "b"], "a list holding a string"),
    ],
)
def test_a_list_answered_with_anything_but_objects_is_an_error(body, answered):
    with pytest.raises(ApiError) as error:
        list_of_objects(body, "GET", "/instances")
    assert str(error.value) == (
        f"GET /instances failed: the API answered {answered}" + str(error.value).split(answered, 1)[1]
    )
    assert str(error.value).endswith("where a list of objects was expected")


def test_an_empty_list_answer_is_an_empty_list():
    assert list_of_objects(None) == [] and list_of_objects([]) == []


# --------------------------------------------------------------------------- Retry-After


@pytest.mark.parametrize(
    "value, expected",
    [
        ("3", 3.0),
        ("0.5", 0.5),
        ("-5", 0.0),
        (" 7 ", 7.0),
        ("1e9", 1e9),
        ("inf", 1e12),
        ("1e400", 1e12),
        ("-inf", 0.0),  # absurd: large, for the budget to refuse
        ("nan", None),
        ("soon", None),
        ("", None),
        (None, None),
        ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0),  # a date in the past: now
        ("Wed, 21 Oct 2015 07:28:30 GMT", 30.0),
        ("Fri, 31 Dec 9999 23:59:59 GMT", 253402300799.0 - 1445412480.0),
    ],
)
def test_retry_after_is_seconds_or_an_http_date_and_never_infinite(value, expected):
    now = 1445412480.0  # Wed, 21 Oct 2015 07:28:00 GMT
    assert retry_after_seconds(value, now) == expected


# ------------------------------------------------------------------------------- api_url


@pytest.mark.parametrize("url", ["http://user:s3cret-pw@127.0.0.1:1/v1", "https://s3cret-pw@api.example.com/v1"])
def test_an_api_url_with_credentials_is_refused_without_repeating_them(url):
    with pytest.raises(ApiError) as refused:
        ApiClient(url, "id", "secret")
    assert "s3cret-pw" not in str(refused.value)
    assert "client_id and client_secret" in str(refused.value)


@pytest.mark.parametrize("url", ["ftp://api.example.com/v1", "api.example.com/v1", "http:///v1"])
def test_an_api_url_that_is_not_http_is_refused(url):
    with pytest.raises(ApiError, match="api_url must be an http"):
        ApiClient(url, "id", "secret")


# ---------------------------------------------------------------------------- token cache


TOKEN = {"access_token": "a", "refresh_token": "r", "expires_in": 3600.0, "expires_at": 4e9}


@pytest.fixture
def open_umask():
    previous = os.umask(0)
    yield
    os.umask(previous)


def mode(path):
    return stat.S_IMODE(os.lstat(str(path)).st_mode)


def test_under_umask_000_every_directory_is_0700_and_the_files_0600(tmp_path, open_umask):
    cache = TokenCache(str(tmp_path / "a" / "b" / "tokens"), "http://api/v1", "id", "secret")
    with cache.locked():
        cache.store(TOKEN)
    assert [mode(tmp_path / "a"), mode(tmp_path / "a" / "b"), mode(tmp_path / "a" / "b" / "tokens")] == [0o700] * 3
    assert mode(cache.path) == 0o600 and mode(cache.lock_path) == 0o600
    assert cache.load()["access_token"] == "a"


def test_a_symlink_at_the_lock_is_never_followed(tmp_path, open_umask):
    cache = TokenCache(str(tmp_path / "tokens"), "http://api/v1", "id", "secret")
    cache.store(TOKEN)
    victim = tmp_path / "victim"
    os.symlink(str(victim), cache.lock_path)
    with pytest.raises(ApiError, match="never a symbolic link"):
        with cache.locked():
            pass
    assert not victim.exists()


def test_a_symlink_at_the_token_file_is_not_read(tmp_path):
    cache = TokenCache(str(tmp_path / "tokens"), "http://api/v1", "id", "secret")
    cache.store(TOKEN)
    planted = tmp_path / "planted.json"
    planted.write_text(open(cache.path).read())
    os.unlink(cache.path)
    os.symlink(str(planted), cache.path)
    assert cache.load() is None


@pytest.mark.parametrize(
    "problem, prepare",
    [
        ("writable by others", lambda path: (os.mkdir(path), os.chmod(path, 0o777))),
        ("writable by others", lambda path: (os.mkdir(path), os.chmod(path, 0o720))),
        ("symbolic link", lambda path: (os.mkdir(path + "-real", 0o700), os.symlink(path + "-real", path))),
        ("not a directory", lambda path: open(path, "w").close()),
    ],
)
def test_an_unsafe_cache_directory_is_refused_with_a_clear_error(tmp_path, problem, prepare):
    directory = str(tmp_path / "tokens")
    prepare(directory)
    cache = TokenCache(directory, "http://api/v1", "id", "secret")
    with pytest.raises(ApiError) as refused:
        cache.store(TOKEN)
    assert problem in str(refused.value) and "token_cache to false" in str(refused.value)
    with pytest.raises(ApiError):
        cache.load()


def test_a_cache_directory_that_cannot_be_created_is_refused_like_an_unsafe_one(tmp_path):
    (tmp_path / "a-file").write_text("")
    cache = TokenCache(str(tmp_path / "a-file" / "tokens"), "http://api/v1", "id", "secret")
    with pytest.raises(ApiError) as refused:
        with cache.locked():
            pass
    assert refused.value.code == "unsafe_token_cache"
    assert "cannot be created (Not a directory)" in str(refused.value) and "token_cache to false" in str(refused.value)
