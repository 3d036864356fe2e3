"""An API reference page that works offline and under the strict CSP.

FastAPI's default ``/docs`` loads Swagger UI from a CDN (unreachable offline) and runs
inline script (forbidden by our CSP), so ``/docs`` is instead rendered here, on the
server, from the same OpenAPI document that ``/openapi.json`` serves: plain HTML, one
external stylesheet, no script.
"""

from __future__ import annotations

from html import escape
from typing import Any

DOCS_CSS = """
body { font-family: system-ui, "Noto Sans CJK SC", sans-serif; max-width: 60rem;
       margin: 2rem auto; padding: 0 1rem; line-height: 1.5; color: #222; }
h2 { border-bottom: 1px solid #ccc; margin-top: 2.5rem; }
.op { border: 1px solid #ddd; border-radius: 6px; padding: .5rem 1rem; margin: 1rem 0; }
.method { font-weight: bold; text-transform: uppercase; margin-right: .5rem; }
code, pre { background: #f5f5f5; border-radius: 3px; padding: 0 .2rem; }
pre { padding: .5rem; overflow-x: auto; }
table { border-collapse: collapse; } td, th { border: 1px solid #ddd; padding: .2rem .5rem; }
"""


def _type(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f'<a href="#schema-{escape(name)}">{escape(name)}</a>'
    if "anyOf" in schema:
        return " | ".join(_type(s) for s in schema["anyOf"])
    if "enum" in schema:
        return " | ".join(f"<code>{escape(repr(v))}</code>" for v in schema["enum"])
    if "const" in schema:
        return f"<code>{escape(repr(schema['const']))}</code>"
    kind = schema.get("type", "any")
    if kind == "array" and "maxItems" in schema and schema.get("minItems") == schema["maxItems"]:
        return f"array of {schema['maxItems']} {_type(schema.get('items', {}))}"
    if kind == "array":
        return f"array of {_type(schema.get('items', {}))}"
    if kind == "object" and "additionalProperties" in schema:
        extra = schema["additionalProperties"]
        inner = _type(extra) if isinstance(extra, dict) else "any"
        return f"object of {inner}"
    return escape(str(kind))


def _schema_table(schema: dict[str, Any]) -> str:
    props = schema.get("properties", {})
    if not props:
        return f"<p>{_type(schema)}</p>"
    required = set(schema.get("required", []))
    rows = "".join(
        f"<tr><td><code>{escape(name)}</code>{'' if name in required else ' (optional)'}</td>"
        f"<td>{_type(prop)}</td><td>{escape(prop.get('description', ''))}</td></tr>"
        for name, prop in props.items()
    )
    return f"<table><tr><th>field</th><th>type</th><th>notes</th></tr>{rows}</table>"


def render_docs(openapi: dict[str, Any]) -> str:
    """The whole reference page for ``openapi`` (an OpenAPI 3 document)."""
    info = openapi.get("info", {})
    parts = [
        "<!doctype html><html lang='zh-CN'><head><meta charset='utf-8'>",
        f"<title>{escape(info.get('title', 'API'))}</title>",
        "<link rel='stylesheet' href='/docs/style.css'></head><body>",
        f"<h1>{escape(info.get('title', 'API'))} <small>{escape(info.get('version', ''))}"
        "</small></h1>",
        f"<p>{escape(info.get('description', ''))}</p>",
        "<p>Machine-readable: <a href='/openapi.json'>/openapi.json</a>.</p>",
        "<h2>Endpoints</h2>",
    ]
    for path, methods in openapi.get("paths", {}).items():
        for method, op in methods.items():
            parts.append("<div class='op'>")
            parts.append(
                f"<h3><span class='method'>{escape(method)}</span><code>{escape(path)}</code>"
                f" — {escape(op.get('summary', ''))}</h3>"
            )
            if op.get("description"):
                parts.append(f"<pre>{escape(op['description'])}</pre>")
            params = op.get("parameters", [])
            if params:
                parts.append("<h4>Parameters</h4><ul>")
                for p in params:
                    parts.append(
                        f"<li><code>{escape(p['name'])}</code> ({escape(p.get('in', ''))}"
                        f"{', required' if p.get('required') else ''}): "
                        f"{_type(p.get('schema', {}))} {escape(p.get('description', ''))}</li>"
                    )
                parts.append("</ul>")
            body = op.get("requestBody", {}).get("content", {}).get("application/json")
            if body:
                schema = body.get("schema", {})
                shape = _schema_table(schema) if "properties" in schema else _type(schema)
                parts.append(f"<h4>Body</h4>{shape}")
            parts.append("<h4>Responses</h4><ul>")
            for status, resp in op.get("responses", {}).items():
                schema = resp.get("content", {}).get("application/json", {}).get("schema")
                shape = f" — {_type(schema)}" if schema else ""
                parts.append(
                    f"<li><b>{escape(status)}</b> {escape(resp.get('description', ''))}{shape}</li>"
                )
            parts.append("</ul></div>")
    parts.append("<h2>Schemas</h2>")
    for name, schema in openapi.get("components", {}).get("schemas", {}).items():
        parts.append(f"<h3 id='schema-{escape(name)}'>{escape(name)}</h3>")
        if schema.get("description"):
            parts.append(f"<p>{escape(schema['description'])}</p>")
        parts.append(_schema_table(schema))
    parts.append("</body></html>")
    return "".join(parts)
