"""The connection arguments of an event source for the reset session emulator."""

import pytest


@pytest.fixture
def source_args(emulator_reset, tmp_path):
    """The connection arguments of a source for the reset emulator (no token cache)."""

    def factory(**options):
        return dict(
            {
                "api_url": emulator_reset.api_url,
                "client_id": emulator_reset.client_id,
                "client_secret": emulator_reset.client_secret,
                "token_cache": "false",
                "interval": 0.05,
            },
            **options,
        )

    return factory
