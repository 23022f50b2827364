#!/usr/bin/env python3
"""Validates kbwatch JSON lines against schema/kbwatch-1.schema.json.

    kbwatch --json | python3 schema/validate.py            # any kind of line
    python3 schema/validate.py --kind recordingLine rec.jsonl

Reads standard input or the files given; checks every non-empty line against the schema (or
against the definition its shape names, or the one given with --kind: event, progress, state, recordingLine) and, for what kbwatch
prints, that the fields come in the documented order. Prints one line per invalid line and a
summary; exits 1 when any line is invalid. Needs python3-jsonschema (4.10 or later).
"""
import argparse
import json
import os
import sys

import jsonschema

SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kbwatch-1.schema.json")


def load_schema():
    with open(SCHEMA_PATH, encoding="utf-8") as handle:
        return json.load(handle)


def validator_for(schema, kind):
    """A validator for the whole schema, or for one of its definitions."""
    if kind is not None:
        schema = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/{kind}"}
    return jsonschema.Draft202012Validator(schema)


def kind_of(value):
    """Which definition a line is meant to be, from its shape."""
    if isinstance(value, dict) and "t" in value:
        return "recordingLine"
    if isinstance(value, dict) and value.get("event") == "progress":
        return "progress"
    if isinstance(value, dict) and "event" in value:
        return "event"
    return "state"


def order_problem(schema, value):
    """What is out of order in a printed object (events, progress frames, --state); None if nothing."""
    defs = schema["$defs"]
    if not isinstance(value, dict) or "schema" not in value:
        return None  # recordings are read in any order
    if "event" in value:
        # Fields the schema does not require (windowFrame) may be missing; the rest keep its order.
        fields = defs["eventFields"]
        expected = [name for name in fields["properties"] if name in value or name in fields["required"]]
        if value["event"] == "progress":
            expected += ["transition", "fraction"]
        keys = list(value)
        return None if keys == expected else f"fields {keys} are not in the order {expected}"
    # Fields the schema does not require (reserved) may be missing; the rest keep its order.
    expected = [name for name in defs["state"]["properties"] if name in value or name in defs["state"]["required"]]
    if list(value) != expected:
        return f"fields {list(value)} are not in the order {expected}"
    items = defs["state"]["properties"]["keyboards"]["items"]
    for keyboard in value.get("keyboards", []):
        if not isinstance(keyboard, dict):
            continue
        item = [name for name in items["properties"] if name in keyboard or name in items["required"]]
        if list(keyboard) != item:
            return f"keyboard fields {list(keyboard)} are not in the order {item}"
    return None


def main():
    parser = argparse.ArgumentParser(description="Validate kbwatch JSON lines against schema 1.")
    parser.add_argument("--kind", help="event, progress, state or recordingLine (default: any)")
    parser.add_argument("files", nargs="*", help="files to read (default: standard input)")
    arguments = parser.parse_args()
    schema = load_schema()
    if arguments.kind is not None and arguments.kind not in schema["$defs"]:
        raise SystemExit(f"validate.py: no definition '{arguments.kind}' in the schema")
    validators = {kind: validator_for(schema, kind) for kind in ["event", "progress", "state", "recordingLine"]}
    sources = arguments.files or ["-"]
    checked = invalid = 0
    for source in sources:
        handle = sys.stdin if source == "-" else open(source, encoding="utf-8")
        with handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                checked += 1
                where = f"{'stdin' if source == '-' else source}:{number}"
                try:
                    value = json.loads(line)
                except ValueError as error:
                    print(f"{where}: not JSON: {error}", flush=True)
                    invalid += 1
                    continue
                validator = validators[arguments.kind or kind_of(value)]
                errors = sorted(validator.iter_errors(value), key=lambda e: list(e.path))
                problem = order_problem(schema, value)
                for error in errors:
                    path = "/".join(str(part) for part in error.absolute_path) or "(the object)"
                    print(f"{where}: {path}: {error.message}", flush=True)
                if problem:
                    print(f"{where}: {problem}", flush=True)
                if errors or problem:
                    invalid += 1
    print(f"{checked} lines checked, {invalid} invalid")
    return 1 if invalid or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
