"""Parses an Iceberg metadata file with pyiceberg (which validates it
against the spec's model) and prints what it read as JSON.

Usage: read_table_metadata.py FILE
"""

import json
import sys

from pyiceberg.table.metadata import TableMetadataUtil


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        metadata = TableMetadataUtil.parse_raw(f.read())
    schema = metadata.schema()
    print(json.dumps({
        "format_version": metadata.format_version,
        "table_uuid": str(metadata.table_uuid),
        "location": metadata.location,
        "last_column_id": metadata.last_column_id,
        "current_schema_id": metadata.current_schema_id,
        "fields": [[f.field_id, f.name, str(f.field_type), f.required]
                   for f in schema.fields],
        "highest_field_id": schema.highest_field_id,
        "spec_fields": len(metadata.spec().fields),
        "last_partition_id": metadata.last_partition_id,
        "current_snapshot_id": metadata.current_snapshot_id,
        "main": (metadata.refs["main"].snapshot_id
                 if "main" in metadata.refs else None),
        "snapshots": [[s.snapshot_id, s.parent_snapshot_id, s.sequence_number,
                       s.manifest_list, s.summary.operation.value]
                      for s in metadata.snapshots],
        "snapshot_log": [[e.snapshot_id, e.timestamp_ms]
                         for e in metadata.snapshot_log],
        "metadata_log": [[e.metadata_file, e.timestamp_ms]
                         for e in metadata.metadata_log],
        "properties": metadata.properties,
    }, sort_keys=True))


if __name__ == "__main__":
    main()
