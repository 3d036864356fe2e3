"""The catalogs' keeper (G1, docs/i18n.md): extract the keys, update the ``.po`` files, check.

``python scripts/i18n.py extract``
    Finds every key the code uses (Babel's extraction, ``babel.cfg`` and :data:`KEYWORDS`:
    what ``pybabel extract`` does), writes the template ``messages.pot`` and updates each
    language's ``messages.po``: a new key is added empty, a key the code no longer uses is
    dropped, the rest is kept; entries sorted by key, no line numbers (a moved line
    changes nothing).
``python scripts/i18n.py set KEY --zh-Hans TEXT --zh-Hant TEXT --en TEXT [--en-plural TEXT]``
    Writes one key's texts (a plural entry: ``--en`` is English's ``one`` form and
    ``--en-plural`` its ``other``); the entry is no longer fuzzy.
``python scripts/i18n.py draft-hant``
    Fills every empty zh-Hant entry with OpenCC's Taiwan-phrases conversion of its zh-Hans
    text (``pip install opencc``: not a dependency of the game), marked fuzzy: the check
    fails until a person has read it against docs/terms.md and removed the mark.
``python scripts/i18n.py check``
    Prints every problem :func:`problems` finds (exit 1 if any): the suite's test runs the
    same function.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po, write_po

from yahtzee.i18n import Lang, chunk_of, placeholders
from yahtzee.i18n.catalog import LOCALE_DIR, plural_tags, po_path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
MAPPING = ROOT / "babel.cfg"
TEMPLATE = LOCALE_DIR / "messages.pot"
#: The lookup functions whose first string argument (or the one named) is a key: the
#: server's (yahtzee.i18n) and the page's (js/i18n.js). ``(1, 1)``: a plural entry (the
#: key is both its msgid and its msgid_plural).
KEYWORDS: dict[str, Any] = {
    "N_": None,
    "msg": None,
    "msg_n": (1, 1),
    "text": (2,),
    "plural": (2, 2),
    "t": None,
    "tn": (1, 1),
}
LANGS = (Lang.ZH_HANS, Lang.ZH_HANT, Lang.EN)
_HEADER: dict[str, Any] = {
    "project": "快艇骰子",
    "version": "",
    "copyright_holder": "the 快艇骰子 project",
    "msgid_bugs_address": "",
    "header_comment": "# The catalog of 快艇骰子 (docs/i18n.md): keys, not sentences; written by\n"
    "# scripts/i18n.py extract, the texts by people (docs/terms.md).",
    "fuzzy": False,
}
_KEY_SHAPE = "lowercase dotted words: chunk.view.what (a-z, 0-9, _)"


def _is_key(text: str) -> bool:
    parts = text.split(".")
    return len(parts) >= 2 and all(
        p and p.replace("_", "").isalnum() and p == p.lower() and p.isascii() for p in parts
    )


def extract() -> Catalog:
    """The keys the code uses, as a template catalog (each with the files naming it)."""
    with MAPPING.open() as f:
        method_map, options_map = parse_mapping_cfg(f, str(MAPPING))  # type: ignore[no-untyped-call]
    template = Catalog(**_HEADER)
    for filename, _line, message, _comments, _context in extract_from_dir(
        str(SRC), method_map, options_map, keywords=KEYWORDS, comment_tags=()
    ):
        key = message[0] if isinstance(message, tuple) else message
        if not key:
            continue
        where = ("src/" + filename, 0)  # (no line numbers: a moved line changes nothing)
        found = template.get(key)
        if found is not None:
            found.locations.append(where)
            if isinstance(message, tuple) != found.pluralizable:
                raise SystemExit(f"{key} is looked up both as a plural and not: {filename}")
        else:
            template.add(message, locations=[where])
    return template


def used_keys() -> dict[str, bool]:
    """Every key the code uses, and whether it is a plural entry."""
    return {str(m.id[0] if m.pluralizable else m.id): m.pluralizable for m in extract() if m.id}


def _undated(po: bytes) -> bytes:
    return b"\n".join(
        line
        for line in po.split(b"\n")
        if not line.startswith((b'"POT-Creation-Date', b'"PO-Revision'))
    )


def _write(path: Path, catalog: Catalog) -> None:
    out = io.BytesIO()
    write_po(out, catalog, width=0, sort_output=True, include_lineno=False, ignore_obsolete=True)
    # (Babel stamps the creation date: a file whose entries did not change is left as it is)
    old = path.read_bytes() if path.exists() else b""
    if _undated(old) != _undated(out.getvalue()):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(out.getvalue())


def read(lang: Lang, directory: Path = LOCALE_DIR) -> Catalog:
    """``lang``'s catalog as Babel reads it."""
    with po_path(lang, directory).open("rb") as f:
        catalog: Catalog = read_po(f, locale=lang.babel)
    return catalog


def update() -> Catalog:
    """Write the template and bring every language's catalog to it (see the docstring)."""
    template = extract()
    _write(TEMPLATE, template)
    for lang in LANGS:
        path = po_path(lang)
        catalog = read(lang) if path.exists() else Catalog(locale=lang.babel, **_HEADER)
        catalog.update(template, no_fuzzy_matching=True, update_header_comment=False)
        catalog.obsolete.clear()
        _write(path, catalog)
    return template


def _texts(message: Any) -> tuple[str, ...]:
    return tuple(message.string) if message.pluralizable else (message.string,)


def problems(used: dict[str, bool] | None = None, directory: Path = LOCALE_DIR) -> list[str]:
    """What keeps the catalogs from being whole (the G1 checks): a key of the code missing,
    empty or fuzzy in a language, or there as a plural entry where the code looks up a
    text (or the other way); a key of a catalog the code does not use; a key of the wrong
    shape; a translation whose placeholders differ from zh-Hans's; a plural entry without
    every form of its language; a template that is not the code's. ``used``: the keys the
    code uses (extracted by default); ``directory``: the catalogs'."""
    used = used_keys() if used is None else used
    found: list[str] = []
    for key in sorted(used):
        if not _is_key(key):
            found.append(f"{key!r}: not a key ({_KEY_SHAPE})")
    catalogs = {lang: read(lang, directory) for lang in LANGS}
    reference = {
        str(m.id[0] if m.pluralizable else m.id): m for m in catalogs[Lang.ZH_HANS] if m.id
    }
    for lang, catalog in catalogs.items():
        have = {str(m.id[0] if m.pluralizable else m.id): m for m in catalog if m.id}
        for key in sorted(set(have) - set(used)):
            found.append(f"{lang}: {key} is in the catalog but the code does not use it")
        for key, is_plural in sorted(used.items()):
            message = have.get(key)
            if message is None:
                found.append(f"{lang}: {key} is missing")
                continue
            if message.fuzzy:
                found.append(f"{lang}: {key} is fuzzy (a draft nobody has read)")
            if message.pluralizable != is_plural:
                kind = "a plural entry" if is_plural else "a text"
                found.append(f"{lang}: {key} should be {kind}")
                continue
            # (a plural entry lacking one of its language's forms reads with it empty)
            texts = _texts(message)
            if not all(texts):
                found.append(f"{lang}: {key} is empty")
                continue
            ref = reference.get(key)
            if ref is None or lang is Lang.ZH_HANS:
                continue
            want = set().union(*(placeholders(t) for t in _texts(ref)))
            for text in texts:
                if placeholders(text) != want:
                    found.append(
                        f"{lang}: {key} has placeholders {sorted(placeholders(text))}, "
                        f"zh-Hans has {sorted(want)}"
                    )
    template_keys = set()
    template = directory / TEMPLATE.name
    if template.exists():
        with template.open("rb") as f:
            template_keys = {str(m.id[0] if m.pluralizable else m.id) for m in read_po(f) if m.id}
    if template_keys != set(used):
        found.append("messages.pot is not the code's keys: run scripts/i18n.py extract")
    return found


def set_texts(key: str, texts: dict[Lang, tuple[str, ...]]) -> None:
    """Write ``key``'s texts in each language given (every form of a plural entry)."""
    for lang, forms in texts.items():
        catalog = read(lang)
        message = catalog.get(key)
        if message is None:
            raise SystemExit(f"{key} is not in the {lang} catalog: use it in the code, run extract")
        if message.pluralizable:
            message.string = forms if len(forms) > 1 else forms * len(plural_tags(lang))
        else:
            message.string = forms[0]
        message.flags.discard("fuzzy")
        _write(po_path(lang), catalog)


def draft_hant() -> int:
    """Fill empty zh-Hant entries with OpenCC's draft, fuzzy (see the docstring)."""
    try:
        import opencc  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        raise SystemExit("draft-hant needs OpenCC: pip install opencc") from None
    convert = opencc.OpenCC("s2twp").convert
    source = {m.id: m for m in read(Lang.ZH_HANS) if m.id}
    catalog = read(Lang.ZH_HANT)
    drafted = 0
    for message in catalog:
        ref = source.get(message.id)
        if not message.id or ref is None or all(_texts(message)):
            continue
        forms = tuple(convert(t) for t in _texts(ref))
        message.string = forms if message.pluralizable else forms[0]
        message.flags.add("fuzzy")
        drafted += 1
    _write(po_path(Lang.ZH_HANT), catalog)
    return drafted


def chunks(keys: Iterable[str]) -> dict[str, int]:
    """How many keys each chunk has."""
    out: dict[str, int] = {}
    for key in keys:
        out[chunk_of(key)] = out.get(chunk_of(key), 0) + 1
    return dict(sorted(out.items()))


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("extract", help="write messages.pot and update every messages.po")
    sub.add_parser("check", help="list what keeps the catalogs from being whole")
    sub.add_parser("draft-hant", help="OpenCC's draft for empty zh-Hant entries (fuzzy)")
    setter = sub.add_parser("set", help="write one key's texts")
    setter.add_argument("key")
    setter.add_argument("--zh-Hans", dest=Lang.ZH_HANS.folder, metavar="TEXT")
    setter.add_argument("--zh-Hant", dest=Lang.ZH_HANT.folder, metavar="TEXT")
    setter.add_argument("--en", dest=Lang.EN.folder, metavar="TEXT")
    setter.add_argument("--en-plural", metavar="TEXT", help="English's other form")
    args = parser.parse_args(argv)
    if args.command == "extract":
        template = update()
        keys = [str(m.id if isinstance(m.id, str) else m.id[0]) for m in template if m.id]
        print(f"{len(keys)} keys: {chunks(keys)}")
    elif args.command == "set":
        texts: dict[Lang, tuple[str, ...]] = {}
        for lang in LANGS:
            value = getattr(args, lang.folder)
            if value is not None:
                texts[lang] = (value,)
        if args.en_plural is not None:
            texts[Lang.EN] = (*texts.get(Lang.EN, ()), args.en_plural)
        set_texts(args.key, texts)
    elif args.command == "draft-hant":
        print(f"{draft_hant()} zh-Hant drafts (fuzzy until read)")
    found = problems()
    for line in found:
        print(line, file=sys.stderr)
    if args.command == "check":
        print(f"{len(found)} problems" if found else "the catalogs are whole")
    return 1 if found and args.command == "check" else 0


if __name__ == "__main__":
    sys.exit(main())
