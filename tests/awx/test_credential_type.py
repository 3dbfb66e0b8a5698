"""The "Cloud Compute API" credential type (docs/awx/): AWX accepts it, and it injects what the
collection reads.

AWX validates a custom credential type before saving it: the inputs and injectors against a
JSON schema, field ids unique and not reserved, ``secret`` only on strings, and every injector
template rendered (strictly, in a sandbox) against the defined fields. Environment variables
that could change Ansible's behaviour (``ANSIBLE_*``) or AWX's own are refused. These rules are
restated here so a definition AWX would reject fails the suite.
"""

import pathlib
import re

import jsonschema
import pytest
import yaml
from jinja2 import StrictUndefined
from jinja2.sandbox import ImmutableSandboxedEnvironment

COLLECTION = pathlib.Path(__file__).resolve().parents[2]
NAME = r"^[a-zA-Z_]+[a-zA-Z0-9_]*$"
INPUTS_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "required": {"type": "array", "items": {"type": "string"}},
        "fields": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["id", "label"],
                "properties": {
                    "id": {"type": "string", "pattern": NAME},
                    "label": {"type": "string"},
                    "type": {"enum": ["string", "boolean"]},
                    "format": {"enum": ["ssh_private_key", "url"]},
                    "choices": {"type": "array", "minItems": 1, "items": {"type": "string"}, "uniqueItems": True},
                    "help_text": {"type": "string"},
                    "multiline": {"type": "boolean"},
                    "secret": {"type": "boolean"},
                    "ask_at_runtime": {"type": "boolean"},
                    "default": {},
                },
            },
        },
    },
}
INJECTORS_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "file": {
            "type": "object",
            "additionalProperties": False,
            "patternProperties": {r"^template(\.[a-zA-Z_]+[a-zA-Z0-9_]*)?$": {"type": "string"}},
        },
        "env": {
            "type": "object",
            "additionalProperties": False,
            "patternProperties": {NAME: {"type": "string", "pattern": "^[\x00-\x7f]*$"}},
        },
        "extra_vars": {
            "type": "object",
            "additionalProperties": False,
            "patternProperties": {NAME: {"type": "string"}},
        },
    },
}
# Variables AWX sets for its own use and refuses in credential types (besides ANSIBLE_*).
AWX_RESERVED_ENV = {
    "VIRTUAL_ENV",
    "PATH",
    "PYTHONPATH",
    "JOB_ID",
    "INVENTORY_ID",
    "INVENTORY_SOURCE_ID",
    "INVENTORY_UPDATE_ID",
    "AD_HOC_COMMAND_ID",
    "REST_API_URL",
    "REST_API_TOKEN",
    "MAX_EVENT_RES",
    "CALLBACK_QUEUE",
    "CALLBACK_CONNECTION",
    "CACHE",
    "JOB_CALLBACK_DEBUG",
    "INVENTORY_HOSTVARS",
    "AWX_HOST",
    "PROJECT_REVISION",
    "SUPERVISOR_CONFIG_PATH",
}


def collection_environment_variables():
    """{option: environment variable} of the connection options (the inventory plugin's fragment)."""
    from ansible_collections.cloudcompute.cloud.plugins.doc_fragments.common import ModuleDocFragment

    options = yaml.safe_load(ModuleDocFragment.PLUGIN)["options"]
    return {name: option["env"][0]["name"] for name, option in options.items()}


def test_awx_accepts_the_credential_type(credential_type):
    inputs, injectors = credential_type
    jsonschema.validate(inputs, INPUTS_SCHEMA)
    jsonschema.validate(injectors, INJECTORS_SCHEMA)
    ids = [field["id"] for field in inputs["fields"]]
    assert len(ids) == len(set(ids)), "field ids must be unique"
    assert not set(ids) & {"tower", "awx"}, "reserved field name"
    assert set(inputs["required"]) <= set(ids)
    for field in inputs["fields"]:
        if field.get("type", "string") != "string":
            assert not set(field) & {"choices", "multiline", "format", "secret"}, field["id"]
    for name in injectors["env"]:
        assert not name.startswith("ANSIBLE_") and name not in AWX_RESERVED_ENV, name
    sandbox = ImmutableSandboxedEnvironment(undefined=StrictUndefined)
    for templates in injectors.values():
        for template in templates.values():
            sandbox.from_string(template).render({field: "EXAMPLE" for field in ids})  # an undefined field raises


def test_it_injects_the_three_variables_the_collection_reads(inject, hidden_password):
    env, safe_env = inject({"api_url": "https://api.example.com/v1", "client_id": "id-1", "client_secret": "s3cr3t"})
    variables = collection_environment_variables()
    assert env == {
        variables["api_url"]: "https://api.example.com/v1",
        variables["client_id"]: "id-1",
        variables["client_secret"]: "s3cr3t",
    }
    assert env.keys() == {"CLOUDCOMPUTE_API_URL", "CLOUDCOMPUTE_CLIENT_ID", "CLOUDCOMPUTE_CLIENT_SECRET"}
    # what AWX stores with the job shows everything but the secret
    assert safe_env == dict(env, CLOUDCOMPUTE_CLIENT_SECRET=hidden_password)


def test_only_the_secret_is_secret_and_everything_is_required(credential_type):
    inputs, injectors = credential_type
    assert [field["id"] for field in inputs["fields"] if field.get("secret")] == ["client_secret"]
    assert sorted(inputs["required"]) == ["api_url", "client_id", "client_secret"]
    assert set(injectors) == {"env"}, "only env injectors reach inventory updates too"


@pytest.mark.parametrize("name", ["credential_type_inputs.yml", "credential_type_injectors.yml", "cloudcompute.yml"])
def test_the_guide_shows_the_shipped_files(name):
    """docs/awx.md shows each shipped file verbatim, in a YAML block of its own."""
    guide = (COLLECTION / "docs" / "awx.md").read_text()
    blocks = re.findall(r"^```yaml\n(.*?)^```$", guide, re.MULTILINE | re.DOTALL)
    assert (COLLECTION / "docs" / "awx" / name).read_text() in blocks
