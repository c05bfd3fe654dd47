"""Writes the Parquet files the add-files end-to-end tests register: one
per situation (a new column, nulls in a required column, a wider type,
nested columns, field ids that contradict the table, no statistics, a
corrupt file). No binary fixture is committed.

Usage: write_add_files_fixtures.py OUTPUT_DIR
"""

import datetime
import pathlib
import sys

import pyarrow as pa
import pyarrow.parquet as pq


def with_id(field, field_id):
    return field.with_metadata({b"PARQUET:field_id": str(field_id).encode()})


def orders(ids, amount_type=pa.int32(), id_nullable=False, **extra):
    """Orders with `id`, `amount` and the `extra` string columns."""
    fields = [pa.field("id", pa.int64(), nullable=id_nullable),
              pa.field("amount", amount_type)]
    data = {"id": ids, "amount": [None if i is None else (i or 0) * 10
                                  for i in ids]}
    if amount_type == pa.string():
        data["amount"] = [str(v) for v in data["amount"]]
    for name, values in extra.items():
        fields.append(pa.field(name, pa.string()))
        data[name] = values
    return pa.table(data, schema=pa.schema(fields))


def events(day, kinds, hours=(1, 2)):
    """Events of one or more days (`day` a list) and the given kinds."""
    days = day if isinstance(day, list) else [day]
    rows = [(d, h) for d in days for h in hours]
    return pa.table({
        "id": pa.array(range(len(rows)), pa.int64()),
        "kind": pa.array([kinds[i % len(kinds)] for i in range(len(rows))],
                         pa.string()),
        "at": pa.array([datetime.datetime(2026, 1, d, h,
                                          tzinfo=datetime.timezone.utc)
                        for d, h in rows], pa.timestamp("us", "UTC")),
    })


FIXTURES = {
    # The table's first file: id required, amount int, name.
    "orders_a": lambda: (orders([1, 2, 3], name=["a", None, "c"]), {}),
    # Another first-kind file, with a null name.
    "orders_c": lambda: (orders([20, 21], name=[None, "q"]), {}),
    # A new column (email); id optional in the file but free of nulls.
    "orders_b": lambda: (orders([4, 5, 6], id_nullable=True,
                                email=["d@x", None, "f@x"]), {}),
    # Nulls in id, which the table holds required.
    "orders_id_nulls": lambda: (orders([7, None, 9], id_nullable=True,
                                       name=["g", "h", "i"]), {}),
    # amount as long: a promotion of int.
    "orders_amount_long": lambda: (orders([10, 11], pa.int64(),
                                          name=["j", "k"]), {}),
    # amount as string: no promotion reaches it.
    "orders_amount_string": lambda: (orders([12, 13], pa.string(),
                                            name=["l", "m"]), {}),
    # No statistics: nothing proves name free of nulls (id is required
    # in the file's schema, which proves itself).
    "orders_no_stats": lambda: (orders([14, 15], name=["n", "o"]),
                                {"write_statistics": False}),
    # Field ids that swap the table's id (1) and amount (2).
    "orders_swapped_ids": lambda: (pa.table(
        {"id": [16], "amount": [160]},
        schema=pa.schema([with_id(pa.field("id", pa.int64(), False), 2),
                          with_id(pa.field("amount", pa.int32()), 1)])), {}),
    # The table's own field ids.
    "orders_own_ids": lambda: (pa.table(
        {"id": [17], "amount": [170]},
        schema=pa.schema([with_id(pa.field("id", pa.int64(), False), 1),
                          with_id(pa.field("amount", pa.int32()), 2)])), {}),
    # Nested columns: a struct, a list and a map.
    "nested": lambda: (pa.table({
        "id": pa.array([1, 2], pa.int64()),
        "address": pa.array([{"city": "Oslo", "zip": "0150"},
                             {"city": "Rome", "zip": None}],
                            pa.struct([("city", pa.string()),
                                       ("zip", pa.string())])),
        "tags": pa.array([["x", "y"], []], pa.list_(pa.string())),
        "attrs": pa.array([[("k", 1)], [("k", 2), ("l", 3)]],
                          pa.map_(pa.string(), pa.int32())),
    }), {}),
    # Partitioned by day(at) and kind: one partition each, two days, and
    # a file whose kind is all null.
    "events_day1_a": lambda: (events(1, ["a"]), {}),
    "events_day2_b": lambda: (events(2, ["b"]), {}),
    "events_two_days": lambda: (events([1, 2], ["a"]), {}),
    "events_null_kind": lambda: (events(3, [None]), {}),
    "events_some_null_kind": lambda: (events(3, ["a", None]), {}),
    "by_path/at_day=2026-01-04/kind=c/events": lambda: (events(4, ["c"]), {}),
    # Nanosecond timestamps, as pandas writes them by default.
    "events_ns": lambda: (pa.table({
        "id": pa.array([1], pa.int64()),
        "at": pa.array([datetime.datetime(2026, 1, 1, 1)],
                       pa.timestamp("ns", "UTC")),
    }), {"version": "2.6"}),
    # Two files of one schema (code declared optional): one with a null in
    # code, one without.
    "codes_with_null": lambda: (pa.table({
        "id": pa.array([1, 2], pa.int64()),
        "code": pa.array(["a", None], pa.string())}), {}),
    "codes_without_null": lambda: (pa.table({
        "id": pa.array([3, 4], pa.int64()),
        "code": pa.array(["b", "c"], pa.string())}), {}),
}


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for name, make in FIXTURES.items():
        table, options = make()
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, out / f"{name}.parquet", **options)
    (out / "corrupt.parquet").write_bytes(b"PAR1" + b"\x00" * 64 + b"PAR1")
    (out / "notes.txt").write_text("not a data file\n")
    # Spark names its output directories *.parquet.
    spark = out / "spark_output.parquet"
    spark.mkdir(exist_ok=True)
    pq.write_table(FIXTURES["orders_a"]()[0], spark / "part-00000.parquet")


if __name__ == "__main__":
    main()
