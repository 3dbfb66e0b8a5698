"""AWX's side of a job, without AWX: the credential type's injection and the execution environment.

``inject`` renders the shipped credential type's injectors with a credential's inputs the way
AWX does (an immutable sandboxed Jinja environment over the inputs; secret inputs masked in the
copy of the environment AWX stores with the job). ``execution_environment`` gives the test
process what a fresh EE container has: the collection installed where ansible looks by default,
an empty home directory, and no Ansible or Cloud Compute setting in the environment, so the
credential type's variables are the only way the job learns about the API.
"""

import os
import pathlib
import shutil

import pytest
import yaml
from jinja2.sandbox import ImmutableSandboxedEnvironment

COLLECTION = pathlib.Path(__file__).resolve().parents[2]
CREDENTIAL_TYPE_DIR = COLLECTION / "docs" / "awx"
# AWX replaces secret inputs with this in the environment it stores with a job (job_env).
HIDDEN_PASSWORD = "**********"


def load_credential_type():
    return (
        yaml.safe_load((CREDENTIAL_TYPE_DIR / "credential_type_inputs.yml").read_text()),
        yaml.safe_load((CREDENTIAL_TYPE_DIR / "credential_type_injectors.yml").read_text()),
    )


def render_injectors(credential_inputs):
    inputs, injectors = load_credential_type()
    missing = [field for field in inputs.get("required", []) if not credential_inputs.get(field)]
    assert not missing, f"AWX refuses a credential without {missing}"
    secret = {field["id"] for field in inputs["fields"] if field.get("secret")}
    namespace = {key: value for key, value in credential_inputs.items() if value}
    safe_namespace = {key: HIDDEN_PASSWORD if key in secret else value for key, value in namespace.items()}
    sandbox = ImmutableSandboxedEnvironment()
    env = {
        name: sandbox.from_string(template).render(**namespace) for name, template in injectors.get("env", {}).items()
    }
    safe_env = {
        name: sandbox.from_string(template).render(**safe_namespace)
        for name, template in injectors.get("env", {}).items()
    }
    return env, safe_env


@pytest.fixture
def credential_type():
    """(inputs, injectors) of the "Cloud Compute API" credential type, as shipped."""
    return load_credential_type()


@pytest.fixture
def inject():
    """``inject(credential_inputs)`` -> (env, safe_env): the environment AWX gives a job or an
    inventory update for a credential of this type, and the copy it stores with the job, with
    secret inputs shown as ``hidden_password``."""
    return render_injectors


@pytest.fixture
def hidden_password():
    return HIDDEN_PASSWORD


@pytest.fixture
def credential(emulator_reset):
    """A "Cloud Compute API" credential for the emulator's project: its inputs and what AWX injects."""
    inputs = {
        "api_url": emulator_reset.api_url,
        "client_id": emulator_reset.client_id,
        "client_secret": emulator_reset.client_secret,
    }
    env, safe_env = render_injectors(inputs)
    return {"inputs": inputs, "env": env, "safe_env": safe_env}


@pytest.fixture
def execution_environment(monkeypatch, installed_collection, tmp_path):
    """The test process set up like an EE container (see the module docstring); returns its home."""
    for key in list(os.environ):
        if key.startswith(("ANSIBLE_", "CLOUDCOMPUTE_")) or key == "PYTHONPATH":
            monkeypatch.delenv(key)
    home = tmp_path / "home"
    shutil.copytree(installed_collection, home / ".ansible" / "collections")
    monkeypatch.setenv("HOME", str(home))
    # In an EE, HOME is the job user's home. Here it is not root's home from the password
    # database, which async_status uses to find a job's result (`~root`), while the async wrapper
    # writes under $HOME: name the async directory so both agree (the fleet role runs async).
    monkeypatch.setenv("ANSIBLE_ASYNC_DIR", str(home / ".ansible_async"))
    return home
