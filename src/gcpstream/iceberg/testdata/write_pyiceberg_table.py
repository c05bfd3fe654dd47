"""Creates a table with pyiceberg itself (a SQLite catalog, two appends)
so the C++ manifest readers are checked on files another Iceberg writer
made (deflate-compressed Avro, its own field order and metadata).

Usage: write_pyiceberg_table.py OUTPUT_DIR
Prints JSON: the current manifest list, and each live data file's path and
record count, as pyiceberg reports them.
"""

import json
import pathlib
import shutil
import sys

import pyarrow as pa
from pyiceberg.catalog.sql import SqlCatalog


def main():
    out = pathlib.Path(sys.argv[1])
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    catalog = SqlCatalog("local", uri=f"sqlite:///{out}/catalog.db",
                         warehouse=f"file://{out}")
    catalog.create_namespace("db")
    data = pa.table({"id": pa.array([1, 2, 3], pa.int64()),
                     "name": ["a", "b", None]})
    table = catalog.create_table("db.events", schema=data.schema)
    table.append(data)
    table.append(pa.table({"id": pa.array([4], pa.int64()), "name": ["d"]}))
    table = catalog.load_table("db.events")
    files = [{"path": t.file.file_path, "record_count": t.file.record_count}
             for t in table.scan().plan_files()]
    print(json.dumps({
        "manifest_list": table.current_snapshot().manifest_list,
        "files": sorted(files, key=lambda f: f["path"]),
    }))


if __name__ == "__main__":
    main()
