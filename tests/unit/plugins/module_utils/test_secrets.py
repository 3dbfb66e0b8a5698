"""Names of serverless secrets, checked before any request (pure: no emulator)."""

import pytest

from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import ModuleFailure
from ansible_collections.cloudcompute.cloud.plugins.module_utils._secrets import check_name


@pytest.mark.parametrize("name", ["a", "db-password", "x9", "a" * 63, "a-"])
def test_names_the_api_takes_pass(name):
    check_name(name)


@pytest.mark.parametrize("name", ["", None, "9lives", "-a", "Upper", "under_score", "dot.name", "a" * 64, "a/b", "a b"])
def test_other_names_are_refused_with_the_rule(name):
    with pytest.raises(ModuleFailure, match="lowercase letters, digits and hyphens, starting with a letter"):
        check_name(name)
