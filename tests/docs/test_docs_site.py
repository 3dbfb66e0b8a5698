"""The documentation site renders: its pages opened in headless Chromium show the content they
should, styled and complete, with every page asset served.

Content is read as the reader sees it (WebDriver's rendered text, computed styles, element
boxes), not from the HTML source.
"""

import pathlib
import re

import yaml

COLLECTION = pathlib.Path(__file__).resolve().parents[2]


def modules():
    runtime = yaml.safe_load((COLLECTION / "meta" / "runtime.yml").read_text())
    return runtime["action_groups"]["all"]


def guide_titles():
    """{page name: first heading} of the Markdown guides in docs/."""
    titles = {}
    for path in sorted((COLLECTION / "docs").glob("*.md")):
        titles[path.stem] = re.search(r"^# (.+)$", path.read_text(), re.MULTILINE).group(1)
    return titles


def assert_styled(browser):
    """The theme's stylesheet and layout are applied: a visible sidebar beside the content."""
    layout = browser.run("""
        const side = document.querySelector('.wy-nav-side'), content = document.querySelector('.wy-nav-content');
        const box = element => element ? element.getBoundingClientRect().toJSON() : null;
        return {side: box(side), content: box(content),
                sideDisplay: side && getComputedStyle(side).display,
                font: getComputedStyle(document.body).fontFamily,
                sheets: document.styleSheets.length};""")
    assert layout["sheets"] >= 2, layout
    assert layout["sideDisplay"] != "none" and layout["side"]["width"] >= 200, layout
    assert layout["content"]["left"] >= layout["side"]["right"] - 1, layout
    assert "lato" in layout["font"].lower(), layout  # the theme's font, not the browser default


def assert_everything_served(site_server):
    seen = site_server[1]
    missing = sorted({path for status, path in seen if status >= 400 and path != "/favicon.ico"})
    assert not missing, f"the pages asked for files the site does not have: {missing}"


def test_front_page_lists_guides_and_reference(browser, site_server):
    base = site_server[0]
    browser.open(base + "index.html")
    assert "cloudcompute.cloud" in browser.title
    navigation = browser.text(".wy-menu-vertical")
    for title in guide_titles().values():
        assert title in navigation, f"guide {title!r} is not in the navigation"
    for entry in ("Index of all Modules", "Index of all Inventory Plugins"):
        assert entry in navigation
    assert_styled(browser)
    assert_everything_served(site_server)


def test_module_index_lists_every_module_and_leads_to_its_page(browser, site_server):
    base = site_server[0]
    browser.open(base + "collections/index_module.html")
    assert browser.text("h1") == "Index of all Modules"
    index = browser.text("div[itemprop=articleBody]")
    for module in modules():
        assert f"cloudcompute.cloud.{module}" in index, module
    assert_styled(browser)

    browser.click("div[itemprop=articleBody] a[href*='cloudcompute/cloud/ssh_key_module.html']")
    assert browser.url.split("#")[0].endswith("/collections/cloudcompute/cloud/ssh_key_module.html")
    assert browser.text("h1") == "cloudcompute.cloud.ssh_key module – Manage SSH keys of a Cloud Compute project"
    parameters = browser.text("#parameters")
    for option in ("api_url", "client_id", "client_secret", "name", "public_key", "state", "token_cache"):
        assert re.search(rf"^{option}$", parameters, re.MULTILINE), option
    assert "CLOUDCOMPUTE_CLIENT_SECRET" in parameters  # the environment fallback is documented
    assert "ssh_key" in browser.text("#return-values")

    examples = browser.run("""
        const block = document.querySelector('#examples .highlight pre');
        const colors = new Set([...block.querySelectorAll('span')].map(span => getComputedStyle(span).color));
        return {text: block.innerText, colors: colors.size};""")
    assert "cloudcompute.cloud.ssh_key:" in examples["text"]
    assert examples["colors"] >= 3, "the examples are not syntax-highlighted"
    assert_styled(browser)
    assert_everything_served(site_server)


def test_inventory_plugin_page(browser, site_server):
    base = site_server[0]
    browser.open(base + "collections/cloudcompute/cloud/cloudcompute_inventory.html")
    assert browser.text("h1").startswith("cloudcompute.cloud.cloudcompute inventory")
    parameters = browser.text("#parameters")
    for option in ("plugin", "filters", "connect_with", "cache_timeout", "client_secret"):
        assert re.search(rf"^{option}$", parameters, re.MULTILINE), option
    assert_everything_served(site_server)


def test_awx_guide_renders_its_steps(browser, site_server):
    base = site_server[0]
    browser.open(base + "guides/awx.html")
    body = browser.text("div[itemprop=articleBody]")
    assert body.startswith("AWX and Ansible Automation Platform")
    for heading in (
        "1. The execution environment",
        "2. The \u201cCloud Compute API\u201d credential type",
        "3. A credential",
        "4. The inventory source",
        "5. A job template",
    ):
        assert heading in body
    assert 'CLOUDCOMPUTE_CLIENT_SECRET: "{{ client_secret }}"' in body
    rows = browser.run("return [...document.querySelectorAll('table tbody tr')].map(row => row.innerText);")
    assert any(row.startswith("Update on launch") for row in rows), rows
    assert_styled(browser)
    assert_everything_served(site_server)


def test_search_finds_a_module_option(browser, site_server):
    """The search page's JavaScript loads the index and lists the pages that mention a word."""
    base = site_server[0]
    browser.open(base + "search.html?q=public_key")
    results = browser.wait_for("""
        const items = document.querySelectorAll('#search-results li');
        return items.length ? [...items].map(item => item.innerText) : null;""")
    assert results and any("ssh_key module" in result for result in results), results
    assert_everything_served(site_server)
