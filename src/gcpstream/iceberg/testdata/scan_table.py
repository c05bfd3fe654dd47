"""Reads an Iceberg table through pyiceberg, from its metadata file, and
compares its rows with the Parquet files it was made of (read by pyarrow).

Usage: scan_table.py METADATA_FILE PARQUET_FILE...
Prints JSON: the row count pyiceberg scanned, the snapshot's summary and
whether the rows equal the files' rows in order.
"""

import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq
from pyiceberg.table import StaticTable


def main():
    table = StaticTable.from_metadata(sys.argv[1])
    scanned = table.scan().to_arrow()
    original = pa.concat_tables([pq.read_table(p) for p in sys.argv[2:]])
    files = [task.file.file_path for task in table.scan().plan_files()]
    print(json.dumps({
        "rows": scanned.num_rows,
        "equal": scanned.to_pylist() == original.to_pylist(),
        "columns": scanned.column_names,
        "files": files,
        "summary": table.current_snapshot().summary.additional_properties,
        "operation": table.current_snapshot().summary.operation.value,
    }, sort_keys=True, default=str))


if __name__ == "__main__":
    main()
