"""After a crash: is the table at TABLE_DIR (filesystem catalog layout)
readable, and which data files does it hold? Reads the highest
vN.metadata.json with pyiceberg, scans every row, and counts files
registered more than once.

Usage: check_crashed_table.py TABLE_DIR (a directory, or gs://... on the
emulator: gcs_emulator.py)
Prints JSON: exists, files (sorted), duplicates, rows, error (if a read
failed).
"""

import json
import pathlib
import re
import sys

import pyarrow.fs
from pyiceberg.table import StaticTable

import gcs_emulator


def metadata_versions(table_dir):
    """(version, metadata file) of every vN.metadata.json, local or gs://."""
    if table_dir.startswith("gs://"):
        fs = gcs_emulator.filesystem()
        selector = pyarrow.fs.FileSelector(
            table_dir[len("gs://"):] + "/metadata", allow_not_found=True)
        names = [(info.base_name, "gs://" + info.path)
                 for info in fs.get_file_info(selector)]
    else:
        names = [(p.name, str(p))
                 for p in (pathlib.Path(table_dir) / "metadata").glob("*")]
    return sorted(
        (int(m.group(1)), path) for name, path in names
        if (m := re.fullmatch(r"v(\d+)\.metadata\.json", name)))


def main():
    versions = metadata_versions(sys.argv[1])
    if not versions:
        print(json.dumps({"exists": False, "files": [], "duplicates": 0,
                          "rows": 0}))
        return
    try:
        table = StaticTable.from_metadata(
            versions[-1][1], properties=gcs_emulator.pyiceberg_properties())
        files = [t.file.file_path for t in table.scan().plan_files()]
        rows = table.scan().to_arrow().num_rows if files else 0
        print(json.dumps({"exists": True, "files": sorted(set(files)),
                          "duplicates": len(files) - len(set(files)),
                          "rows": rows}))
    except Exception as error:  # noqa: BLE001 - reported to the test
        print(json.dumps({"exists": True, "files": [], "duplicates": 0,
                          "rows": 0, "error": f"{type(error).__name__}: "
                                              f"{error}"}))


if __name__ == "__main__":
    main()
