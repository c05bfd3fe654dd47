"""Prints an Avro container file as JSON, read by fastavro (an
implementation independent of gcpstream's writer): its header metadata
(without avro.schema) and its records, bytes values as hex.

Usage: read_avro.py FILE
"""

import json
import sys

import fastavro


def plain(value):
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def main():
    with open(sys.argv[1], "rb") as f:
        reader = fastavro.reader(f)
        metadata = {k: v.decode() if isinstance(v, bytes) else v
                    for k, v in reader.metadata.items() if k != "avro.schema"}
        records = [plain(r) for r in reader]
    print(json.dumps({"metadata": metadata, "records": records},
                     sort_keys=True))


if __name__ == "__main__":
    main()
