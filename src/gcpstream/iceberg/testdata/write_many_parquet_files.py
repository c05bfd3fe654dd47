"""Writes COUNT small Parquet files part-NNN.parquet (id long, v string;
every fifth also has `note`, so a window evolves the schema) and a listing
of their paths, for the add-files crash test.

Usage: write_many_parquet_files.py OUTPUT_DIR COUNT
"""

import pathlib
import sys

import pyarrow as pa
import pyarrow.parquet as pq


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(int(sys.argv[2])):
        data = {"id": pa.array([i * 10 + r for r in range(10)], pa.int64()),
                "v": [f"row {i}.{r}" for r in range(10)]}
        if i % 5 == 0:
            data["note"] = [f"note {i}"] * 10
        path = out / f"part-{i:03d}.parquet"
        pq.write_table(pa.table(data), path)
        paths.append(str(path))
    (out / "listing.txt").write_text("\n".join(paths) + "\n")


if __name__ == "__main__":
    main()
