#include "tools/cli/tensor_format.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "catch2/catch.hpp"

namespace dfx::cli {
namespace {

TEST_CASE("Values print nested like NumPy, columns right-aligned") {
  REQUIRE(FormatTensorValues(Tensor::FromVector<float>(
              {1, 2.5f, -30, 4}, TensorShape({2, 2}))) ==
          "[[  1.  2.5]\n [-30.   4.]]");
  REQUIRE(FormatTensorValues(Tensor::Scalar<int32_t>(-7)) == "-7");
  REQUIRE(FormatTensorValues(Tensor::Scalar<double>(0.1)) == "0.1");
  REQUIRE(FormatTensorValues(Tensor::FromVector<bool>({true, false})) ==
          "[ True False]");
  REQUIRE(FormatTensorValues(Tensor::FromVector<int64_t>(
              {1, 2, 3, 4, 5, 6, 7, 8}, TensorShape({2, 2, 2}))) ==
          "[[[1 2]\n  [3 4]]\n\n [[5 6]\n  [7 8]]]");
  REQUIRE(FormatTensorValues(Tensor::FromVector<float>(
              {std::nanf(""), std::numeric_limits<float>::infinity(),
               -std::numeric_limits<float>::infinity()})) ==
          "[ nan  inf -inf]");
  REQUIRE(FormatTensorValues(Tensor(DT_FLOAT, TensorShape({2, 0}))) == "[]");
}

TEST_CASE("Long tensors are summarized with their first and last items") {
  std::vector<int32_t> v(2000);
  std::iota(v.begin(), v.end(), 0);
  REQUIRE(FormatTensorValues(Tensor::FromVector<int32_t>(v)) ==
          "[   0    1    2 ... 1997 1998 1999]");
  const std::string m =
      FormatTensorValues(Tensor::FromVector<int32_t>(v, TensorShape({100, 20})));
  REQUIRE(m ==
          "[[   0    1    2 ...   17   18   19]\n"
          " [  20   21   22 ...   37   38   39]\n"
          " [  40   41   42 ...   57   58   59]\n"
          " ...\n"
          " [1940 1941 1942 ... 1957 1958 1959]\n"
          " [1960 1961 1962 ... 1977 1978 1979]\n"
          " [1980 1981 1982 ... 1997 1998 1999]]");
  // At or under the threshold, every value is shown.
  std::vector<int32_t> small(1000, 1);
  const std::string all =
      FormatTensorValues(Tensor::FromVector<int32_t>(small));
  REQUIRE(all.find("...") == std::string::npos);
  REQUIRE(std::count(all.begin(), all.end(), '1') == 1000);
}

}  // namespace
}  // namespace dfx::cli
