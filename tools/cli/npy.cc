#include "tools/cli/npy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"

namespace dfx::cli {
namespace {

// The .npy payload is little-endian; dfx copies it as it is.
static_assert(std::endian::native == std::endian::little,
              "the npy reader assumes a little-endian host");

constexpr absl::string_view kMagic = "\x93NUMPY";
constexpr size_t kMaxHeaderBytes = size_t{1} << 20;

struct NpyType {
  char kind;  // 'f', 'i', 'u', 'b'; 'S' (bytes, `size` wide) when parsed
  int size;
  DataType dtype;
};

constexpr NpyType kTypes[] = {
    {'f', 2, DT_HALF},  {'f', 4, DT_FLOAT}, {'f', 8, DT_DOUBLE}, {'i', 1, DT_INT8},
    {'i', 2, DT_INT16}, {'i', 4, DT_INT32},  {'i', 8, DT_INT64},
    {'u', 1, DT_UINT8}, {'u', 2, DT_UINT16}, {'u', 4, DT_UINT32},
    {'u', 8, DT_UINT64}, {'b', 1, DT_BOOL},
};

absl::Status NpyError(absl::string_view source, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("npy file '", source, "': ", what));
}

// A value of the header dict: a string, a bool, or a tuple of ints.
struct HeaderValue {
  enum Kind { kString, kBool, kTuple } kind = kString;
  std::string str;
  bool boolean = false;
  std::vector<int64_t> ints;
};

// Parses the Python dict literal NumPy writes as the header, e.g.
// "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }".
class HeaderParser {
 public:
  explicit HeaderParser(absl::string_view text) : text_(text) {}

  // On failure returns false and sets error().
  bool ParseDict(std::vector<std::pair<std::string, HeaderValue>>* items) {
    SkipSpace();
    if (!Consume('{')) return Fail("expected '{'");
    SkipSpace();
    while (!Consume('}')) {
      std::string key;
      if (!ParseString(&key)) return false;
      SkipSpace();
      if (!Consume(':')) return Fail("expected ':' after key");
      SkipSpace();
      HeaderValue value;
      if (!ParseValue(&value)) return false;
      items->emplace_back(std::move(key), std::move(value));
      SkipSpace();
      if (Consume(',')) {
        SkipSpace();
        continue;
      }
      SkipSpace();
      if (!Consume('}')) return Fail("expected ',' or '}'");
      break;
    }
    SkipSpace();
    if (pos_ != text_.size()) return Fail("unexpected text after the dict");
    return true;
  }

  const std::string& error() const { return error_; }

 private:
  bool Fail(absl::string_view what) {
    error_ = absl::StrCat(what, " at offset ", pos_);
    return false;
  }
  void SkipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
            text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool Consume(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool ConsumeWord(absl::string_view word) {
    if (text_.substr(pos_, word.size()) == word) {
      pos_ += word.size();
      return true;
    }
    return false;
  }
  bool ParseString(std::string* out) {
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      return Fail("expected a quoted string");
    }
    const char quote = text_[pos_++];
    const size_t end = text_.find(quote, pos_);
    if (end == absl::string_view::npos) return Fail("unterminated string");
    *out = std::string(text_.substr(pos_, end - pos_));
    if (out->find('\\') != std::string::npos) {
      return Fail("unexpected escape in string");
    }
    pos_ = end + 1;
    return true;
  }
  bool ParseInt(int64_t* out) {
    const size_t start = pos_;
    while (pos_ < text_.size() && absl::ascii_isdigit(text_[pos_])) ++pos_;
    if (pos_ == start) return Fail("expected a non-negative integer");
    if (!absl::SimpleAtoi(text_.substr(start, pos_ - start), out)) {
      pos_ = start;
      return Fail("integer out of range");
    }
    Consume('L');  // Python 2 longs
    return true;
  }
  bool ParseValue(HeaderValue* value) {
    if (pos_ >= text_.size()) return Fail("expected a value");
    const char c = text_[pos_];
    if (c == '\'' || c == '"') {
      value->kind = HeaderValue::kString;
      return ParseString(&value->str);
    }
    if (ConsumeWord("True")) {
      value->kind = HeaderValue::kBool;
      value->boolean = true;
      return true;
    }
    if (ConsumeWord("False")) {
      value->kind = HeaderValue::kBool;
      value->boolean = false;
      return true;
    }
    if (Consume('(')) {
      value->kind = HeaderValue::kTuple;
      SkipSpace();
      while (!Consume(')')) {
        if (value->ints.size() > static_cast<size_t>(TensorShape::kMaxRank)) {
          return Fail("too many dims in shape");
        }
        int64_t dim;
        if (!ParseInt(&dim)) return false;
        value->ints.push_back(dim);
        SkipSpace();
        if (Consume(',')) {
          SkipSpace();
          continue;
        }
        if (!Consume(')')) return Fail("expected ',' or ')' in tuple");
        break;
      }
      return true;
    }
    if (c == '[') return Fail("structured dtypes are not supported");
    return Fail("expected a string, True, False or a tuple");
  }

  absl::string_view text_;
  size_t pos_ = 0;
  std::string error_;
};

std::optional<NpyType> TypeFromDescr(absl::string_view descr) {
  if (descr.size() < 3) return std::nullopt;
  int size = 0;
  if (!absl::SimpleAtoi(descr.substr(2), &size)) return std::nullopt;
  for (const NpyType& t : kTypes) {
    if (t.kind == descr[1] && t.size == size) return t;
  }
  return std::nullopt;
}

std::string ShapeTuple(absl::Span<const int64_t> dims) {
  if (dims.size() == 1) return absl::StrCat("(", dims[0], ",)");
  return absl::StrCat("(", absl::StrJoin(dims, ", "), ")");
}

}  // namespace

std::string NpyDescr(DataType dtype) {
  for (const NpyType& t : kTypes) {
    if (t.dtype == dtype) {
      return absl::StrCat(t.size == 1 ? "|" : "<", std::string(1, t.kind),
                          t.size);
    }
  }
  return "";
}

absl::StatusOr<Tensor> ParseNpy(absl::string_view bytes,
                                absl::string_view source) {
  if (bytes.size() < kMagic.size() ||
      bytes.substr(0, kMagic.size()) != kMagic) {
    return NpyError(source, "not an npy file (bad magic string)");
  }
  if (bytes.size() < kMagic.size() + 2) {
    return NpyError(source, "truncated header (no version)");
  }
  const uint8_t major = static_cast<uint8_t>(bytes[6]);
  const uint8_t minor = static_cast<uint8_t>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0) {
    return NpyError(source, absl::StrCat("unsupported format version ",
                                         major, ".", minor));
  }
  const size_t len_bytes = major == 1 ? 2 : 4;
  const size_t len_offset = kMagic.size() + 2;
  if (bytes.size() < len_offset + len_bytes) {
    return NpyError(source, "truncated header (no header length)");
  }
  size_t header_len = 0;
  for (size_t i = 0; i < len_bytes; ++i) {
    header_len |= static_cast<size_t>(static_cast<uint8_t>(
                      bytes[len_offset + i]))
                  << (8 * i);
  }
  if (header_len > kMaxHeaderBytes) {
    return NpyError(source, absl::StrCat("header length ", header_len,
                                         " is implausibly large"));
  }
  const size_t header_offset = len_offset + len_bytes;
  if (bytes.size() - header_offset < header_len) {
    return NpyError(source,
                    absl::StrCat("truncated header: expected ", header_len,
                                 " header bytes, found ",
                                 bytes.size() - header_offset));
  }
  const absl::string_view header = bytes.substr(header_offset, header_len);

  std::vector<std::pair<std::string, HeaderValue>> items;
  HeaderParser parser(header);
  if (!parser.ParseDict(&items)) {
    return NpyError(source, absl::StrCat("header does not parse (",
                                         parser.error(), ")"));
  }
  const HeaderValue* descr = nullptr;
  const HeaderValue* fortran_order = nullptr;
  const HeaderValue* shape = nullptr;
  for (const auto& [key, value] : items) {
    const HeaderValue** slot = key == "descr"           ? &descr
                               : key == "fortran_order" ? &fortran_order
                               : key == "shape"         ? &shape
                                                        : nullptr;
    if (slot == nullptr) {
      return NpyError(source, absl::StrCat("header has unexpected key '",
                                           key, "'"));
    }
    if (*slot != nullptr) {
      return NpyError(source, absl::StrCat("header repeats key '", key, "'"));
    }
    *slot = &value;
  }
  if (descr == nullptr || fortran_order == nullptr || shape == nullptr) {
    return NpyError(source, "header lacks one of 'descr', 'fortran_order', "
                            "'shape'");
  }
  if (descr->kind != HeaderValue::kString) {
    return NpyError(source, "header 'descr' is not a string");
  }
  if (fortran_order->kind != HeaderValue::kBool) {
    return NpyError(source, "header 'fortran_order' is not True or False");
  }
  if (shape->kind != HeaderValue::kTuple) {
    return NpyError(source, "header 'shape' is not a tuple");
  }
  if (fortran_order->boolean) {
    return NpyError(source, "fortran_order True is not supported; save a "
                            "C-order array (numpy.ascontiguousarray)");
  }

  const std::string& d = descr->str;
  std::optional<NpyType> type = TypeFromDescr(d);
  // NumPy's fixed-width bytes ('|S5'): each element NUL-padded to the width.
  int string_width = 0;
  if (!type.has_value() && d.size() >= 3 && d[0] == '|' && d[1] == 'S' &&
      absl::SimpleAtoi(absl::string_view(d).substr(2), &string_width) &&
      string_width > 0) {
    type = NpyType{'S', string_width, DT_STRING};
  }
  if (!type.has_value()) {
    return NpyError(source, absl::StrCat(
        "unsupported dtype '", d,
        "' (supported: <f4 <f8 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8 |b1 |S)"));
  }
  const char order = d[0];
  if (type->size > 1 && order == '>') {
    return NpyError(source, absl::StrCat("big-endian dtype '", d,
                                         "' is not supported"));
  }
  const bool any_order = type->size == 1 || type->dtype == DT_STRING;
  const bool order_ok = any_order ? (order == '|' || order == '<' ||
                                     order == '>' || order == '=')
                                  : (order == '<' || order == '=');
  if (!order_ok) {
    return NpyError(source, absl::StrCat("unsupported dtype '", d, "'"));
  }

  absl::StatusOr<TensorShape> tensor_shape = TensorShape::Build(shape->ints);
  if (!tensor_shape.ok()) {
    return NpyError(source, absl::StrCat("bad shape ", ShapeTuple(shape->ints),
                                         ": ", tensor_shape.status().message()));
  }
  const size_t data_offset = header_offset + header_len;
  const size_t have = bytes.size() - data_offset;
  // num_elements <= 2^62; compare without overflowing the product.
  const uint64_t elements = static_cast<uint64_t>(tensor_shape->num_elements());
  const uint64_t item = static_cast<uint64_t>(type->size);
  if (elements > have / item) {
    return NpyError(source,
                    absl::StrCat("truncated data: shape ", ShapeTuple(shape->ints),
                                 " of '", d, "' needs ", elements, " x ", item,
                                 " bytes, found ", have));
  }
  const size_t need = static_cast<size_t>(elements * item);
  if (have != need) {
    return NpyError(source, absl::StrCat("data size ", have,
                                         " bytes does not match shape ",
                                         ShapeTuple(shape->ints), " of '", d,
                                         "' (", need, " bytes)"));
  }
  const absl::string_view data = bytes.substr(data_offset);
  if (type->dtype == DT_BOOL) {
    for (size_t i = 0; i < data.size(); ++i) {
      if (data[i] != 0 && data[i] != 1) {
        return NpyError(source, absl::StrCat("bool element ", i,
                                             " is neither 0 nor 1"));
      }
    }
  }
  Tensor tensor(type->dtype, *tensor_shape);
  if (type->dtype == DT_STRING) {
    // As NumPy reads them: trailing NULs are padding.
    std::string* out = tensor.data<std::string>();
    for (uint64_t i = 0; i < elements; ++i) {
      absl::string_view v = data.substr(i * item, item);
      const size_t end = v.find_last_not_of('\0');
      out[i] = std::string(end == v.npos ? absl::string_view()
                                         : v.substr(0, end + 1));
    }
    return tensor;
  }
  if (need > 0) std::memcpy(tensor.raw_data(), data.data(), need);
  return tensor;
}

absl::StatusOr<Tensor> ReadNpyFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) {
      return absl::NotFoundError(absl::StrCat("npy file '", path,
                                              "' does not exist"));
    }
    return absl::ErrnoToStatus(err, absl::StrCat("opening npy file '", path,
                                                 "'"));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::InvalidArgumentError(
        absl::StrCat("npy file '", path, "' is not a regular file"));
  }
  std::string bytes;
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return absl::ErrnoToStatus(err, absl::StrCat("reading npy file '", path,
                                                   "'"));
    }
    if (n == 0) break;
    bytes.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return ParseNpy(bytes, path);
}

absl::StatusOr<std::string> EncodeNpy(const Tensor& tensor) {
  std::string descr = NpyDescr(tensor.dtype());
  size_t string_width = 0;
  if (tensor.dtype() == DT_STRING && tensor.IsInitialized()) {
    // NumPy's fixed-width bytes, as np.array([b"..."]) has: the widest
    // element's length, at least 1.
    string_width = 1;
    const std::string* v = tensor.data<std::string>();
    for (int64_t i = 0; i < tensor.NumElements(); ++i) {
      string_width = std::max(string_width, v[i].size());
    }
    descr = absl::StrCat("|S", string_width);
  }
  if (descr.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot write a tensor of dtype ", DataTypeString(tensor.dtype()),
        " as npy"));
  }
  if (!tensor.IsInitialized()) {
    return absl::InvalidArgumentError("cannot write an uninitialized tensor");
  }
  std::string dict =
      absl::StrCat("{'descr': '", descr, "', 'fortran_order': False, 'shape': ",
                   ShapeTuple(tensor.shape().dim_sizes()), ", }");
  // NumPy pads so that magic, version, length field and header (ended by
  // '\n') fill a multiple of 64 bytes; a full 64 when already aligned.
  constexpr size_t kAlign = 64;
  size_t prefix = kMagic.size() + 2 + 2;
  size_t pad = kAlign - (prefix + dict.size() + 1) % kAlign;
  uint8_t major = 1;
  if (dict.size() + pad + 1 > 0xffff) {
    major = 2;
    prefix = kMagic.size() + 2 + 4;
    pad = kAlign - (prefix + dict.size() + 1) % kAlign;
  }
  const size_t header_len = dict.size() + pad + 1;
  std::string out;
  out.reserve(prefix + header_len + tensor.TotalBytes());
  out.append(kMagic.data(), kMagic.size());
  out.push_back(static_cast<char>(major));
  out.push_back('\0');
  const int len_bytes = major == 1 ? 2 : 4;
  for (int i = 0; i < len_bytes; ++i) {
    out.push_back(static_cast<char>((header_len >> (8 * i)) & 0xff));
  }
  out.append(dict);
  out.append(pad, ' ');
  out.push_back('\n');
  if (tensor.dtype() == DT_STRING) {
    const std::string* v = tensor.data<std::string>();
    for (int64_t i = 0; i < tensor.NumElements(); ++i) {
      out.append(v[i]);
      out.append(string_width - v[i].size(), '\0');
    }
    return out;
  }
  out.append(static_cast<const char*>(tensor.raw_data()), tensor.TotalBytes());
  return out;
}

absl::Status WriteNpyFile(const std::string& path, const Tensor& tensor) {
  DFX_ASSIGN_OR_RETURN(std::string bytes, EncodeNpy(tensor));
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("creating '", path, "'"));
  }
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return absl::ErrnoToStatus(err, absl::StrCat("writing '", path, "'"));
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("writing '", path, "'"));
  }
  return absl::OkStatus();
}

}  // namespace dfx::cli
