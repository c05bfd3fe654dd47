"""Writes the Parquet files the footer tests read, and what pyarrow itself
reads back from their footers (expected.json), so the C++ reader is checked
against an independent implementation. No binary fixture is committed.

Usage: write_parquet_fixtures.py OUTPUT_DIR
"""

import datetime
import decimal
import json
import pathlib
import sys

import pyarrow as pa
import pyarrow.parquet as pq


def with_id(field, field_id):
    return field.with_metadata({b"PARQUET:field_id": str(field_id).encode()})


def flat_with_ids():
    schema = pa.schema([
        with_id(pa.field("id", pa.int32(), nullable=False), 1),
        with_id(pa.field("name", pa.string()), 2),
        with_id(pa.field("amount", pa.decimal128(10, 2)), 3),
        with_id(pa.field("at", pa.timestamp("us", tz="UTC")), 4),
        with_id(pa.field("local_at", pa.timestamp("ms")), 5),
        with_id(pa.field("day", pa.date32()), 6),
        with_id(pa.field("ratio", pa.float32()), 7),
        with_id(pa.field("score", pa.float64()), 8),
        with_id(pa.field("ok", pa.bool_()), 9),
        with_id(pa.field("blob", pa.binary()), 10),
        with_id(pa.field("code", pa.binary(4)), 11),
        with_id(pa.field("small", pa.int8()), 12),
        with_id(pa.field("count", pa.uint32()), 13),
        with_id(pa.field("noon", pa.time64("us")), 14),
    ])
    rows = 10
    data = {
        "id": list(range(rows)),
        "name": [None if i % 3 == 0 else f"n{i}" for i in range(rows)],
        "amount": [decimal.Decimal(i) / 4 for i in range(rows)],
        "at": [datetime.datetime(2026, 1, 1, i, tzinfo=datetime.timezone.utc)
               for i in range(rows)],
        "local_at": [datetime.datetime(2026, 1, 2, i) for i in range(rows)],
        "day": [datetime.date(2026, 1, 1 + i) for i in range(rows)],
        "ratio": [i / 2 for i in range(rows)],
        "score": [i * 1.5 for i in range(rows)],
        "ok": [i % 2 == 0 for i in range(rows)],
        "blob": [bytes([i]) for i in range(rows)],
        "code": [b"ab%02d" % i for i in range(rows)],
        "small": [i - 5 for i in range(rows)],
        "count": [i * 1000 for i in range(rows)],
        "noon": [datetime.time(12, i) for i in range(rows)],
    }
    return pa.table(data, schema=schema), {"row_group_size": 4}


def nested_without_ids():
    schema = pa.schema([
        pa.field("order", pa.struct([
            pa.field("id", pa.int64(), nullable=False),
            pa.field("note", pa.string()),
        ])),
        pa.field("tags", pa.list_(pa.int32())),
        pa.field("attrs", pa.map_(pa.string(), pa.int64())),
    ])
    data = {
        "order": [{"id": 1, "note": "a"}, {"id": 2, "note": None}, None],
        "tags": [[1, 2], [], None],
        "attrs": [[("k", 1)], [], None],
    }
    return pa.table(data, schema=schema), {}


def statistics_off():
    table = pa.table({"x": pa.array([1, None, 3], pa.int64())})
    return table, {"write_statistics": False}


def empty():
    table = pa.table({"x": pa.array([], pa.int64()),
                      "y": pa.array([], pa.string())})
    return table, {}


def nanos():
    table = pa.table({"t": pa.array([0, 1, 2], pa.timestamp("ns"))})
    return table, {"version": "2.6"}


FIXTURES = {
    "flat_with_ids": flat_with_ids,
    "nested_without_ids": nested_without_ids,
    "statistics_off": statistics_off,
    "empty": empty,
    "nanos": nanos,
}


def describe(path):
    """What pyarrow reads from the footer, in the C++ reader's terms."""
    metadata = pq.ParquetFile(path).metadata
    groups = []
    for g in range(metadata.num_row_groups):
        group = metadata.row_group(g)
        columns = []
        for c in range(group.num_columns):
            column = group.column(c)
            stats = column.statistics
            columns.append({
                "path": column.path_in_schema,
                "physical_type": column.physical_type,
                "num_values": column.num_values,
                "total_compressed_size": column.total_compressed_size,
                "null_count": (stats.null_count
                               if stats is not None and stats.has_null_count
                               else None),
                "has_min_max": bool(stats is not None and stats.has_min_max),
            })
        groups.append({"num_rows": group.num_rows, "columns": columns})
    return {
        "num_rows": metadata.num_rows,
        "created_by": metadata.created_by,
        "num_leaves": metadata.num_columns,
        "row_groups": groups,
    }


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    expected = {}
    for name, make in FIXTURES.items():
        table, options = make()
        path = out / f"{name}.parquet"
        pq.write_table(table, path, **options)
        expected[name] = describe(path)
    (out / "expected.json").write_text(json.dumps(expected, indent=1))


if __name__ == "__main__":
    main()
