"""Reads a table gcpstream wrote with readers that share nothing with it
(pyiceberg, DuckDB's iceberg extension) and compares its rows with the
Parquet files that were added (read by pyarrow, each row taken by column
name: a column a file lacks reads as null).

Usage: check_table.py METADATA_FILE [PARQUET_FILE...]
METADATA_FILE may be gs://... on the emulator (gcs_emulator.py); the
Parquet files are local copies.
Prints JSON: the schema (ids, names, optionality, types), the current
snapshot's summary, each data file with its metrics, the rows pyiceberg
reads (or why pyiceberg could not), and whether pyiceberg's and DuckDB's
rows equal the files'.
"""

import json
import sys

import pyarrow.parquet as pq
from pyiceberg.table import StaticTable

import gcs_emulator
from scan_table import duckdb_rows


def canonical(rows):
    """Rows in a comparable, order-free form (maps as sorted pairs)."""
    def value(v):
        if isinstance(v, dict):
            return {k: value(x) for k, x in v.items()}
        if isinstance(v, list):
            items = [value(x) for x in v]
            if items and all(isinstance(x, tuple) for x in items):
                return sorted(items)
            return items
        if isinstance(v, tuple):
            return tuple(value(x) for x in v)
        return v
    return sorted(json.dumps(value(r), sort_keys=True, default=str)
                  for r in rows)


def expected_rows(names, files):
    rows = []
    for path in files:
        # ParquetFile: the file alone, no Hive partitions from its path.
        for row in pq.ParquetFile(path).read().to_pylist():
            rows.append({name: row.get(name) for name in names})
    return rows


def schema_json(schema):
    def field(f):
        out = {"id": f.field_id, "name": f.name, "required": f.required,
               "type": str(f.field_type)}
        return out
    return [field(f) for f in schema.fields]


def local_path(uri):
    """A path from `file:` URIs, as Java's Hadoop IO spells them too."""
    if uri.startswith("file:"):
        uri = uri[len("file:"):]
        if uri.startswith("//"):
            uri = uri[2:]
    return uri


def main():
    sys.argv[1] = local_path(sys.argv[1])
    table = StaticTable.from_metadata(
        sys.argv[1], properties=gcs_emulator.pyiceberg_properties())
    schema = table.schema()
    snapshot = table.current_snapshot()
    pyiceberg_error = None
    try:
        scanned = table.scan().to_arrow().to_pylist() if snapshot else []
    except ValueError as error:  # Reported: a test may pin a deviation.
        pyiceberg_error = str(error)
        scanned = []
    names = [f.name for f in schema.fields]
    expected = canonical(expected_rows(names, sys.argv[2:]))
    files = []
    if snapshot:
        for task in table.scan().plan_files():
            f = task.file
            files.append({
                "path": f.file_path,
                "record_count": f.record_count,
                "file_size_in_bytes": f.file_size_in_bytes,
                "value_counts": dict(f.value_counts or {}),
                "null_value_counts": dict(f.null_value_counts or {}),
                "column_sizes": dict(f.column_sizes or {}),
                "lower_bounds": {k: v.hex()
                                 for k, v in (f.lower_bounds or {}).items()},
                "upper_bounds": {k: v.hex()
                                 for k, v in (f.upper_bounds or {}).items()},
                "partition": [str(v) for v in f.partition],
            })
    print(json.dumps({
        "schema_id": schema.schema_id,
        "schema": schema_json(schema),
        "schemas": len(table.metadata.schemas),
        "name_mapping": table.metadata.properties.get(
            "schema.name-mapping.default"),
        "snapshots": len(table.metadata.snapshots),
        "summary": (snapshot.summary.additional_properties
                    if snapshot else None),
        "operation": snapshot.summary.operation.value if snapshot else None,
        "files": sorted(files, key=lambda f: f["path"]),
        "rows": len(scanned),
        "equal": canonical(scanned) == expected,
        "pyiceberg_error": pyiceberg_error,
        "duckdb_equal": (canonical(duckdb_rows(sys.argv[1])) == expected
                         if snapshot else None),
    }, sort_keys=True, default=str))


if __name__ == "__main__":
    main()
