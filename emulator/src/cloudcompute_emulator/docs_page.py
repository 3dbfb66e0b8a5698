"""``/v1/docs``: a self-contained HTML reference generated from ``/v1/openapi.json``.

No CDN, no scripts fetched from anywhere: the page is one HTML document with inline CSS,
built from the same OpenAPI document the pydantic models produce, so it works offline.
"""

from __future__ import annotations

import html
import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

router = APIRouter()

STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:0;display:flex;color:#1d2733}
nav{width:320px;height:100vh;overflow:auto;position:sticky;top:0;background:#f3f5f8;padding:1em;box-sizing:border-box;font-size:13px}
nav a{display:block;color:#1d2733;text-decoration:none;padding:2px 0} nav h3{margin:1em 0 .3em}
main{flex:1;padding:1em 2em;max-width:1000px} section{border-top:1px solid #dde3ea;padding:1em 0}
.m{display:inline-block;min-width:4.5em;font-weight:700;font-family:monospace}
.get{color:#1a7f37}.post{color:#0969da}.put{color:#9a6700}.delete{color:#cf222e}.patch{color:#8250df}
code,pre{font-family:ui-monospace,Consolas,monospace;font-size:12px} pre{background:#f6f8fa;padding:.6em;overflow:auto;max-height:360px}
table{border-collapse:collapse;font-size:13px} td,th{border:1px solid #dde3ea;padding:3px 8px;text-align:left;vertical-align:top}
.dep{color:#888;text-decoration:line-through} .badge{font-size:11px;background:#eee;border-radius:3px;padding:1px 5px;margin-left:6px}
"""


def _resolve(schema: Any, components: dict[str, Any], depth: int = 0) -> Any:
    """Inline ``$ref``s (a few levels deep) so each operation's schema reads on its own."""
    if depth > 6:
        return schema
    if isinstance(schema, dict):
        if "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[-1]
            return _resolve(components.get(name, {}), components, depth + 1)
        return {key: _resolve(value, components, depth + 1) for key, value in schema.items() if key != "title"}
    if isinstance(schema, list):
        return [_resolve(item, components, depth + 1) for item in schema]
    return schema


def _schema_block(schema: Any, components: dict[str, Any]) -> str:
    return f"<pre>{html.escape(json.dumps(_resolve(schema, components), indent=2))}</pre>"


def render(document: dict[str, Any]) -> str:
    components = document.get("components", {}).get("schemas", {})
    by_tag: dict[str, list[tuple[str, str, dict]]] = {}
    for path, operations in document.get("paths", {}).items():
        for method, operation in operations.items():
            tag = (operation.get("tags") or ["Other"])[0]
            by_tag.setdefault(tag, []).append((method, path, operation))
    nav, sections = [], []
    for tag, entries in by_tag.items():
        nav.append(f"<h3>{html.escape(tag)}</h3>")
        for method, path, operation in entries:
            anchor = html.escape(f"{method}-{path}")
            css = "dep" if operation.get("deprecated") else ""
            nav.append(f'<a class="{css}" href="#{anchor}"><span class="m {method}">{method.upper()}</span>{html.escape(path)}</a>')
            parts = [f'<section id="{anchor}"><h2><span class="m {method}">{method.upper()}</span><code>{html.escape(path)}</code>']
            if operation.get("deprecated"):
                parts.append('<span class="badge">deprecated</span>')
            if not operation.get("security"):
                parts.append('<span class="badge">public</span>')
            parts.append(f"</h2><p>{html.escape(operation.get('summary', ''))}</p>")
            parameters = operation.get("parameters", [])
            if parameters:
                parts.append("<table><tr><th>parameter</th><th>in</th><th>required</th><th>schema</th></tr>")
                for parameter in parameters:
                    schema = json.dumps(_resolve(parameter.get("schema", {}), components))
                    parts.append(
                        f"<tr><td><code>{html.escape(parameter['name'])}</code></td><td>{parameter['in']}</td>"
                        f"<td>{'yes' if parameter.get('required') else ''}</td><td><code>{html.escape(schema)}</code></td></tr>"
                    )
                parts.append("</table>")
            body = operation.get("requestBody", {}).get("content", {})
            for media_type, content in body.items():
                parts.append(f"<h4>Request body <code>{html.escape(media_type)}</code></h4>")
                parts.append(_schema_block(content.get("schema", {}), components))
            parts.append("<h4>Responses</h4><table>")
            for status, response in operation.get("responses", {}).items():
                content = response.get("content", {})
                schema_html = "".join(
                    f"<code>{html.escape(media_type)}</code>{_schema_block(item.get('schema', {}), components)}"
                    for media_type, item in content.items()
                    if status.startswith("2")
                )
                parts.append(f"<tr><td>{status}</td><td>{html.escape(response.get('description', ''))}{schema_html}</td></tr>")
            parts.append("</table></section>")
            sections.append("".join(parts))
    info = document.get("info", {})
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape(info.get('title', 'API'))}</title><style>{STYLE}</style></head><body>"
        f"<nav><strong>{html.escape(info.get('title', ''))}</strong><br><a href='/v1/openapi.json'>openapi.json</a>{''.join(nav)}</nav>"
        f"<main><h1>{html.escape(info.get('title', ''))} <small>{html.escape(info.get('version', ''))}</small></h1>"
        f"<pre>{html.escape(info.get('description', ''))}</pre>{''.join(sections)}</main></body></html>"
    )


@router.get("/v1/docs", include_in_schema=False)
async def api_reference(request: Request) -> HTMLResponse:
    return HTMLResponse(render(request.app.openapi()))
