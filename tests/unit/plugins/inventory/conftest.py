"""Run the inventory plugin in-process against the emulator, the way ansible-inventory does:
loaded by name through Ansible's plugin loader, configured from a YAML file and the
CLOUDCOMPUTE_* environment variables."""

import pytest
import yaml
from ansible.inventory.data import InventoryData
from ansible.parsing.dataloader import DataLoader
from ansible.plugins.loader import init_plugin_loader, inventory_loader

PLUGIN = "cloudcompute.cloud.cloudcompute"

# Ansible's CLI installs the collection loader before it loads plugins by name; so do we
# (ANSIBLE_COLLECTIONS_PATH points at the staged collection).
init_plugin_loader()


class InventoryRun:
    """Parse configurations with fresh plugin instances, as separate ansible runs would."""

    def __init__(self, directory):
        self.directory = directory

    def write_config(self, options, name="cloudcompute.yml"):
        path = self.directory / name
        path.write_text(yaml.safe_dump(dict({"plugin": PLUGIN}, **options)))
        return path

    def parse(self, options=None, cache=True, name="cloudcompute.yml"):
        """The InventoryData of one load; ``cache=False`` is ``--flush-cache``."""
        return self.parse_file(self.write_config(options or {}, name), cache=cache)

    @staticmethod
    def parse_file(path, cache=True, loader=None):
        plugin = inventory_loader.get(PLUGIN)
        assert plugin.verify_file(str(path))
        inventory = InventoryData()
        plugin.parse(inventory, loader or DataLoader(), str(path), cache=cache)
        if plugin.get_option("cache"):
            plugin.update_cache_if_changed()  # what the inventory manager does after parse()
        return inventory


@pytest.fixture
def inventory_run(emulator_reset, tmp_path, monkeypatch):
    monkeypatch.setenv("CLOUDCOMPUTE_API_URL", emulator_reset.api_url)
    monkeypatch.setenv("CLOUDCOMPUTE_CLIENT_ID", emulator_reset.client_id)
    monkeypatch.setenv("CLOUDCOMPUTE_CLIENT_SECRET", emulator_reset.client_secret)
    monkeypatch.setenv("CLOUDCOMPUTE_TOKEN_CACHE", str(tmp_path / "tokens"))
    yield InventoryRun(tmp_path)
    emulator_reset.control.clear_faults()


@pytest.fixture
def messages(monkeypatch):
    """What the plugin says at -v and as warnings."""
    from ansible_collections.cloudcompute.cloud.plugins.inventory import cloudcompute as plugin_module

    said = {"v": [], "warning": []}
    monkeypatch.setattr(plugin_module.display, "v", said["v"].append)
    monkeypatch.setattr(plugin_module.display, "warning", said["warning"].append)
    return said
