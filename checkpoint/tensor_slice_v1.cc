#include "checkpoint/tensor_slice_v1.h"

#include <glob.h>

#include <algorithm>
#include <complex>
#include <cstring>
#include <limits>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"
#include "checkpoint/internal/file.h"
#include "checkpoint/table.h"
#include "checkpoint/tensor_bundle.h"
#include "graph/types.h"
#include "proto/saved_tensor_slice.pb.h"

namespace dfx {

namespace ci = checkpoint_internal;

namespace {

// The format version TensorFlow writes (TF_CHECKPOINT_VERSION) and the
// oldest producer it reads (TF_CHECKPOINT_VERSION_MIN_PRODUCER).
constexpr int kCheckpointVersion = 1;
constexpr int kCheckpointMinProducer = 0;

// TensorFlow's bound on one serialized slice (kMaxMessageBytes) and the
// slack it adds for the proto's own bytes.
constexpr uint64_t kMaxMessageBytes = uint64_t{1} << 31;
constexpr uint64_t kTensorProtoHeaderBytes = 1 << 10;

// --- Ordered code (the key encoding TensorFlow's OrderedCode defines). ---

// Unsigned: a length byte, then the big-endian bytes without leading zeros.
void AppendNumIncreasing(std::string* out, uint64_t value) {
  unsigned char bytes[8];
  int n = 0;
  for (uint64_t v = value; v != 0; v >>= 8) bytes[n++] = v & 0xff;
  out->push_back(static_cast<char>(n));
  for (int i = n - 1; i >= 0; --i) out->push_back(static_cast<char>(bytes[i]));
}

// 0x00 and 0xff escaped (0x00 0xff, 0xff 0x00), then the terminator 0x00
// 0x01, so that encoded strings sort as the strings do.
void AppendOrderedString(std::string* out, absl::string_view s) {
  for (char c : s) {
    out->push_back(c);
    if (c == '\0') out->push_back('\xff');
    if (c == '\xff') out->push_back('\0');
  }
  out->append("\0\x01", 2);
}

// Signed: n bytes hold a number in [-2^(7n-1), 2^(7n-1)) as two's
// complement, whose first n bits are flipped: the sign bit (1 for
// non-negative), n-1 length bits, and a delimiter bit left as it was.
void AppendSignedNumIncreasing(std::string* out, int64_t value) {
  const uint64_t magnitude =
      value < 0 ? ~static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  int bits = 0;
  while (bits < 64 && (magnitude >> bits) != 0) ++bits;
  const int len = (bits + 1 + 6) / 7;  // ceil((bits + 1) / 7), 1..10
  unsigned char buf[10];
  const unsigned char sign = value < 0 ? 0xff : 0x00;
  buf[0] = buf[1] = sign;
  for (int i = 0; i < 8; ++i) {
    buf[2 + i] = static_cast<unsigned char>(static_cast<uint64_t>(value) >>
                                            (56 - 8 * i));
  }
  unsigned char* begin = buf + 10 - len;
  for (int bit = 0; bit < len; ++bit) {
    begin[bit / 8] ^= static_cast<unsigned char>(0x80 >> (bit % 8));
  }
  out->append(reinterpret_cast<const char*>(begin), len);
}

// --- Slices. ---

// The slice's extent in dimension d of `shape`, full extents resolved.
int64_t Start(const TensorSliceV1& s, int d) {
  return s.IsFullAt(d) ? 0 : s.starts[d];
}
int64_t Length(const TensorSliceV1& s, const TensorShape& shape, int d) {
  return s.IsFullAt(d) ? shape.dim_size(d) : s.lengths[d];
}

// Whether two slices of one shape overlap (a full extent overlaps all).
bool Overlap(const TensorSliceV1& a, const TensorSliceV1& b) {
  if (a.dims() != b.dims()) return false;
  for (int d = 0; d < a.dims(); ++d) {
    if (a.IsFullAt(d) || b.IsFullAt(d)) continue;
    const int64_t lo = std::max(a.starts[d], b.starts[d]);
    const int64_t hi =
        std::min(a.starts[d] + a.lengths[d], b.starts[d] + b.lengths[d]);
    if (hi <= lo) return false;
  }
  return true;
}

TensorSliceV1 FromProto(const TensorSliceProto& proto) {
  TensorSliceV1 s;
  for (const auto& e : proto.extent()) {
    s.starts.push_back(e.start());
    s.lengths.push_back(e.has_length_case() == TensorSliceProto::Extent::kLength
                            ? e.length()
                            : TensorSliceV1::kFullExtent);
  }
  return s;
}

// TensorFlow's TensorSlice::BuildTensorSlice checks.
absl::StatusOr<TensorSliceV1> CheckedFromProto(const TensorSliceProto& proto) {
  TensorSliceV1 s = FromProto(proto);
  for (int d = 0; d < s.dims(); ++d) {
    if (s.starts[d] == 0 && s.IsFullAt(d)) continue;
    if (s.starts[d] < 0 || s.lengths[d] <= 0 ||
        s.lengths[d] > std::numeric_limits<int64_t>::max() - s.starts[d]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected non-negative start and positive length but got start = ",
          s.starts[d], ", length = ", s.lengths[d], " in a saved slice"));
    }
  }
  return s;
}

void ToProto(const TensorSliceV1& s, TensorSliceProto* proto) {
  for (int d = 0; d < s.dims(); ++d) {
    TensorSliceProto::Extent* e = proto->add_extent();
    if (!s.IsFullAt(d)) {
      e->set_start(s.starts[d]);
      e->set_length(s.lengths[d]);
    }
  }
}

// --- Values: the TensorProto typed fields TensorFlow's Fill uses. ---

template <typename T, typename Field>
void AddAll(const Tensor& t, Field* field) {
  const T* p = static_cast<const T*>(t.raw_data());
  const int64_t n = t.NumElements();
  field->Reserve(static_cast<int>(n));
  for (int64_t i = 0; i < n; ++i) field->Add(p[i]);
}

template <typename R, typename Field>
void AddComplex(const Tensor& t, Field* field) {
  const R* p = static_cast<const R*>(t.raw_data());
  const int64_t n = 2 * t.NumElements();
  field->Reserve(static_cast<int>(n));
  for (int64_t i = 0; i < n; ++i) field->Add(p[i]);
}

// REQUIRES: IsV1SavableDataType(t.dtype()).
void FillProto(const Tensor& t, TensorProto* proto) {
  switch (t.dtype()) {
    case DT_FLOAT:
      AddAll<float>(t, proto->mutable_float_val());
      break;
    case DT_DOUBLE:
      AddAll<double>(t, proto->mutable_double_val());
      break;
    case DT_INT32:
    case DT_QINT32:
      AddAll<int32_t>(t, proto->mutable_int_val());
      break;
    case DT_INT16:
      AddAll<int16_t>(t, proto->mutable_int_val());
      break;
    case DT_INT8:
    case DT_QINT8:
      AddAll<int8_t>(t, proto->mutable_int_val());
      break;
    case DT_UINT8:
    case DT_QUINT8:
      AddAll<uint8_t>(t, proto->mutable_int_val());
      break;
    case DT_UINT16:
      AddAll<uint16_t>(t, proto->mutable_int_val());
      break;
    case DT_INT64:
      AddAll<int64_t>(t, proto->mutable_int64_val());
      break;
    case DT_BOOL:
      AddAll<bool>(t, proto->mutable_bool_val());
      break;
    case DT_HALF:
      AddAll<uint16_t>(t, proto->mutable_half_val());
      break;
    case DT_COMPLEX64:
      AddComplex<float>(t, proto->mutable_scomplex_val());
      break;
    case DT_COMPLEX128:
      AddComplex<double>(t, proto->mutable_dcomplex_val());
      break;
    case DT_STRING: {
      for (const std::string& s : t.span<std::string>()) {
        proto->add_string_val(s);
      }
      break;
    }
    default:
      break;
  }
}

template <typename T, typename Field>
bool CopyAll(const Field& field, int64_t n, Tensor* t) {
  if (field.size() != n) return false;
  T* p = static_cast<T*>(t->raw_data());
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(field.Get(i));
  return true;
}

// The values of `proto` into `t` (dtype and shape set); false when the
// typed field does not hold exactly t's element count.
bool ReadProto(const TensorProto& proto, Tensor* t) {
  const int64_t n = t->NumElements();
  switch (t->dtype()) {
    case DT_FLOAT:
      return CopyAll<float>(proto.float_val(), n, t);
    case DT_DOUBLE:
      return CopyAll<double>(proto.double_val(), n, t);
    case DT_INT32:
    case DT_QINT32:
      return CopyAll<int32_t>(proto.int_val(), n, t);
    case DT_INT16:
      return CopyAll<int16_t>(proto.int_val(), n, t);
    case DT_INT8:
    case DT_QINT8:
      return CopyAll<int8_t>(proto.int_val(), n, t);
    case DT_UINT8:
    case DT_QUINT8:
      return CopyAll<uint8_t>(proto.int_val(), n, t);
    case DT_UINT16:
      return CopyAll<uint16_t>(proto.int_val(), n, t);
    case DT_INT64:
      return CopyAll<int64_t>(proto.int64_val(), n, t);
    case DT_BOOL:
      return CopyAll<bool>(proto.bool_val(), n, t);
    case DT_HALF:
      return CopyAll<uint16_t>(proto.half_val(), n, t);
    case DT_COMPLEX64:
      return CopyAll<float>(proto.scomplex_val(), 2 * n, t);
    case DT_COMPLEX128:
      return CopyAll<double>(proto.dcomplex_val(), 2 * n, t);
    case DT_STRING: {
      if (proto.string_val_size() != n) return false;
      std::string* p = t->data<std::string>();
      for (int64_t i = 0; i < n; ++i) p[i] = proto.string_val(i);
      return true;
    }
    default:
      return false;
  }
}

// TensorFlow's MaxBytesPerElement: the most bytes one element takes in the
// typed field (varints of sign-extended ints take 10).
uint64_t MaxBytesPerElement(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT:
      return 4;
    case DT_DOUBLE:
      return 8;
    case DT_COMPLEX64:
      return 8;
    case DT_COMPLEX128:
      return 16;
    case DT_BOOL:
      return 1;
    case DT_UINT8:
    case DT_QUINT8:
      return 2;
    case DT_UINT16:
    case DT_HALF:
      return 3;
    default:
      return 10;
  }
}

// Copies the part of `src` (the values of slice `src_slice`) that lies in
// `dst_slice` into `dst` (its values), both slices of `shape`.
void CopyOverlap(const TensorShape& shape, const TensorSliceV1& src_slice,
                 const Tensor& src, const TensorSliceV1& dst_slice,
                 Tensor* dst) {
  const int rank = shape.dims();
  std::vector<int64_t> lo(rank), count(rank), src_stride(rank),
      dst_stride(rank);
  int64_t total = 1;
  for (int d = 0; d < rank; ++d) {
    const int64_t s0 = Start(src_slice, d),
                  s1 = s0 + Length(src_slice, shape, d);
    const int64_t d0 = Start(dst_slice, d),
                  d1 = d0 + Length(dst_slice, shape, d);
    lo[d] = std::max(s0, d0);
    count[d] = std::max<int64_t>(0, std::min(s1, d1) - lo[d]);
    total *= count[d];
  }
  if (total == 0) return;
  int64_t ss = 1, ds = 1;
  for (int d = rank - 1; d >= 0; --d) {
    src_stride[d] = ss;
    dst_stride[d] = ds;
    ss *= Length(src_slice, shape, d);
    ds *= Length(dst_slice, shape, d);
  }
  // Runs along the last dimension are contiguous in both: one copy each.
  const int64_t run = rank == 0 ? 1 : count[rank - 1];
  const int outer_rank = std::max(rank - 1, 0);
  const bool is_string = src.dtype() == DT_STRING;
  const size_t elem =
      is_string ? 0 : static_cast<size_t>(DataTypeSize(src.dtype()));
  const char* sp = static_cast<const char*>(src.raw_data());
  char* dp = static_cast<char*>(dst->raw_data());
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < total; i += run) {
    int64_t so = 0, dof = 0;
    for (int d = 0; d < rank; ++d) {
      so += (lo[d] + index[d] - Start(src_slice, d)) * src_stride[d];
      dof += (lo[d] + index[d] - Start(dst_slice, d)) * dst_stride[d];
    }
    if (is_string) {
      const std::string* from = src.data<std::string>() + so;
      std::copy(from, from + run, dst->data<std::string>() + dof);
    } else {
      std::memcpy(dp + dof * elem, sp + so * elem, run * elem);
    }
    for (int d = outer_rank - 1; d >= 0; --d) {
      if (++index[d] < count[d]) break;
      index[d] = 0;
    }
  }
}

absl::Status CopyError() {
  return absl::InvalidArgumentError("Error copying slice data");
}

}  // namespace

// ---------------------------------------------------------------------------
// Slices and keys.

TensorSliceV1 TensorSliceV1::Full(int rank) {
  TensorSliceV1 s;
  s.starts.assign(rank, 0);
  s.lengths.assign(rank, kFullExtent);
  return s;
}

std::string TensorSliceV1::DebugString() const {
  std::vector<std::string> parts;
  for (int d = 0; d < dims(); ++d) {
    parts.push_back(IsFullAt(d) ? std::string("-")
                                : absl::StrCat(starts[d], ",", lengths[d]));
  }
  return absl::StrJoin(parts, ":");
}

absl::StatusOr<TensorSliceV1> ParseTensorSliceV1(absl::string_view text) {
  TensorSliceV1 slice;
  for (absl::string_view item : absl::StrSplit(text, ':', absl::SkipEmpty())) {
    int64_t start = 0, length = TensorSliceV1::kFullExtent;
    if (item != "-") {
      std::vector<absl::string_view> sl =
          absl::StrSplit(item, ',', absl::SkipEmpty());
      if (sl.size() != 2 || !absl::SimpleAtoi(sl[0], &start) ||
          !absl::SimpleAtoi(sl[1], &length)) {
        return absl::InvalidArgumentError(
            absl::StrCat("Expected a pair of numbers or '-' but got '", item,
                         "': string = ", text));
      }
      if (start < 0 || length <= 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Expected non-negative start and positive length but got start = ",
            start, ", length = ", length, ": string = ", text));
      }
      if (length > std::numeric_limits<int64_t>::max() - start) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Extent end exceeds the maximum possible size: string = ", text));
      }
    }
    slice.starts.push_back(start);
    slice.lengths.push_back(length);
  }
  return slice;
}

absl::StatusOr<TensorShape> SliceShapeV1(const TensorSliceV1& slice,
                                         const TensorShape& shape) {
  if (shape.dims() != slice.dims()) {
    return absl::InternalError(
        absl::StrCat("Mismatching ranks: shape = ", shape.DebugString(),
                     ", slice = ", slice.DebugString()));
  }
  TensorShape result;
  for (int d = 0; d < slice.dims(); ++d) {
    if (slice.IsFullAt(d)) {
      DFX_RETURN_IF_ERROR(result.AddDim(shape.dim_size(d)));
    } else if (slice.starts[d] + slice.lengths[d] <= shape.dim_size(d)) {
      DFX_RETURN_IF_ERROR(result.AddDim(slice.lengths[d]));
    } else {
      return absl::InternalError(
          absl::StrCat("Extent in dimension ", d, " out of bounds: shape = ",
                       shape.DebugString(), ", slice = ", slice.DebugString()));
    }
  }
  return result;
}

absl::StatusOr<ShapeAndSliceV1> ParseShapeAndSliceV1(absl::string_view spec) {
  std::vector<absl::string_view> splits = absl::StrSplit(spec, ' ');
  if (splits.size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Need least two elements in shape_and_slice specification: ", spec));
  }
  ShapeAndSliceV1 out;
  DFX_ASSIGN_OR_RETURN(out.slice, ParseTensorSliceV1(splits.back()));
  splits.pop_back();
  for (absl::string_view s : splits) {
    int64_t dim;
    if (!absl::SimpleAtoi(s, &dim)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Non numerical dimension in shape_and_slice: ", spec));
    }
    // TensorFlow CHECK-fails on a negative dimension.
    if (dim < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Negative dimension ", dim, " in shape_and_slice: ", spec));
    }
    DFX_RETURN_IF_ERROR(out.shape.AddDim(dim));
  }
  DFX_ASSIGN_OR_RETURN(out.slice_shape, SliceShapeV1(out.slice, out.shape));
  return out;
}

std::string EncodeTensorNameSliceV1(absl::string_view name,
                                    const TensorSliceV1& slice) {
  std::string key;
  AppendNumIncreasing(&key, 0);
  AppendOrderedString(&key, name);
  AppendNumIncreasing(&key, static_cast<uint64_t>(slice.dims()));
  for (int d = 0; d < slice.dims(); ++d) {
    AppendSignedNumIncreasing(&key, slice.starts[d]);
    AppendSignedNumIncreasing(&key, slice.lengths[d]);
  }
  return key;
}

bool IsV1SavableDataType(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT:
    case DT_DOUBLE:
    case DT_INT32:
    case DT_UINT8:
    case DT_INT16:
    case DT_INT8:
    case DT_INT64:
    case DT_UINT16:
    case DT_BOOL:
    case DT_HALF:
    case DT_COMPLEX64:
    case DT_COMPLEX128:
    case DT_STRING:
    case DT_QINT8:
    case DT_QUINT8:
    case DT_QINT32:
      return true;
    default:
      return false;
  }
}

// ---------------------------------------------------------------------------
// Writing.

TensorSliceWriterV1::TensorSliceWriterV1(std::string path)
    : path_(std::move(path)) {}

absl::Status TensorSliceWriterV1::Add(const std::string& name,
                                      const TensorShape& shape,
                                      const TensorSliceV1& slice,
                                      const Tensor& data) {
  const DataType dtype = data.dtype();
  if (!IsV1SavableDataType(dtype) && dtype != DT_UINT32 && dtype != DT_UINT64) {
    return absl::UnimplementedError(absl::StrCat(
        "Saving data type ", DataTypeString(dtype), " not yet supported"));
  }
  if (shape.dims() != slice.dims()) {
    return absl::InternalError(absl::StrCat(
        "Incompatible tensor shape and slice: shape = ", shape.DebugString(),
        ", slice = ", slice.DebugString()));
  }
  auto it = index_.find(name);
  if (it != index_.end()) {
    const TensorMeta& meta = tensors_[it->second].second;
    if (!shape.IsSameSize(meta.shape)) {
      return absl::InternalError(absl::StrCat(
          "Mismatching shapes: existing tensor = ", meta.shape.DebugString(),
          ", trying to add name ", name, ", shape = ", shape.DebugString()));
    }
    if (dtype != meta.dtype) {
      return absl::InternalError(absl::StrCat(
          "Mismatching types: existing type = ", DataTypeString(meta.dtype),
          ", trying to add name ", name, ", type = ", DataTypeString(dtype)));
    }
  } else {
    it = index_.emplace(name, tensors_.size()).first;
    tensors_.push_back({name, TensorMeta{shape, dtype, {}}});
  }
  tensors_[it->second].second.slices.push_back(slice);

  DFX_ASSIGN_OR_RETURN(TensorShape slice_shape, SliceShapeV1(slice, shape));
  if (!slice_shape.IsSameSize(data.shape())) {
    return absl::InvalidArgumentError(
        absl::StrCat("Slice ", slice.DebugString(), " of tensor ", name,
                     " has shape ", slice_shape.DebugString(),
                     " but the data has shape ", data.shape().DebugString()));
  }
  if (dtype == DT_UINT32 || dtype == DT_UINT64) {
    return absl::InvalidArgumentError(
        absl::StrCat("Tensor slice serialization not implemented for dtype ",
                     static_cast<int>(dtype)));
  }
  SavedTensorSlices record;
  SavedSlice* saved = record.mutable_data();
  saved->set_name(name);
  ToProto(slice, saved->mutable_slice());
  uint64_t bound = record.ByteSizeLong() + kTensorProtoHeaderBytes;
  if (dtype == DT_STRING) {
    for (const std::string& s : data.span<std::string>()) {
      bound += s.size() + 10;
    }
  } else {
    bound +=
        MaxBytesPerElement(dtype) * static_cast<uint64_t>(data.NumElements());
  }
  if (bound > kMaxMessageBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Tensor slice is too large to serialize (conservative estimate: ",
        bound, " bytes)"));
  }
  FillProto(data, saved->mutable_data());
  // As TensorFlow's std::map insert: a second record of one key is dropped.
  data_.emplace(EncodeTensorNameSliceV1(name, slice),
                record.SerializeAsString());
  return absl::OkStatus();
}

absl::Status TensorSliceWriterV1::Finish() {
  SavedTensorSlices meta_record;
  SavedTensorSliceMeta* meta = meta_record.mutable_meta();
  for (const auto& [name, t] : tensors_) {
    SavedSliceMeta* m = meta->add_tensor();
    m->set_name(name);
    t.shape.AsProto(m->mutable_shape());
    m->set_type(t.dtype);
    for (const TensorSliceV1& s : t.slices) ToProto(s, m->add_slice());
  }
  meta->mutable_versions()->set_producer(kCheckpointVersion);
  table::TableBuilder builder;
  DFX_RETURN_IF_ERROR(builder.Add("", meta_record.SerializeAsString()));
  for (const auto& [key, value] : data_) {
    DFX_RETURN_IF_ERROR(builder.Add(key, value));
  }
  const std::string contents = builder.Finish();
  const std::string temp = absl::StrCat(path_, ".tempstate", ci::RandomId());
  absl::StatusOr<std::unique_ptr<ci::WritableFile>> file =
      ci::WritableFile::Create(temp);
  DFX_RETURN_IF_ERROR(file.status());
  absl::Status s = (*file)->Append(contents.data(), contents.size());
  if (s.ok()) s = (*file)->SyncAndClose();
  if (s.ok()) s = ci::RenameFile(temp, path_);
  if (!s.ok()) ci::RemoveFileQuietly(temp);
  return s;
}

// ---------------------------------------------------------------------------
// Reading.

struct TensorSliceReaderV1::File {
  std::string path;
  bool loaded = false;
  std::unique_ptr<ci::RandomAccessFile> file;
  std::unique_ptr<table::TableReader> table;
};

TensorSliceReaderV1::TensorSliceReaderV1() = default;
TensorSliceReaderV1::~TensorSliceReaderV1() = default;

absl::StatusOr<std::unique_ptr<TensorSliceReaderV1>> TensorSliceReaderV1::Open(
    const std::string& pattern, int preferred_shard,
    const std::function<absl::Status(const std::string&)>& check_path) {
  std::vector<std::string> paths;
  glob_t g;
  const int rc = glob(pattern.c_str(), 0, nullptr, &g);
  if (rc == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) paths.emplace_back(g.gl_pathv[i]);
  }
  globfree(&g);
  if (rc != 0 && rc != GLOB_NOMATCH) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Unsuccessful TensorSliceReader constructor: Failed to get matching "
        "files on ",
        pattern));
  }
  if (paths.empty()) {
    return absl::NotFoundError(absl::StrCat(
        "Unsuccessful TensorSliceReader constructor: Failed to find any "
        "matching files for ",
        pattern));
  }
  if (check_path) {
    for (const std::string& p : paths) DFX_RETURN_IF_ERROR(check_path(p));
  }
  std::unique_ptr<TensorSliceReaderV1> reader(new TensorSliceReaderV1());
  for (std::string& p : paths) {
    reader->files_.push_back(std::make_unique<File>());
    reader->files_.back()->path = std::move(p);
  }
  const int n = static_cast<int>(reader->files_.size());
  if (preferred_shard < 0 || n == 1 || preferred_shard >= n) {
    DFX_RETURN_IF_ERROR(reader->LoadAll());
  } else {
    DFX_RETURN_IF_ERROR(reader->LoadFile(preferred_shard));
  }
  return reader;
}

absl::Status TensorSliceReaderV1::LoadAll() {
  for (int i = 0; i < static_cast<int>(files_.size()); ++i) {
    DFX_RETURN_IF_ERROR(LoadFile(i));
  }
  return absl::OkStatus();
}

absl::Status TensorSliceReaderV1::LoadFile(int index) {
  File& file = *files_[index];
  if (file.loaded) return absl::OkStatus();
  // The table is read block by block (a checkpoint may not fit in
  // memory): the footer and index now, the metadata record, and later only
  // the blocks of the slices restored.
  DFX_ASSIGN_OR_RETURN(file.file, ci::RandomAccessFile::Open(file.path));
  const ci::RandomAccessFile* f = file.file.get();
  absl::StatusOr<std::unique_ptr<table::TableReader>> table =
      table::TableReader::Open(
          [f](uint64_t offset, size_t n, char* dst) {
            return f->ReadExactly(offset, n, dst);
          },
          f->size(), file.path);
  if (!table.ok()) {
    return absl::Status(
        table.status().code(),
        absl::StrCat("Unable to open table file ", file.path, ": ",
                     table.status().message(),
                     ": perhaps your file is in a different file format and "
                     "you need to use a different restore operator?"));
  }
  file.table = *std::move(table);
  file.loaded = true;
  absl::StatusOr<std::string> value = file.table->Get("");
  if (absl::IsNotFound(value.status())) {
    return absl::InternalError(absl::StrCat(
        "Failed to find the saved tensor slices at the beginning of the "
        "checkpoint file: ",
        file.path));
  }
  // A damaged block: DataLoss (TensorFlow's lazy reader misses the record
  // and answers Internal as above).
  DFX_RETURN_IF_ERROR(value.status());
  SavedTensorSlices record;
  if (!record.ParseFromString(*value)) {
    return absl::InternalError(absl::StrCat(
        "Failed to parse the saved tensor slices in file: ", file.path));
  }
  const VersionDef& v = record.meta().versions();
  if (v.producer() < kCheckpointMinProducer ||
      kCheckpointVersion < v.min_consumer() ||
      std::count(v.bad_consumers().begin(), v.bad_consumers().end(),
                 kCheckpointVersion) > 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Checkpoint ", file.path, " has versions (producer ",
                     v.producer(), ", min_consumer ", v.min_consumer(),
                     ") that this reader (version ", kCheckpointVersion,
                     ") cannot read. Please regenerate your checkpoint."));
  }
  for (const SavedSliceMeta& m : record.meta().tensor()) {
    absl::StatusOr<TensorShape> shape = TensorShape::FromProto(m.shape());
    if (!shape.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Bad shape of tensor ", m.name(), " in checkpoint ",
                       file.path, ": ", shape.status().message()));
    }
    for (const TensorSliceProto& sp : m.slice()) {
      DFX_ASSIGN_OR_RETURN(TensorSliceV1 slice, CheckedFromProto(sp));
      DFX_RETURN_IF_ERROR(SliceShapeV1(slice, *shape).status());
      auto [it, inserted] = tensors_.try_emplace(m.name());
      TensorInfo& info = it->second;
      if (inserted) {
        info.shape = *shape;
        info.dtype = m.type();
      } else {
        if (!info.shape.IsSameSize(*shape)) {
          return absl::InternalError(
              absl::StrCat("Incompatible tensor shapes detected for tensor ",
                           m.name(), ": existing = ", info.shape.DebugString(),
                           ", new = ", shape->DebugString()));
        }
        if (info.dtype != m.type()) {
          return absl::InternalError(absl::StrCat(
              "Incompatible tensor types detected for tensor ", m.name(),
              ": existing = ", DataTypeString(info.dtype),
              ", new = ", DataTypeString(m.type())));
        }
      }
      for (const SavedSlice& existing : info.slices) {
        if (Overlap(existing.slice, slice)) {
          return absl::InternalError(
              absl::StrCat("Overlapping slices: existing slice = ",
                           existing.slice.DebugString(),
                           ", new slice = ", slice.DebugString()));
        }
      }
      info.slices.push_back(SavedSlice{std::move(slice), index});
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> TensorSliceReaderV1::HasTensor(const std::string& name,
                                                    TensorShape* shape,
                                                    DataType* dtype) {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) {
    DFX_RETURN_IF_ERROR(LoadAll());
    it = tensors_.find(name);
    if (it == tensors_.end()) return false;
  }
  *shape = it->second.shape;
  *dtype = it->second.dtype;
  return true;
}

absl::Status TensorSliceReaderV1::CopySliceData(const std::string& name,
                                                const TensorSliceV1& slice,
                                                Tensor* out) {
  // The saved slices overlapping `slice`, when they cover it whole.
  auto covering = [&]() -> const TensorInfo* {
    auto it = tensors_.find(name);
    if (it == tensors_.end()) return nullptr;
    const TensorInfo& info = it->second;
    int64_t covered = 0;
    for (const SavedSlice& s : info.slices) {
      if (!Overlap(s.slice, slice)) continue;
      int64_t n = 1;
      for (int d = 0; d < slice.dims(); ++d) {
        const int64_t lo = std::max(Start(s.slice, d), Start(slice, d));
        const int64_t hi =
            std::min(Start(s.slice, d) + Length(s.slice, info.shape, d),
                     Start(slice, d) + Length(slice, info.shape, d));
        n *= hi - lo;
      }
      covered += n;
    }
    return covered == out->NumElements() ? &info : nullptr;
  };
  const TensorInfo* info = covering();
  if (info == nullptr) {
    DFX_RETURN_IF_ERROR(LoadAll());
    info = covering();
    if (info == nullptr) return CopyError();
  }
  for (const SavedSlice& s : info->slices) {
    if (!Overlap(s.slice, slice)) continue;
    absl::StatusOr<std::string> value =
        files_[s.file]->table->Get(EncodeTensorNameSliceV1(name, s.slice));
    if (absl::IsNotFound(value.status())) return CopyError();
    DFX_RETURN_IF_ERROR(value.status());
    SavedTensorSlices record;
    if (!record.ParseFromString(*value)) return CopyError();
    absl::StatusOr<TensorShape> shape = SliceShapeV1(s.slice, info->shape);
    if (!shape.ok()) return CopyError();
    Tensor values(info->dtype, *shape);
    if (!ReadProto(record.data().data(), &values)) return CopyError();
    CopyOverlap(info->shape, s.slice, values, slice, out);
  }
  return absl::OkStatus();
}

absl::StatusOr<Tensor> RestoreTensorV1(TensorSliceReaderV1* reader,
                                       const std::string& pattern,
                                       const std::string& name,
                                       const std::string& spec,
                                       DataType dtype) {
  TensorShape saved_shape;
  DataType saved_dtype = DT_INVALID;
  DFX_ASSIGN_OR_RETURN(bool found,
                       reader->HasTensor(name, &saved_shape, &saved_dtype));
  if (!found) {
    return absl::NotFoundError(absl::StrCat(
        "Tensor name \"", name, "\" not found in checkpoint files ", pattern));
  }
  if (saved_dtype != dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected to restore a tensor of type ", DataTypeString(dtype),
        ", got a tensor of type ", DataTypeString(saved_dtype),
        " instead: tensor_name = ", name));
  }
  TensorShape out_shape = saved_shape;
  TensorSliceV1 slice = TensorSliceV1::Full(saved_shape.dims());
  if (!spec.empty()) {
    DFX_ASSIGN_OR_RETURN(ShapeAndSliceV1 parsed, ParseShapeAndSliceV1(spec));
    if (!parsed.shape.IsSameSize(saved_shape)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Shape in shape_and_slice spec does not match the shape in the "
          "save file: ",
          parsed.shape.DebugString(),
          ", save file shape: ", saved_shape.DebugString()));
    }
    out_shape = parsed.slice_shape;
    slice = std::move(parsed.slice);
  }
  Tensor out(dtype, out_shape);
  if (out.NumElements() == 0) return out;
  if (!IsV1SavableDataType(dtype)) {
    return absl::UnimplementedError(absl::StrCat(
        "Restoring data type ", DataTypeString(dtype), " not yet supported"));
  }
  DFX_RETURN_IF_ERROR(reader->CopySliceData(name, slice, &out));
  return out;
}

bool MatchesBundleIndex(const std::string& prefix) {
  glob_t g;
  const int rc = glob(MetaFilename(prefix).c_str(), 0, nullptr, &g);
  const bool found = rc == 0 && g.gl_pathc > 0;
  globfree(&g);
  return found;
}

}  // namespace dfx
