#include "tools/cli/npy.h"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace dfx::cli {
namespace {

using testing::StatusIs;
using testing::TempDir;

// The bytes NumPy's np.save writes: magic, version 1.0, little-endian
// uint16 header length, the dict padded with spaces so that the whole
// header ends ('\n') on a multiple of 64 bytes, then the raw data.
std::string NumpyBytes(const std::string& dict, const std::string& data,
                       int major = 1) {
  const size_t prefix = major == 1 ? 10 : 12;
  const size_t pad = 64 - (prefix + dict.size() + 1) % 64;
  const size_t header_len = dict.size() + pad + 1;
  std::string out("\x93NUMPY", 6);
  out.push_back(static_cast<char>(major));
  out.push_back('\0');
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i) {
    out.push_back(static_cast<char>((header_len >> (8 * i)) & 0xff));
  }
  out += dict + std::string(pad, ' ') + "\n" + data;
  REQUIRE(out.size() - data.size() == prefix + header_len);
  REQUIRE((prefix + header_len) % 64 == 0);
  return out;
}

template <typename T>
std::string RawBytes(const std::vector<T>& values) {
  std::string out(values.size() * sizeof(T), '\0');
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

std::string Raw(const Tensor& t) {
  return std::string(static_cast<const char*>(t.raw_data()), t.TotalBytes());
}

// A tensor of `dtype` and `shape` with element i set from i.
Tensor Iota(DataType dtype, const TensorShape& shape) {
  Tensor t(dtype, shape);
  const int64_t n = t.NumElements();
  for (int64_t i = 0; i < n; ++i) {
    switch (dtype) {
      case DT_FLOAT: t.data<float>()[i] = 0.5f * i - 3; break;
      case DT_DOUBLE: t.data<double>()[i] = 0.25 * i - 1e10; break;
      case DT_INT32: t.data<int32_t>()[i] = static_cast<int32_t>(i * 7919 - 1000000); break;
      case DT_INT64: t.data<int64_t>()[i] = (int64_t{1} << 40) * i - 5; break;
      case DT_BOOL: t.data<bool>()[i] = (i % 3) == 1; break;
      case DT_UINT8: t.data<uint8_t>()[i] = static_cast<uint8_t>(250 + i); break;
      case DT_INT16: t.data<int16_t>()[i] = static_cast<int16_t>(i * 1000 - 30000); break;
      case DT_INT8: t.data<int8_t>()[i] = static_cast<int8_t>(i * 9 - 128); break;
      default: FAIL("unexpected dtype");
    }
  }
  return t;
}

TEST_CASE("npy round trips every dtype at ranks 0 to 4") {
  TempDir dir;
  const std::vector<TensorShape> shapes = {
      TensorShape(), TensorShape({5}), TensorShape({2, 3}),
      TensorShape({2, 1, 3}), TensorShape({2, 3, 1, 2}), TensorShape({0}),
      TensorShape({3, 0, 2})};
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64, DT_BOOL,
                         DT_UINT8, DT_INT16, DT_INT8}) {
    for (const TensorShape& shape : shapes) {
      INFO(DataTypeString(dtype) << " " << shape.DebugString());
      const Tensor t = Iota(dtype, shape);
      auto bytes = EncodeNpy(t);
      REQUIRE_OK(bytes);
      auto back = ParseNpy(*bytes, "mem");
      REQUIRE_OK(back);
      REQUIRE(back->dtype() == dtype);
      REQUIRE(back->shape() == shape);
      REQUIRE(Raw(*back) == Raw(t));

      const std::string path = dir.File("t.npy");
      REQUIRE_OK(WriteNpyFile(path, t));
      auto read = ReadNpyFile(path);
      REQUIRE_OK(read);
      REQUIRE(read->dtype() == dtype);
      REQUIRE(read->shape() == shape);
      REQUIRE(Raw(*read) == Raw(t));
    }
  }
}

TEST_CASE("npy writes byte for byte what NumPy writes") {
  // np.save(f, np.arange(6, dtype=np.float32).reshape(2, 3))
  const std::vector<float> values = {0, 1, 2, 3, 4, 5};
  const std::string expected = NumpyBytes(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
      RawBytes(values));
  REQUIRE(expected.size() == 128 + 24);
  auto encoded =
      EncodeNpy(Tensor::FromVector<float>(values, TensorShape({2, 3})));
  REQUIRE_OK(encoded);
  REQUIRE(*encoded == expected);

  // np.save(f, np.int64(-7)): a 0-d array has shape ().
  const std::string scalar = NumpyBytes(
      "{'descr': '<i8', 'fortran_order': False, 'shape': (), }",
      RawBytes(std::vector<int64_t>{-7}));
  auto s = EncodeNpy(Tensor::Scalar<int64_t>(-7));
  REQUIRE_OK(s);
  REQUIRE(*s == scalar);

  // np.save(f, np.array([True, False, True])): rank 1 has a trailing comma.
  const std::string bools = NumpyBytes(
      "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
      std::string("\x01\x00\x01", 3));
  auto b = EncodeNpy(Tensor::FromVector<bool>({true, false, true}));
  REQUIRE_OK(b);
  REQUIRE(*b == bools);
}

TEST_CASE("npy writes and reads string tensors as NumPy's fixed-width "
          "bytes") {
  // np.save(f, np.array([b"ab", b"c"])): '|S2', each element NUL-padded.
  const std::string two = NumpyBytes(
      "{'descr': '|S2', 'fortran_order': False, 'shape': (2,), }",
      std::string("abc\0", 4));
  auto encoded = EncodeNpy(Tensor::FromVector<std::string>({"ab", "c"}));
  REQUIRE_OK(encoded);
  REQUIRE(*encoded == two);
  auto back = ParseNpy(two, "s.npy");
  REQUIRE_OK(back);
  REQUIRE(back->dtype() == DT_STRING);
  REQUIRE(back->shape() == TensorShape({2}));
  REQUIRE(back->data<std::string>()[0] == "ab");
  REQUIRE(back->data<std::string>()[1] == "c");

  // np.array([[b"", b""]]): empty strings are '|S1'; an empty array too.
  auto empty = EncodeNpy(
      Tensor::FromVector<std::string>({"", ""}, TensorShape({1, 2})));
  REQUIRE_OK(empty);
  REQUIRE(*empty == NumpyBytes(
      "{'descr': '|S1', 'fortran_order': False, 'shape': (1, 2), }",
      std::string(2, '\0')));
  auto none = ParseNpy(*EncodeNpy(Tensor(DT_STRING, TensorShape({0, 3}))),
                       "e.npy");
  REQUIRE_OK(none);
  REQUIRE(none->shape() == TensorShape({0, 3}));

  // Any bytes but trailing NULs survive the round trip.
  const Tensor bytes = Tensor::FromVector<std::string>(
      {std::string("a\0b\xff", 4), "Gr\xc3\xbc\xc3\x9f" "e", "x"});
  auto again = ParseNpy(*EncodeNpy(bytes), "b.npy");
  REQUIRE_OK(again);
  for (int i = 0; i < 3; ++i) {
    REQUIRE(again->data<std::string>()[i] == bytes.data<std::string>()[i]);
  }
  REQUIRE_THAT(
      ParseNpy(NumpyBytes("{'descr': '|S0', 'fortran_order': False, "
                          "'shape': (2,), }", ""), "z.npy").status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "unsupported dtype '|S0'"));
  REQUIRE_THAT(
      ParseNpy(NumpyBytes("{'descr': '|S3', 'fortran_order': False, "
                          "'shape': (2,), }", "abcde"), "t.npy").status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "truncated data"));
}

TEST_CASE("npy reads files as NumPy writes them") {
  SECTION("float32 matrix") {
    auto t = ParseNpy(
        NumpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                   RawBytes(std::vector<float>{1.5f, -2, 3, 4, 5, 6.25f})),
        "m.npy");
    REQUIRE_OK(t);
    REQUIRE(t->dtype() == DT_FLOAT);
    REQUIRE(t->shape() == TensorShape({2, 3}));
    REQUIRE(t->data<float>()[0] == 1.5f);
    REQUIRE(t->data<float>()[1] == -2.0f);
    REQUIRE(t->data<float>()[5] == 6.25f);
  }
  SECTION("float64 scalar") {
    auto t = ParseNpy(
        NumpyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (), }",
                   RawBytes(std::vector<double>{-0.125})),
        "s.npy");
    REQUIRE_OK(t);
    REQUIRE(t->dtype() == DT_DOUBLE);
    REQUIRE(t->dims() == 0);
    REQUIRE(t->scalar<double>() == -0.125);
  }
  SECTION("int32, keys in another order, no trailing comma") {
    auto t = ParseNpy(
        NumpyBytes("{'shape': (3,), 'fortran_order': False, 'descr': '<i4'}",
                   RawBytes(std::vector<int32_t>{7, -8, 2147483647})),
        "i.npy");
    REQUIRE_OK(t);
    REQUIRE(t->dtype() == DT_INT32);
    REQUIRE(t->data<int32_t>()[1] == -8);
    REQUIRE(t->data<int32_t>()[2] == 2147483647);
  }
  SECTION("format 2.0 and 3.0 use a 4-byte header length") {
    for (int major : {2, 3}) {
      auto t = ParseNpy(
          NumpyBytes("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }",
                     RawBytes(std::vector<int64_t>{int64_t{1} << 40, -1}),
                     major),
          "v.npy");
      REQUIRE_OK(t);
      REQUIRE(t->dtype() == DT_INT64);
      REQUIRE(t->data<int64_t>()[0] == int64_t{1} << 40);
      REQUIRE(t->data<int64_t>()[1] == -1);
    }
  }
  SECTION("uint8, int16, int8, bool") {
    auto u8 = ParseNpy(
        NumpyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }",
                   std::string("\xff\x01", 2)),
        "u.npy");
    REQUIRE_OK(u8);
    REQUIRE(u8->dtype() == DT_UINT8);
    REQUIRE(u8->data<uint8_t>()[0] == 255);
    auto i16 = ParseNpy(
        NumpyBytes("{'descr': '<i2', 'fortran_order': False, 'shape': (1,), }",
                   RawBytes(std::vector<int16_t>{-300})),
        "s.npy");
    REQUIRE_OK(i16);
    REQUIRE(i16->data<int16_t>()[0] == -300);
    auto i8 = ParseNpy(
        NumpyBytes("{'descr': '|i1', 'fortran_order': False, 'shape': (1,), }",
                   std::string("\x80", 1)),
        "b.npy");
    REQUIRE_OK(i8);
    REQUIRE(i8->data<int8_t>()[0] == -128);
    auto b = ParseNpy(
        NumpyBytes("{'descr': '|b1', 'fortran_order': False, 'shape': (2, 1), }",
                   std::string("\x00\x01", 2)),
        "b.npy");
    REQUIRE_OK(b);
    REQUIRE(b->dtype() == DT_BOOL);
    REQUIRE(b->shape() == TensorShape({2, 1}));
    REQUIRE(!b->data<bool>()[0]);
    REQUIRE(b->data<bool>()[1]);
  }
}

TEST_CASE("npy rejects malformed files with InvalidArgument naming the file") {
  const std::string f4 = RawBytes(std::vector<float>{1, 2, 3, 4, 5, 6});
  const std::string good_dict =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  const std::string good = NumpyBytes(good_dict, f4);
  auto expect = [](const std::string& bytes, const std::string& what) {
    INFO(what);
    REQUIRE_THAT(ParseNpy(bytes, "bad.npy").status(),
                 StatusIs(absl::StatusCode::kInvalidArgument, "bad.npy"));
    REQUIRE_THAT(ParseNpy(bytes, "bad.npy").status(),
                 StatusIs(absl::StatusCode::kInvalidArgument, what));
  };
  expect("", "bad magic");
  expect("PK\x03\x04 this is a zip", "bad magic");
  expect("\x93NUMPX" + good.substr(6), "bad magic");
  expect(good.substr(0, 7), "truncated header");
  expect(good.substr(0, 9), "truncated header");
  expect(good.substr(0, 40), "truncated header");
  std::string v4 = good;
  v4[6] = 4;
  expect(v4, "unsupported format version 4.0");
  expect(good.substr(0, good.size() - 1), "truncated data");
  expect(good.substr(0, 128), "truncated data");
  expect(good + "x", "does not match shape");
  expect(NumpyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }",
                    f4),
         "fortran_order True");
  expect(NumpyBytes("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }",
                    f4),
         "big-endian");
  expect(NumpyBytes("{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }",
                    f4),
         "unsupported dtype '<c8'");
  expect(NumpyBytes("{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }",
                    f4),
         "unsupported dtype '<U3'");
  expect(NumpyBytes("{'descr': [('a', '<f4')], 'fortran_order': False, "
                    "'shape': (6,), }",
                    f4),
         "structured");
  expect(NumpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3", f4),
         "header does not parse");
  expect(NumpyBytes("not a dict at all", f4), "header does not parse");
  expect(NumpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }",
                    f4),
         "header does not parse");
  expect(NumpyBytes("{'descr': '<f4', 'shape': (2, 3), }", f4), "lacks");
  expect(NumpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), "
                    "'extra': 'x', }",
                    f4),
         "unexpected key 'extra'");
  expect(NumpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), "
                    "'shape': (6,)}",
                    f4),
         "repeats key 'shape'");
  expect(NumpyBytes("{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 3), }",
                    f4),
         "header does not parse");
  expect(NumpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': '6', }",
                    f4),
         "'shape' is not a tuple");
  expect(NumpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': "
                    "(4294967296, 4294967296, 4294967296), }",
                    f4),
         "bad shape");
  expect(NumpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': "
                    "(99999999999999999999,), }",
                    f4),
         "out of range");
  expect(NumpyBytes("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }",
                    std::string("\x01\x02", 2)),
         "neither 0 nor 1");
  // A header length running past the end of the file.
  std::string long_len = good;
  long_len[8] = '\xff';
  long_len[9] = '\x7f';
  expect(long_len, "truncated header");
}

TEST_CASE("npy never crashes on garbage") {
  const std::string good = NumpyBytes(
      "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }",
      RawBytes(std::vector<int32_t>{1, 2, 3, 4}));
  // Every prefix is either rejected or (the whole file) accepted.
  for (size_t n = 0; n < good.size(); ++n) {
    REQUIRE_THAT(ParseNpy(good.substr(0, n), "p.npy").status(),
                 StatusIs(absl::StatusCode::kInvalidArgument, "p.npy"));
  }
  REQUIRE_OK(ParseNpy(good, "p.npy"));
  // Random byte changes in the header: never anything but OK or
  // InvalidArgument, and an accepted result holds the file's bytes.
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 3000; ++trial) {
    std::string bytes = good;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      bytes[rng() % 128] = static_cast<char>(rng() % 256);
    }
    auto t = ParseNpy(bytes, "f.npy");
    if (t.ok()) {
      REQUIRE(t->TotalBytes() < bytes.size());
    } else {
      REQUIRE(t.status().code() == absl::StatusCode::kInvalidArgument);
    }
  }
}

TEST_CASE("npy file errors") {
  TempDir dir;
  REQUIRE_THAT(ReadNpyFile(dir.File("missing.npy")).status(),
               StatusIs(absl::StatusCode::kNotFound, "missing.npy"));
  REQUIRE_THAT(ReadNpyFile(dir.File("")).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "not a regular file"));
  REQUIRE(!WriteNpyFile(dir.File("no/such/dir/x.npy"), Tensor::Scalar<float>(1))
               .ok());
  REQUIRE_THAT(EncodeNpy(Tensor(DT_COMPLEX64, TensorShape({1}))).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "complex64"));
}

}  // namespace
}  // namespace dfx::cli
