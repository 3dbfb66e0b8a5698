"""Random and hostile module arguments (hypothesis): every run ends in a result, never a
traceback; a failure carries a message a user can read; and input that can be rejected without
the API is rejected before any change is asked for.

Three kinds of input, each with what it must lead to:

- malformed (every module, from its documented argument spec): a wrong type, an unknown choice,
  an unknown option, a missing required one, in the options or their suboptions -> a clear
  failure with no API request at all;
- refusable (the resource modules): 11 tags, over-long tag keys or values, sizes below 1 GB, a
  shrink, names of keys, scripts, volumes or instances that do not exist, changes the API
  cannot make, contradicting options -> a clear failure with no mutating request;
- hostile but acceptable (huge strings, any unicode, path-like ids): a result, never a
  traceback; when it succeeded, running it again changes nothing; a request that changes
  something goes to the module's own resource only.

The modules run in this process (module_runner) against one emulator; the request log tells
which requests each example made.
"""

import posixpath
import string
import uuid

import pytest
from cloudcompute_emulator.testing import run_emulator
from conftest import mutating, report
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from module_runner import ModuleWorld, is_clear_failure, module_names, module_options

CONNECTION_OPTIONS = ("api_url", "client_id", "client_secret", "validate_certs", "request_timeout", "token_cache")
# Examples per module and per scenario, sized to the stage's time budget.
MALFORMED_EXAMPLES = 20
REFUSABLE_EXAMPLES = 12
HOSTILE_EXAMPLES = 12

PUBLIC_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK0wmN/Cr3JXqmLW7u+g9pTh+wyqDHpSQEIQczXkVx9q hostile@test"
INSTANCE = {"instance_type": "CPU.4V.16G", "image": "ubuntu-24.04", "location_code": "FIN-01"}
COUNTS = {"malformed": 0, "refusable": 0, "hostile": 0}
SETTINGS = dict(deadline=None, database=None, suppress_health_check=list(HealthCheck))

# --------------------------------------------------------------------------- strategies

# Any unicode but lone surrogates (no YAML or JSON file of a user can carry them).
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)
HUGE = st.builds(
    lambda char, count: char * count, st.characters(exclude_categories=("Cs", "Cc")), st.integers(2000, 200000)
)
NASTY = st.sampled_from(
    [
        "",
        " ",
        "\t\n",
        "../../etc/passwd",
        "..",
        ".",
        "a/b",
        "a?b=c",
        "a#b",
        "%2e%2e%2f",
        "' OR 1=1 --",
        "{{ lookup('env', 'HOME') }}",
        "%s%n%x",
        "\u202egnp.exe",
        "\x00",
        "名前-テスト",
        "🚀" * 30,
        "A" * 64,
        "-",
        "null",
        "None",
        "true",
        "[]",
        "{}",
        "\\",
        "\r\n\r\n",
    ]
)
HOSTILE_TEXT = st.one_of(TEXT, HUGE, NASTY)
NAME_TEXT = st.one_of(
    st.text(st.characters(exclude_categories=("Cs", "Cc", "Zs")), min_size=1, max_size=60),
    NASTY.filter(lambda value: value.strip() != ""),
)
UNKNOWN_NAME = st.text(string.ascii_lowercase, min_size=6, max_size=12).map(lambda text: "missing-" + text)

# Values Ansible's argument checks cannot turn into the option's type.
WRONG_TYPE = {
    "int": st.sampled_from(["abc", "1.5x", [1], {"a": 1}, 1.5, "", "0x1g"]),
    "float": st.sampled_from(["abc", [1.0], {"a": 1}, ""]),
    "bool": st.sampled_from(["maybe", 7, -1, [True], {"a": 1}, "2", "oui"]),
    "list": st.sampled_from([{"a": 1}, {"": []}]),
    "dict": st.sampled_from([[1, 2], 5, 2.5, "no-equals-sign", ["a=b"]]),
}


def wrong_value(spec):
    """A strategy of values this option must refuse, or None when it takes anything (raw, str)."""
    kind = spec.get("type", "str")
    choices = spec.get("choices")
    if choices and kind == "str":
        return TEXT.filter(lambda value: value not in choices)
    if choices and kind == "list":
        return st.lists(TEXT.filter(lambda value: value not in choices), min_size=1, max_size=3)
    suboptions = spec.get("suboptions")
    if suboptions:
        bad_items = [
            st.fixed_dictionaries({name: strategy})
            for name, strategy in ((name, wrong_value(sub)) for name, sub in suboptions.items())
            if strategy is not None
        ]
        bad_items.append(st.just({"no_such_suboption": 1}))
        item = st.one_of(bad_items)
        if kind == "list":
            return st.one_of(WRONG_TYPE["list"], st.lists(item, min_size=1, max_size=2))
        return st.one_of(WRONG_TYPE["dict"], item)
    if kind == "list" and spec.get("elements") in WRONG_TYPE and spec.get("elements") != "dict":
        return st.one_of(WRONG_TYPE["list"], st.lists(WRONG_TYPE[spec["elements"]], min_size=1, max_size=2))
    return WRONG_TYPE.get(kind)


def any_value(spec):
    """Something of roughly the option's shape, hostile where it can be."""
    kind = spec.get("type", "str")
    if spec.get("choices") and kind == "str":
        return st.sampled_from(spec["choices"])
    return {
        "str": HOSTILE_TEXT,
        "int": st.integers(-(2**40), 2**40),
        "float": st.floats(allow_nan=False, allow_infinity=False),
        "bool": st.booleans(),
        "list": st.lists(HOSTILE_TEXT, max_size=3),
        "dict": st.dictionaries(TEXT, TEXT, max_size=3),
    }.get(kind, HOSTILE_TEXT)


@st.composite
def malformed_arguments(draw, options):
    """Arguments with at least one defect Ansible's argument checks refuse."""
    settable = dict((name, spec) for name, spec in options.items() if name not in CONNECTION_OPTIONS)
    defects = ["unknown option"]
    wrong = dict((name, wrong_value(spec)) for name, spec in settable.items())
    wrong = dict((name, strategy) for name, strategy in wrong.items() if strategy is not None)
    if wrong:
        defects += ["wrong value"] * 3
    required = [name for name, spec in settable.items() if spec.get("required")]
    if required:
        defects.append("missing required")
    defect = draw(st.sampled_from(defects))
    others = draw(st.lists(st.sampled_from(sorted(settable)), max_size=3, unique=True)) if settable else []
    args = dict((name, draw(any_value(settable[name]))) for name in others)
    for name in required:
        args.setdefault(name, draw(any_value(settable[name])))
    if defect == "unknown option":
        args["no_such_option_" + draw(st.text(string.ascii_lowercase, min_size=1, max_size=8))] = draw(TEXT)
    elif defect == "wrong value":
        name = draw(st.sampled_from(sorted(wrong)))
        args[name] = draw(wrong[name])
    else:
        del args[draw(st.sampled_from(required))]
    return args


# ----------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    with run_emulator(profile="test", rate_limits={"enabled": False}) as emulator:
        world = ModuleWorld(emulator, str(tmp_path_factory.mktemp("tokens")))
        world.make("ssh_key", {"name": "known-key", "public_key": PUBLIC_KEY})
        world.make("startup_script", {"name": "known-script", "script": "#!/bin/sh\ntrue\n"})
        world.instance = world.make("instance", dict(INSTANCE, hostname="fixed-instance", ssh_keys=["known-key"]))[
            "instance"
        ]
        world.volume = world.make(
            "volume", {"name": "fixed-volume", "size": 50, "type": "NVMe", "location_code": "FIN-01"}
        )["volume"]
        world.make(
            "instance_group",
            {
                "name": "fixed-group",
                "instance_type": "CPU.4V.16G",
                "location_code": "FIN-01",
                "template": {"image": "ubuntu-24.04"},
            },
        )
        yield world
    total = sum(COUNTS.values())
    report(
        "bad input",
        "%d inputs tried: %s; tracebacks: 0, mutating requests for refusable input: 0"
        % (total, ", ".join("%s %d" % item for item in sorted(COUNTS.items()))),
    )


@pytest.fixture(scope="module")
def documented_options():
    return module_options(module_names())


def assert_clear_failure(result, args):
    assert "traceback" not in result, "traceback for {!r}:\n{}".format(args, result["traceback"])
    assert is_clear_failure(result), f"no clear failure for {args!r}: {result!r}"


# ------------------------------------------------------------------------------ malformed


@pytest.mark.parametrize("module", module_names())
def test_malformed_arguments_fail_before_any_request(module, world, documented_options):
    @settings(max_examples=MALFORMED_EXAMPLES, **SETTINGS)
    @given(malformed_arguments(documented_options[module]))
    def check(args):
        COUNTS["malformed"] += 1
        result, requests = world.run(module, args)
        assert_clear_failure(result, args)
        assert requests == [], f"{module} made requests for malformed input {args!r}: {requests!r}"

    check()


# ------------------------------------------------------------------------------ refusable

TOO_MANY_TAGS = st.dictionaries(
    st.text(string.ascii_lowercase, min_size=1, max_size=10),
    TEXT.map(lambda text: text[:100]),
    min_size=11,
    max_size=30,
)
LONG_KEY = st.integers(64, 400).map(lambda length: {"k" * length: "v"})
LONG_VALUE = st.integers(128, 5000).map(lambda length: {"key": "v" * length})
EMPTY_KEY = st.sampled_from([{"": "v"}, {"  ": "v"}])
CLASHING_KEYS = st.just({"Env": "a", "env": "b"})
BAD_TAGS = st.one_of(TOO_MANY_TAGS, LONG_KEY, LONG_VALUE, EMPTY_KEY, CLASHING_KEYS)
NOT_A_SIZE = st.integers(-(2**31), 0)


def new_name(prefix):
    return st.text(string.ascii_lowercase + string.digits, min_size=4, max_size=10).map(lambda text: f"{prefix}-{text}")


def refusable_cases():
    """(case name, module, strategy of arguments): each must fail before any change."""
    instance = new_name("host").map(lambda hostname: dict(INSTANCE, hostname=hostname, ssh_keys=["known-key"]))
    volume = new_name("vol").map(lambda name: {"name": name, "size": 10, "type": "NVMe", "location_code": "FIN-01"})
    cluster = new_name("hpc").map(
        lambda hostname: {
            "hostname": hostname,
            "cluster_type": "16H100",
            "image": "ubuntu-24.04-cuda-12.8-cluster",
            "location_code": "FIN-01",
            "ssh_keys": ["known-key"],
            "shared_volume": {"name": hostname + "-home", "size": 100},
        }
    )
    group = new_name("group").map(
        lambda name: {
            "name": name,
            "instance_type": "CPU.4V.16G",
            "location_code": "FIN-01",
            "template": {"image": "ubuntu-24.04"},
        }
    )

    def with_(base, **extra):
        return st.builds(lambda args, more: dict(args, **more), base, st.fixed_dictionaries(extra))

    return [
        ("instance: bad tags", "instance", with_(instance, tags=BAD_TAGS)),
        (
            "instance: bad tags on a volume",
            "instance",
            with_(
                instance,
                volumes=st.builds(lambda tags: [{"name": "data", "size": 10, "type": "NVMe", "tags": tags}], BAD_TAGS),
            ),
        ),
        (
            "instance: volume size below 1 GB",
            "instance",
            with_(
                instance, volumes=st.builds(lambda size: [{"name": "data", "size": size, "type": "NVMe"}], NOT_A_SIZE)
            ),
        ),
        (
            "instance: OS volume size below 1 GB",
            "instance",
            with_(instance, os_volume=st.builds(lambda size: {"name": "os", "size": size}, NOT_A_SIZE)),
        ),
        (
            "instance: unknown SSH keys",
            "instance",
            with_(instance, ssh_keys=st.lists(UNKNOWN_NAME, min_size=1, max_size=3)),
        ),
        ("instance: unknown startup script", "instance", with_(instance, startup_script=UNKNOWN_NAME)),
        (
            "instance: unknown existing volumes",
            "instance",
            with_(instance, existing_volumes=st.lists(UNKNOWN_NAME, min_size=1, max_size=2)),
        ),
        (
            "instance: unknown existing OS volume",
            "instance",
            st.builds(
                lambda args, name: dict(
                    dict((key, value) for key, value in args.items() if key != "image"), existing_os_volume=name
                ),
                instance,
                UNKNOWN_NAME,
            ),
        ),
        (
            "instance: unknown id",
            "instance",
            st.builds(
                lambda state: {"id": str(uuid.uuid4()), "state": state},
                st.sampled_from(["present", "running", "stopped"]),
            ),
        ),
        (
            "instance: spot against the contract",
            "instance",
            with_(instance, spot=st.just(True), contract=st.sampled_from(["LONG_TERM", "PAY_AS_YOU_GO"])),
        ),
        (
            "instance: spot policy without spot",
            "instance",
            with_(
                instance,
                volumes=st.builds(
                    lambda policy: [{"name": "d", "size": 1, "type": "NVMe", "on_spot_discontinue": policy}],
                    st.sampled_from(["keep_detached", "move_to_trash", "delete_permanently"]),
                ),
            ),
        ),
        (
            "instance: delete_volumes all with more",
            "instance",
            st.builds(
                lambda extra: {"hostname": "fixed-instance", "state": "absent", "delete_volumes": ["all"] + extra},
                st.lists(st.sampled_from(["os", "none", "data"]), min_size=1, max_size=2),
            ),
        ),
        (
            "instance: force without stopping",
            "instance",
            st.builds(
                lambda state: {"hostname": "fixed-instance", "state": state, "force": True},
                st.sampled_from(["present", "running", "absent"]),
            ),
        ),
        (
            "instance: immutable changes",
            "instance",
            st.builds(
                lambda changes: dict({"hostname": "fixed-instance"}, **changes),
                st.one_of(
                    st.fixed_dictionaries({"instance_type": st.sampled_from(["CPU.8V.32G", "1A100.22V"])}),
                    st.fixed_dictionaries({"image": st.sampled_from(["ubuntu-22.04", "ubuntu-24.04-docker"])}),
                    st.fixed_dictionaries({"location_code": st.sampled_from(["FIN-02", "ICE-01"])}),
                    st.fixed_dictionaries({"ssh_keys": st.lists(UNKNOWN_NAME, min_size=1, max_size=2)}),
                    st.fixed_dictionaries({"description": NAME_TEXT}),
                ),
            ),
        ),
        ("volume: bad tags", "volume", with_(volume, tags=BAD_TAGS)),
        ("volume: size below 1 GB", "volume", with_(volume, size=NOT_A_SIZE)),
        (
            "volume: shrink",
            "volume",
            st.builds(lambda size: {"name": "fixed-volume", "size": size}, st.integers(1, 49)),
        ),
        (
            "volume: immutable changes",
            "volume",
            st.builds(
                lambda changes: dict({"name": "fixed-volume"}, **changes),
                st.one_of(
                    st.fixed_dictionaries({"type": st.sampled_from(["HDD", "NVMe_Shared"])}),
                    st.fixed_dictionaries({"location_code": st.sampled_from(["FIN-02", "ICE-01"])}),
                ),
            ),
        ),
        (
            "volume: unknown instances",
            "volume",
            with_(volume, instances=st.lists(UNKNOWN_NAME, min_size=1, max_size=3)),
        ),
        (
            "volume: several instances on a non-shared type",
            "volume",
            with_(volume, instances=st.lists(UNKNOWN_NAME, min_size=2, max_size=3, unique=True)),
        ),
        ("volume: attach to a running instance", "volume", with_(volume, instances=st.just(["fixed-instance"]))),
        (
            "volume: unknown clone source",
            "volume",
            st.builds(lambda args, source: dict(args, clone_from=source), volume, UNKNOWN_NAME),
        ),
        (
            "volume: unknown id",
            "volume",
            st.builds(lambda size: {"id": str(uuid.uuid4()), "size": size}, st.integers(1, 100)),
        ),
        ("cluster: bad tags", "cluster", with_(cluster, tags=BAD_TAGS)),
        (
            "cluster: shared volume below 1 GB",
            "cluster",
            st.builds(lambda args, size: dict(args, shared_volume={"name": "home", "size": size}), cluster, NOT_A_SIZE),
        ),
        (
            "cluster: unknown SSH keys",
            "cluster",
            with_(cluster, ssh_keys=st.lists(UNKNOWN_NAME, min_size=1, max_size=2)),
        ),
        ("cluster: unknown startup script", "cluster", with_(cluster, startup_script=UNKNOWN_NAME)),
        (
            "cluster: options of another state",
            "cluster",
            st.one_of(
                with_(cluster, delete_shared_volumes=st.just(True)),
                with_(cluster, delete_permanently=st.just(True)),
                with_(cluster, nodes=st.just([{"hostname": "w", "state": "running", "force": True}])),
            ),
        ),
        (
            "tag: bad tags",
            "tag",
            st.builds(
                lambda tags, kind: {
                    "resource_type": kind,
                    "resource": "fixed-volume" if kind == "volume" else "fixed-instance",
                    "tags": tags,
                },
                BAD_TAGS,
                st.sampled_from(["instance", "volume"]),
            ),
        ),
        (
            "tag: tags of no shape",
            "tag",
            st.builds(
                lambda tags: {"resource_type": "instance", "resource": "fixed-instance", "tags": tags},
                st.one_of(
                    st.integers(),
                    TEXT.filter(lambda text: text.strip() != ""),
                    st.lists(st.integers(), min_size=1, max_size=3),
                    st.just([{"value": "no key"}]),
                ),
            ),
        ),
        (
            "tag: unknown resource",
            "tag",
            st.builds(
                lambda name, kind: {"resource_type": kind, "resource": name, "tags": {"a": "b"}},
                UNKNOWN_NAME,
                st.sampled_from(["instance", "volume", "cluster"]),
            ),
        ),
        (
            "ssh_key: unknown id",
            "ssh_key",
            st.builds(lambda name: {"id": str(uuid.uuid4()), "name": name, "public_key": PUBLIC_KEY}, NAME_TEXT),
        ),
        (
            "startup_script: unknown id",
            "startup_script",
            st.builds(lambda name: {"id": str(uuid.uuid4()), "name": name, "script": "x"}, NAME_TEXT),
        ),
        (
            "instance_group: unknown SSH keys",
            "instance_group",
            st.builds(
                lambda args, keys: dict(args, template={"image": "ubuntu-24.04", "ssh_keys": keys}),
                group,
                st.lists(UNKNOWN_NAME, min_size=1, max_size=2),
            ),
        ),
        (
            "instance_group: immutable changes",
            "instance_group",
            st.builds(
                lambda changes: dict({"name": "fixed-group"}, **changes),
                st.one_of(
                    st.fixed_dictionaries({"instance_type": st.sampled_from(["CPU.8V.32G", "1A100.22V"])}),
                    st.fixed_dictionaries({"location_code": st.sampled_from(["FIN-02", "ICE-01"])}),
                ),
            ),
        ),
        (
            "instance_group: OS volume below 1 GB",
            "instance_group",
            st.builds(
                lambda args, size: dict(args, template={"image": "ubuntu-24.04", "os_volume": {"size": size}}),
                group,
                NOT_A_SIZE,
            ),
        ),
    ]


REFUSABLE = refusable_cases()


@pytest.mark.parametrize("case, module, arguments", REFUSABLE, ids=[case for case, _module, _arguments in REFUSABLE])
def test_refusable_input_fails_before_any_change(case, module, arguments, world):
    @settings(max_examples=REFUSABLE_EXAMPLES, **SETTINGS)
    @given(arguments, st.booleans())
    def check(args, check_mode):
        COUNTS["refusable"] += 1
        args = (
            dict(args, wait_timeout=30, _ansible_check_mode=check_mode)
            if module != "tag"
            else dict(args, _ansible_check_mode=check_mode)
        )
        result, requests = world.run(module, args)
        assert_clear_failure(result, args)
        assert mutating(requests) == [], f"{case}: {module} made changes before failing: {mutating(requests)!r}"

    check()


# ------------------------------------------------------------------------------- hostile


def hostile_cases():
    """(case name, module, strategy of arguments) the API may accept: a result, no traceback."""
    ids = st.one_of(NASTY, st.just(str(uuid.uuid4())), TEXT.filter(lambda text: text.strip() != ""))
    return [
        ("ssh_key: any name", "ssh_key", st.builds(lambda name: {"name": name, "public_key": PUBLIC_KEY}, NAME_TEXT)),
        ("ssh_key: any key", "ssh_key", st.builds(lambda key: {"name": "any-key", "public_key": key}, HOSTILE_TEXT)),
        (
            "startup_script: any name and script",
            "startup_script",
            st.builds(lambda name, script: {"name": name, "script": script}, NAME_TEXT, HOSTILE_TEXT),
        ),
        (
            "volume: any name, tags within limits",
            "volume",
            st.builds(
                lambda name, tags: {"name": name, "size": 1, "type": "HDD", "location_code": "FIN-01", "tags": tags},
                NAME_TEXT,
                st.dictionaries(
                    st.text(string.ascii_letters + string.digits + "-_.", min_size=1, max_size=63),
                    TEXT.map(lambda text: text[:127]),
                    max_size=10,
                ),
            ),
        ),
        (
            "instance: any hostname and description",
            "instance",
            st.builds(
                lambda hostname, description: dict(
                    INSTANCE, hostname=hostname, description=description, ssh_keys=["known-key"], wait=False
                ),
                NAME_TEXT,
                HOSTILE_TEXT,
            ),
        ),
        ("any id, state absent", "ssh_key", st.builds(lambda value: {"id": value, "state": "absent"}, ids)),
        ("any id, state absent", "startup_script", st.builds(lambda value: {"id": value, "state": "absent"}, ids)),
        (
            "any id, state absent",
            "volume",
            st.builds(lambda value: {"id": value, "state": "absent", "wait": False}, ids),
        ),
        (
            "any id, state absent",
            "instance",
            st.builds(lambda value: {"id": value, "state": "absent", "wait": False}, ids),
        ),
        ("any id, state absent", "instance_group", st.builds(lambda value: {"id": value, "state": "absent"}, ids)),
        (
            "any id, state absent",
            "cluster",
            st.builds(lambda value: {"id": value, "state": "absent", "wait": False}, ids),
        ),
        (
            "any resource",
            "tag",
            st.builds(
                lambda value, kind: {"resource_type": kind, "resource": value, "tags": {"a": "b"}},
                ids,
                st.sampled_from(["instance", "volume", "cluster"]),
            ),
        ),
        (
            "any filter",
            "instance_info",
            st.builds(
                lambda value, tags: {"hostname": value, "tags": tags},
                HOSTILE_TEXT,
                st.dictionaries(TEXT, TEXT, max_size=3),
            ),
        ),
        (
            "any filter",
            "volume_info",
            st.builds(lambda value, status: {"name": value, "status": status}, HOSTILE_TEXT, HOSTILE_TEXT),
        ),
        ("any id", "volume_info", st.builds(lambda value: {"id": value}, ids)),
        ("any id", "instance_info", st.builds(lambda value: {"id": value}, ids)),
        ("any name", "container_deployment_info", st.builds(lambda value: {"name": value}, ids)),
        (
            "any name, state absent",
            "container_deployment",
            st.builds(lambda value: {"name": value, "state": "absent"}, ids),
        ),
        ("any name, state absent", "job_deployment", st.builds(lambda value: {"name": value, "state": "absent"}, ids)),
    ]


HOSTILE = hostile_cases()
# Where each module may change something: its own collection and what lies below it.
OWN_PATHS = {
    "ssh_key": ("/v1/ssh-keys",),
    "startup_script": ("/v1/scripts",),
    "volume": ("/v1/volumes",),
    "instance": ("/v1/instances", "/v1/volumes"),
    "instance_group": ("/v1/instance-groups",),
    "cluster": ("/v1/clusters", "/v1/volumes"),
    "tag": ("/v1/instances/", "/v1/volumes/", "/v1/clusters/"),
    "container_deployment": ("/v1/container-deployments",),
    "job_deployment": ("/v1/job-deployments",),
}


@pytest.mark.parametrize(
    "case, module, arguments", HOSTILE, ids=[f"{case} ({module})" for case, module, _arguments in HOSTILE]
)
def test_hostile_input_never_crashes_and_stays_in_its_lane(case, module, arguments, world):
    @settings(max_examples=HOSTILE_EXAMPLES, **SETTINGS)
    @given(arguments)
    def check(args):
        COUNTS["hostile"] += 1
        result, requests = world.run(module, args)
        assert "traceback" not in result, "{}: traceback for {!r}:\n{}".format(case, args, result["traceback"])
        if result.get("failed"):
            assert is_clear_failure(result), f"{case}: no clear failure for {args!r}: {result!r}"
        stray = [
            entry
            for entry in mutating(requests)
            if not posixpath.normpath(entry["path"]).startswith(OWN_PATHS.get(module, ("/nowhere",)))
        ]
        assert stray == [], f"{case}: {module} changed something elsewhere for {args!r}: {stray!r}"
        if not result.get("failed") and result.get("changed"):
            again, requests = world.run(module, args)
            assert "traceback" not in again and not again.get("failed"), f"{case}: second run of {args!r}: {again!r}"
            assert again.get("changed") is False, f"{case}: not idempotent for {args!r}: {mutating(requests)!r}"

    check()
