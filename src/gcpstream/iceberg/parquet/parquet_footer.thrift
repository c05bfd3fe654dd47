// The part of a Parquet file's footer (FileMetaData, Thrift compact protocol)
// that add-files reads. Field ids and wire types follow the Parquet format
// specification; a decoder skips every field not declared here, so this
// subset reads footers written with any newer format version.
//
// Enumerations are declared as i32 and interpreted in parquet_footer.cc, so a
// value added by a later format version is reported by name of its number
// instead of being misread.

namespace cpp gcpstream.iceberg.parquet_thrift

// For annotations whose content add-files does not need: only presence.
struct Marker {}

struct Statistics {
  1: optional binary max
  2: optional binary min
  3: optional i64 null_count
  4: optional i64 distinct_count
  5: optional binary max_value
  6: optional binary min_value
}

struct DecimalType {
  1: optional i32 scale
  2: optional i32 precision
}

union TimeUnit {
  1: Marker MILLIS
  2: Marker MICROS
  3: Marker NANOS
}

struct TimestampType {
  1: optional bool isAdjustedToUTC
  2: optional TimeUnit unit
}

struct TimeType {
  1: optional bool isAdjustedToUTC
  2: optional TimeUnit unit
}

struct IntType {
  1: optional i8 bitWidth
  2: optional bool isSigned
}

union LogicalType {
  1: Marker STRING
  2: Marker MAP
  3: Marker LIST
  4: Marker ENUM
  5: DecimalType DECIMAL
  6: Marker DATE
  7: TimeType TIME
  8: TimestampType TIMESTAMP
  10: IntType INTEGER
  11: Marker UNKNOWN
  12: Marker JSON
  13: Marker BSON
  14: Marker UUID
  15: Marker FLOAT16
  16: Marker VARIANT
  17: Marker GEOMETRY
  18: Marker GEOGRAPHY
}

struct SchemaElement {
  1: optional i32 type
  2: optional i32 type_length
  3: optional i32 repetition_type
  4: optional string name
  5: optional i32 num_children
  6: optional i32 converted_type
  7: optional i32 scale
  8: optional i32 precision
  9: optional i32 field_id
  10: optional LogicalType logicalType
}

struct ColumnMetaData {
  1: optional i32 type
  3: optional list<string> path_in_schema
  4: optional i32 codec
  5: optional i64 num_values
  6: optional i64 total_uncompressed_size
  7: optional i64 total_compressed_size
  12: optional Statistics statistics
}

struct ColumnChunk {
  1: optional string file_path
  3: optional ColumnMetaData meta_data
  8: optional Marker crypto_metadata
  9: optional binary encrypted_column_metadata
}

struct RowGroup {
  1: optional list<ColumnChunk> columns
  2: optional i64 total_byte_size
  3: optional i64 num_rows
}

struct KeyValue {
  1: optional string key
  2: optional string value
}

struct FileMetaData {
  1: optional i32 version
  2: optional list<SchemaElement> schema
  3: optional i64 num_rows
  4: optional list<RowGroup> row_groups
  5: optional list<KeyValue> key_value_metadata
  6: optional string created_by
  8: optional Marker encryption_algorithm
}
