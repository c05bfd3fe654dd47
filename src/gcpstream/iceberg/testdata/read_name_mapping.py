"""Parses a name mapping (the schema.name-mapping.default property) with
pyiceberg and prints it back as JSON: field id to names, flattened.

Usage: read_name_mapping.py FILE
"""

import json
import sys

from pyiceberg.table.name_mapping import parse_mapping_from_json


def flatten(fields, out):
    for field in fields:
        out[str(field.field_id)] = list(field.names)
        flatten(field.fields, out)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        mapping = parse_mapping_from_json(f.read())
    out = {}
    flatten(mapping.root, out)
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
