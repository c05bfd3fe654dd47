#include "gcpstream/iceberg/parquet/parquet_footer.h"

#include <thrift/TConfiguration.h>
#include <thrift/Thrift.h>
#include <thrift/protocol/TCompactProtocol.h>
#include <thrift/transport/TBufferTransports.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <new>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gcpstream/iceberg/parquet/parquet_footer_types.h"

namespace gcpstream::iceberg {
namespace {

namespace wire = ::gcpstream::iceberg::parquet_thrift;

constexpr absl::string_view kMagic = "PAR1";
constexpr absl::string_view kEncryptedFooterMagic = "PARE";
// Leading magic, then the trailer: footer length (4 bytes) and magic.
constexpr int64_t kTrailerBytes = 8;
constexpr int64_t kMinFileBytes = 4 + kTrailerBytes;

absl::Status Corrupt(absl::string_view what) {
  return absl::DataLossError(absl::StrCat("corrupt Parquet footer: ", what));
}

// Thrift's messages may end in the offending byte, unprintable as it is.
absl::Status Undecodable(absl::string_view what) {
  std::string printable;
  for (const char c : what) {
    if (absl::ascii_isprint(static_cast<unsigned char>(c))) {
      printable.push_back(c);
    } else {
      absl::StrAppend(
          &printable, "\\x",
          absl::Hex(static_cast<unsigned char>(c), absl::kZeroPad2));
    }
  }
  return Corrupt(absl::StrCat(
      "expected a Thrift compact-encoded FileMetaData, could not decode it (",
      printable, ")"));
}

absl::Status Prefixed(const std::string& path, const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat(path, ": ", status.message()));
}

absl::StatusOr<wire::FileMetaData> Deserialize(absl::string_view metadata) {
  if (static_cast<int64_t>(metadata.size()) > kMaxParquetFooterBytes) {
    return Corrupt(absl::StrCat("footer of ", metadata.size(),
                                " bytes, over the reader's limit of ",
                                kMaxParquetFooterBytes));
  }
  const auto size = static_cast<int32_t>(metadata.size());
  // A corrupt length prefix may claim any size: no string or list may be
  // longer than the footer holding it, and nesting is bounded.
  const int recursion_limit =
      apache::thrift::TConfiguration::DEFAULT_RECURSION_DEPTH;
  auto config = std::make_shared<apache::thrift::TConfiguration>(
      std::max(size, 1), std::max(size, 1), recursion_limit);
  auto buffer = std::make_shared<apache::thrift::transport::TMemoryBuffer>(
      // OBSERVE never writes through the pointer.
      reinterpret_cast<uint8_t*>(const_cast<char*>(metadata.data())),
      static_cast<uint32_t>(size),
      apache::thrift::transport::TMemoryBuffer::OBSERVE, config);
  apache::thrift::protocol::TCompactProtocolT<
      apache::thrift::transport::TMemoryBuffer>
      protocol(buffer, size, size);
  wire::FileMetaData decoded;
  try {
    decoded.read(&protocol);
  } catch (const apache::thrift::TException& error) {
    return Undecodable(error.what());
  } catch (const std::length_error& error) {
    return Undecodable(error.what());
  } catch (const std::bad_alloc&) {
    // Counts are bounded by the footer's size, but a large corrupt footer
    // can still ask for more memory than there is.
    return absl::ResourceExhaustedError(absl::StrCat(
        "the Parquet footer (", metadata.size(),
        " bytes) asks for more memory than is available; it is corrupt or "
        "too large"));
  }
  return decoded;
}

absl::StatusOr<ParquetPhysicalType> PhysicalType(int32_t value) {
  if (value < 0 ||
      value > static_cast<int32_t>(ParquetPhysicalType::kFixedLenByteArray)) {
    return Corrupt(absl::StrCat("unknown physical type ", value));
  }
  return static_cast<ParquetPhysicalType>(value);
}

ParquetTimeUnit TimeUnitOf(const wire::TimeUnit& unit) {
  if (unit.__isset.NANOS) return ParquetTimeUnit::kNanos;
  if (unit.__isset.MICROS) return ParquetTimeUnit::kMicros;
  return ParquetTimeUnit::kMillis;
}

ParquetLogicalType LogicalTypeOf(const wire::LogicalType& in) {
  using Kind = ParquetLogicalType::Kind;
  ParquetLogicalType out;
  const auto& set = in.__isset;
  if (set.STRING) {
    out.kind = Kind::kString;
  } else if (set.MAP) {
    out.kind = Kind::kMap;
  } else if (set.LIST) {
    out.kind = Kind::kList;
  } else if (set.ENUM) {
    out.kind = Kind::kEnum;
  } else if (set.DECIMAL) {
    out.kind = Kind::kDecimal;
    out.scale = in.DECIMAL.scale;
    out.precision = in.DECIMAL.precision;
  } else if (set.DATE) {
    out.kind = Kind::kDate;
  } else if (set.TIME) {
    out.kind = Kind::kTime;
    out.adjusted_to_utc = in.TIME.isAdjustedToUTC;
    out.unit = TimeUnitOf(in.TIME.unit);
  } else if (set.TIMESTAMP) {
    out.kind = Kind::kTimestamp;
    out.adjusted_to_utc = in.TIMESTAMP.isAdjustedToUTC;
    out.unit = TimeUnitOf(in.TIMESTAMP.unit);
  } else if (set.INTEGER) {
    out.kind = Kind::kInteger;
    out.bit_width = static_cast<unsigned char>(in.INTEGER.bitWidth);
    out.is_signed = in.INTEGER.isSigned;
  } else if (set.UNKNOWN) {
    out.kind = Kind::kUnknown;
  } else if (set.JSON) {
    out.kind = Kind::kJson;
  } else if (set.BSON) {
    out.kind = Kind::kBson;
  } else if (set.UUID) {
    out.kind = Kind::kUuid;
  } else if (set.FLOAT16) {
    out.kind = Kind::kFloat16;
  } else if (set.VARIANT) {
    out.kind = Kind::kVariant;
  } else if (set.GEOMETRY) {
    out.kind = Kind::kGeometry;
  } else if (set.GEOGRAPHY) {
    out.kind = Kind::kGeography;
  } else {
    out.kind = Kind::kUnrecognized;
  }
  return out;
}

absl::StatusOr<ParquetSchemaElement> SchemaElementOf(
    const wire::SchemaElement& in, bool is_root) {
  ParquetSchemaElement out;
  if (!in.__isset.name) return Corrupt("a schema element has no name");
  out.name = in.name;
  const std::string where = absl::StrCat("schema element '", out.name, "'");
  out.is_group = in.__isset.num_children;
  if (out.is_group) {
    if (in.num_children < 0) {
      return Corrupt(
          absl::StrCat(where, " has ", in.num_children, " children"));
    }
    out.num_children = in.num_children;
  } else if (!in.__isset.type) {
    return Corrupt(absl::StrCat(where, " has neither a type nor children"));
  } else {
    absl::StatusOr<ParquetPhysicalType> type = PhysicalType(in.type);
    if (!type.ok()) return type.status();
    out.type = *type;
  }
  if (is_root && !out.is_group) {
    return Corrupt("the schema's root is not a group");
  }
  if (in.__isset.repetition_type) {
    if (in.repetition_type < 0 ||
        in.repetition_type >
            static_cast<int32_t>(ParquetRepetition::kRepeated)) {
      return Corrupt(absl::StrCat(where, " has repetition ", in.repetition_type,
                                  " (VECTOR or newer is not supported)"));
    }
    out.repetition = static_cast<ParquetRepetition>(in.repetition_type);
  } else if (!is_root) {
    return Corrupt(absl::StrCat(where, " has no repetition"));
  }
  if (in.__isset.type_length) out.type_length = in.type_length;
  if (in.__isset.converted_type) {
    out.converted_type = static_cast<ParquetConvertedType>(in.converted_type);
  }
  if (in.__isset.scale) out.scale = in.scale;
  if (in.__isset.precision) out.precision = in.precision;
  if (in.__isset.field_id) out.field_id = in.field_id;
  if (in.__isset.logicalType) out.logical_type = LogicalTypeOf(in.logicalType);
  return out;
}

// Checks the depth-first list forms one tree and collects each leaf's path
// (the names below the root) in order.
absl::Status CollectLeafPaths(const std::vector<ParquetSchemaElement>& schema,
                              std::vector<std::vector<std::string>>& leaves,
                              std::vector<size_t>& leaf_elements) {
  struct Open {
    int32_t remaining;
  };
  std::vector<Open> open;
  std::vector<std::string> path;
  open.push_back({schema[0].num_children});
  for (size_t i = 1; i < schema.size(); ++i) {
    while (!open.empty() && open.back().remaining == 0) {
      open.pop_back();
      if (!path.empty()) path.pop_back();
    }
    if (open.empty()) {
      return Corrupt(absl::StrCat("the schema lists ", schema.size() - i,
                                  " elements beyond its root's tree"));
    }
    --open.back().remaining;
    const ParquetSchemaElement& element = schema[i];
    if (element.is_group) {
      path.push_back(element.name);
      open.push_back({element.num_children});
    } else {
      std::vector<std::string> leaf = path;
      leaf.push_back(element.name);
      leaves.push_back(std::move(leaf));
      leaf_elements.push_back(i);
    }
  }
  for (const Open& group : open) {
    if (group.remaining != 0) {
      return Corrupt(
          "the schema ends before every group's children are listed");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<ParquetColumnChunk> ColumnChunkOf(
    const wire::ColumnChunk& in, const std::vector<std::string>& leaf,
    ParquetPhysicalType leaf_type, size_t row_group) {
  const std::string where = absl::StrCat("row group ", row_group, ", column '",
                                         absl::StrJoin(leaf, "."), "'");
  if (in.__isset.crypto_metadata || in.__isset.encrypted_column_metadata) {
    return absl::UnimplementedError(absl::StrCat(
        where, " is encrypted; encrypted Parquet columns are not supported"));
  }
  if (in.__isset.file_path && !in.file_path.empty()) {
    return absl::UnimplementedError(
        absl::StrCat(where, " stores its data in another file ('", in.file_path,
                     "'); such summary files are not supported"));
  }
  if (!in.__isset.meta_data) {
    return Corrupt(absl::StrCat(where, " has no metadata"));
  }
  const wire::ColumnMetaData& meta = in.meta_data;
  ParquetColumnChunk out;
  out.path = meta.path_in_schema;
  if (out.path != leaf) {
    return Corrupt(absl::StrCat(where, " names the path '",
                                absl::StrJoin(out.path, "."),
                                "', not its schema leaf"));
  }
  absl::StatusOr<ParquetPhysicalType> type = PhysicalType(meta.type);
  if (!type.ok()) return type.status();
  if (!meta.__isset.type || *type != leaf_type) {
    return Corrupt(absl::StrCat(where, " has a type other than its leaf's"));
  }
  out.type = *type;
  out.num_values = meta.num_values;
  out.total_compressed_size = meta.total_compressed_size;
  out.total_uncompressed_size = meta.total_uncompressed_size;
  if (out.num_values < 0 || out.total_compressed_size < 0 ||
      out.total_uncompressed_size < 0) {
    return Corrupt(absl::StrCat(where, " has a negative count or size"));
  }
  if (meta.__isset.statistics) {
    const wire::Statistics& in_stats = meta.statistics;
    ParquetStatistics stats;
    if (in_stats.__isset.null_count) {
      if (in_stats.null_count < 0) {
        return Corrupt(absl::StrCat(where, " has a negative null count"));
      }
      stats.null_count = in_stats.null_count;
    }
    if (in_stats.__isset.min_value) stats.min_value = in_stats.min_value;
    if (in_stats.__isset.max_value) stats.max_value = in_stats.max_value;
    if (in_stats.__isset.min) stats.legacy_min = in_stats.min;
    if (in_stats.__isset.max) stats.legacy_max = in_stats.max;
    out.statistics = std::move(stats);
  }
  return out;
}

}  // namespace

absl::StatusOr<ParquetFooter> DecodeParquetFooter(absl::string_view metadata) {
  absl::StatusOr<wire::FileMetaData> decoded = Deserialize(metadata);
  if (!decoded.ok()) return decoded.status();
  const wire::FileMetaData& in = *decoded;
  if (in.__isset.encryption_algorithm) {
    return absl::UnimplementedError(
        "the file's columns are encrypted (plaintext footer with an "
        "encryption algorithm); encrypted Parquet files are not supported");
  }
  if (!in.__isset.schema || in.schema.empty()) {
    return Corrupt("it has no schema");
  }
  if (!in.__isset.row_groups || !in.__isset.num_rows) {
    return Corrupt("it has no row groups or no row count");
  }
  ParquetFooter out;
  out.version = in.version;
  out.num_rows = in.num_rows;
  out.footer_bytes = static_cast<int64_t>(metadata.size());
  if (in.__isset.created_by) out.created_by = in.created_by;
  for (const wire::KeyValue& entry : in.key_value_metadata) {
    out.key_value_metadata.emplace_back(entry.key, entry.value);
  }
  out.schema.reserve(in.schema.size());
  for (size_t i = 0; i < in.schema.size(); ++i) {
    absl::StatusOr<ParquetSchemaElement> element =
        SchemaElementOf(in.schema[i], i == 0);
    if (!element.ok()) return element.status();
    out.schema.push_back(*std::move(element));
  }
  std::vector<std::vector<std::string>> leaves;
  std::vector<size_t> leaf_elements;
  if (absl::Status tree = CollectLeafPaths(out.schema, leaves, leaf_elements);
      !tree.ok()) {
    return tree;
  }
  int64_t rows = 0;
  out.row_groups.reserve(in.row_groups.size());
  for (size_t g = 0; g < in.row_groups.size(); ++g) {
    const wire::RowGroup& group = in.row_groups[g];
    if (group.num_rows < 0) {
      return Corrupt(
          absl::StrCat("row group ", g, " has ", group.num_rows, " rows"));
    }
    if (group.columns.size() != leaves.size()) {
      return Corrupt(absl::StrCat("row group ", g, " has ",
                                  group.columns.size(), " column chunks for ",
                                  leaves.size(), " schema leaves"));
    }
    ParquetRowGroup row_group;
    row_group.num_rows = group.num_rows;
    row_group.total_byte_size = group.total_byte_size;
    row_group.columns.reserve(leaves.size());
    for (size_t c = 0; c < leaves.size(); ++c) {
      absl::StatusOr<ParquetColumnChunk> chunk = ColumnChunkOf(
          group.columns[c], leaves[c], *out.schema[leaf_elements[c]].type, g);
      if (!chunk.ok()) return chunk.status();
      row_group.columns.push_back(*std::move(chunk));
    }
    rows += group.num_rows;
    out.row_groups.push_back(std::move(row_group));
  }
  if (rows != out.num_rows) {
    return Corrupt(absl::StrCat("its row groups hold ", rows,
                                " rows, the file says ", out.num_rows));
  }
  return out;
}

absl::StatusOr<ParquetFooter> ReadParquetFooter(FileIO& io,
                                                const std::string& path) {
  absl::StatusOr<int64_t> size = io.Size(path);
  if (!size.ok()) return size.status();
  if (*size < kMinFileBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": not a Parquet file: ", *size, " bytes, fewer than the ",
        kMinFileBytes, " of the magic numbers and footer length alone"));
  }
  absl::StatusOr<std::string> trailer =
      io.Read(path, *size - kTrailerBytes, kTrailerBytes);
  if (!trailer.ok()) return trailer.status();
  const absl::string_view magic = absl::string_view(*trailer).substr(4);
  if (magic == kEncryptedFooterMagic) {
    return absl::UnimplementedError(absl::StrCat(
        path,
        ": the footer is encrypted (the file ends in PARE); encrypted "
        "Parquet files are not supported"));
  }
  if (magic != kMagic) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": not a Parquet file: it does not end in the PAR1 magic"));
  }
  const auto* length_bytes =
      reinterpret_cast<const unsigned char*>(trailer->data());
  const int64_t length = static_cast<int64_t>(length_bytes[0]) |
                         static_cast<int64_t>(length_bytes[1]) << 8 |
                         static_cast<int64_t>(length_bytes[2]) << 16 |
                         static_cast<int64_t>(length_bytes[3]) << 24;
  if (length == 0 || length > *size - kMinFileBytes) {
    return Prefixed(
        path, Corrupt(absl::StrCat("the trailer gives a footer of ", length,
                                   " bytes in a file of ", *size)));
  }
  if (length > kMaxParquetFooterBytes) {
    return Prefixed(
        path, Corrupt(absl::StrCat("the trailer gives a footer of ", length,
                                   " bytes, over the reader's limit of ",
                                   kMaxParquetFooterBytes)));
  }
  absl::StatusOr<std::string> metadata =
      io.Read(path, *size - kTrailerBytes - length, length);
  if (!metadata.ok()) return metadata.status();
  absl::StatusOr<ParquetFooter> footer = DecodeParquetFooter(*metadata);
  if (!footer.ok()) return Prefixed(path, footer.status());
  return footer;
}

}  // namespace gcpstream::iceberg
