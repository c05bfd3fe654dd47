"""After a crash: is the table at TABLE_DIR (filesystem catalog layout)
readable, and which data files does it hold? Reads the highest
vN.metadata.json with pyiceberg, scans every row, and counts files
registered more than once.

Usage: check_crashed_table.py TABLE_DIR
Prints JSON: exists, files (sorted), duplicates, rows, error (if a read
failed).
"""

import json
import pathlib
import re
import sys

from pyiceberg.table import StaticTable


def main():
    metadata = pathlib.Path(sys.argv[1]) / "metadata"
    versions = sorted(
        (int(m.group(1)), p) for p in metadata.glob("v*.metadata.json")
        if (m := re.fullmatch(r"v(\d+)\.metadata\.json", p.name)))
    if not versions:
        print(json.dumps({"exists": False, "files": [], "duplicates": 0,
                          "rows": 0}))
        return
    try:
        table = StaticTable.from_metadata(str(versions[-1][1]))
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
