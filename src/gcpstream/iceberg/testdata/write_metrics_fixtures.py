"""Writes the Parquet files the footer-metrics tests read, and what
pyiceberg's own footer statistics make of the mixed one (expected.json),
so the C++ metrics are checked against an independent implementation.

Usage: write_metrics_fixtures.py OUTPUT_DIR
"""

import datetime
import decimal
import json
import pathlib
import sys

import pyarrow as pa
import pyarrow.parquet as pq
from pyiceberg.io.pyarrow import (
    _pyarrow_to_schema_without_ids, compute_statistics_plan,
    data_file_statistics_from_parquet_metadata, parquet_path_to_id_mapping)
from pyiceberg.schema import assign_fresh_schema_ids


def mixed():
    """Every common type, nulls, two row groups."""
    rows = 8
    return pa.table({
        "small": pa.array([None if i == 3 else i - 4 for i in range(rows)],
                          pa.int32()),
        "big": pa.array([i * 10**12 for i in range(rows)], pa.int64()),
        "ratio": pa.array([i / 3 - 1 for i in range(rows)], pa.float64()),
        "name": [None if i % 3 == 0 else f"name-{i}" for i in range(rows)],
        "day": [datetime.date(2026, 1, 1 + i) for i in range(rows)],
        "at": pa.array([datetime.datetime(2026, 1, 1, i,
                                          tzinfo=datetime.timezone.utc)
                        for i in range(rows)], pa.timestamp("us", "UTC")),
        "amount": pa.array([decimal.Decimal(i * 125 - 300) / 100
                            for i in range(rows)], pa.decimal128(10, 2)),
        "ok": [i % 2 == 0 for i in range(rows)],
        "blob": [bytes([i, 255 - i]) for i in range(rows)],
    })


def units():
    """Times and timestamps in units other than Iceberg's micros."""
    return pa.table({
        "ts_ms": pa.array([1_700_000_000_123, 1_700_000_000_999],
                          pa.timestamp("ms")),
        "ts_ns": pa.array([-1_500, 1_700_000_000_123_456_789],
                          pa.timestamp("ns")),
        "t_ms": pa.array([1_000, 86_399_999], pa.time32("ms")),
        "far": pa.array([datetime.datetime(9999, 12, 31),
                         datetime.datetime(2000, 1, 1)], pa.timestamp("ms")),
    })


def unsigned(values):
    return lambda: pa.table({"u": pa.array(values, pa.uint32())})


def long_strings():
    return pa.table({"s": ["a" * 20 + "z", "b" * 3],
                     "cjk": ["\u4e00" * 17, "\u4e00"]})


def nested():
    return pa.table({
        "id": pa.array([1, 2], pa.int64()),
        "tags": pa.array([["x", "y"], []], pa.list_(pa.string())),
    })


def wide():
    return pa.table({f"c{i:03d}": [i] for i in range(101)})


FIXTURES = {
    "mixed": (mixed, {"row_group_size": 5}),
    "units": (units, {"coerce_timestamps": None,
                      "allow_truncated_timestamps": False}),
    "uint_small": (unsigned([1, 2_147_483_647]), {}),
    "uint_big": (unsigned([1, 2_147_483_648]), {}),
    "long_strings": (long_strings, {}),
    "no_stats": (mixed, {"write_statistics": False}),
    "int96": (lambda: pa.table({"at": pa.array([1, 2], pa.timestamp("us"))}),
              {"use_deprecated_int96_timestamps": True}),
    "nested": (nested, {}),
    "wide": (wide, {}),
}


def pyiceberg_statistics(path):
    """pyiceberg's footer statistics, with ids 1..n as a table created from
    the file would assign them."""
    metadata = pq.read_metadata(path)
    schema = assign_fresh_schema_ids(
        _pyarrow_to_schema_without_ids(metadata.schema.to_arrow_schema()))
    stats = data_file_statistics_from_parquet_metadata(
        parquet_metadata=metadata,
        stats_columns=compute_statistics_plan(schema, {}),
        parquet_column_mapping=parquet_path_to_id_mapping(schema))
    serialized = stats.to_serialized_dict()
    return {
        "ids": {f.name: f.field_id for f in schema.fields},
        "value_counts": serialized["value_counts"],
        "null_value_counts": serialized["null_value_counts"],
        "lower_bounds": {k: v.hex()
                         for k, v in serialized["lower_bounds"].items()},
        "upper_bounds": {k: v.hex()
                         for k, v in serialized["upper_bounds"].items()},
    }


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for name, (make, options) in FIXTURES.items():
        pq.write_table(make(), out / f"{name}.parquet", **options)
    (out / "expected.json").write_text(
        json.dumps(pyiceberg_statistics(out / "mixed.parquet")))


if __name__ == "__main__":
    main()
