"""Reads an Iceberg table from its metadata file with two readers that
share nothing with gcpstream — pyiceberg and DuckDB's iceberg extension —
and compares their rows with the Parquet files it was made of (read by
pyarrow).

Usage: scan_table.py METADATA_FILE PARQUET_FILE...
Prints JSON: the row count pyiceberg scanned, the snapshot's summary, and
whether each reader's rows equal the files' rows in order.
"""

import glob
import json
import os
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
from pyiceberg.table import StaticTable

import gcs_emulator


def duckdb_rows(metadata_file):
    """The table's rows through DuckDB, its extensions loaded from the
    installed wheels (never downloaded)."""
    connection = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    names = ("avro", "iceberg")
    if metadata_file.startswith("gs://"):
        names = ("httpfs",) + names
    for name in names:
        package = __import__(f"duckdb_extension_{name}")
        root = os.path.dirname(package.__file__)
        path = glob.glob(f"{root}/extensions/*/{name}.duckdb_extension")[0]
        connection.execute(f"LOAD '{path}'")
    if metadata_file.startswith("gs://"):
        gcs_emulator.configure_duckdb(connection)
    result = connection.execute(
        "SELECT * FROM iceberg_scan(?)", [metadata_file]).arrow()
    if hasattr(result, "read_all"):
        result = result.read_all()
    return result.to_pylist()


def main():
    table = StaticTable.from_metadata(sys.argv[1])
    scanned = table.scan().to_arrow()
    original = pa.concat_tables([pq.read_table(p) for p in sys.argv[2:]])
    files = [task.file.file_path for task in table.scan().plan_files()]
    print(json.dumps({
        "rows": scanned.num_rows,
        "equal": scanned.to_pylist() == original.to_pylist(),
        "duckdb_equal": duckdb_rows(sys.argv[1]) == original.to_pylist(),
        "columns": scanned.column_names,
        "files": files,
        "summary": table.current_snapshot().summary.additional_properties,
        "operation": table.current_snapshot().summary.operation.value,
    }, sort_keys=True, default=str))


if __name__ == "__main__":
    main()
