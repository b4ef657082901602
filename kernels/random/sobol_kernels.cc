// SobolSample's CPU kernel (float, double, as TensorFlow 2.21 serves):
// rows of the Sobol sequence with Joe and Kuo's new-joe-kuo-6.21201
// direction numbers, read from sobol_table.inc (which
// tests/golden/gen_sobol_table.py derives from TensorFlow's outputs).
//
// Row r of the output is point n = skip + r + 1 of the sequence (point 0,
// all zeros, never comes out): per dimension the XOR of the direction
// numbers v_k = m_k / 2^(k+1) over the set bits k of the Gray code
// n ^ (n >> 1). The kernel holds the v_k as 31-bit fixed point integers,
// finds each range's first point from its Gray code and steps on with one
// XOR per element (consecutive Gray codes differ in the bit of n's
// rightmost zero), in parallel over ranges of output elements, so a large
// `dim` splits within rows as well as between them.
//
// TensorFlow scales its integers by 1 / (1 << digits) with `digits` the
// bit length of skip + end + 1, where `end` closes the block of rows one
// of its threads computes (blocks of max(512, ceil(num_results /
// threads)) rows; one block with one thread). From 31 digits on the int
// shift overflows to INT_MIN and that block's values come out negated;
// dfx negates the same blocks, reckoned with its own intra-op thread count
// (so only where more than 512 rows reach past 2^30 - skip can the two
// differ, as TensorFlow's answer differs between machines there).
#include <bit>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string_view>
#include <vector>

#include "absl/base/call_once.h"
#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "kernels/eigen_util.h"
#include "kernels/kernels.h"
#include "runtime/device.h"
#include "runtime/thread_pool.h"

namespace dfx {
namespace {

#include "kernels/random/sobol_table.inc"

constexpr int kDigits = 31;  // TensorFlow's kMaxSobolDigits
constexpr int kDegrees =
    static_cast<int>(std::size(kSobolPolynomialsPerDegree));

// The packed table, decoded from base64 once.
const std::vector<uint8_t>& TableBytes() {
  static const std::vector<uint8_t>* const bytes = [] {
    auto* out = new std::vector<uint8_t>();
    out->reserve((sizeof(kSobolTableBase64) / 4) * 3);
    uint32_t acc = 0;
    int nbits = 0;
    for (const char c : std::string_view(kSobolTableBase64)) {
      int v;
      if (c >= 'A' && c <= 'Z') {
        v = c - 'A';
      } else if (c >= 'a' && c <= 'z') {
        v = c - 'a' + 26;
      } else if (c >= '0' && c <= '9') {
        v = c - '0' + 52;
      } else if (c == '+') {
        v = 62;
      } else if (c == '/') {
        v = 63;
      } else {
        continue;  // newlines and '=' padding
      }
      acc = (acc << 6) | static_cast<uint32_t>(v);
      nbits += 6;
      if (nbits >= 8) {
        nbits -= 8;
        out->push_back(static_cast<uint8_t>(acc >> nbits));
      }
    }
    DFX_CHECK(static_cast<int64_t>(out->size()) * 8 >= kSobolTableBits);
    return out;
  }();
  return *bytes;
}

// a * b modulo p over GF(2), p of degree s, a and b of degree below s.
uint32_t MulMod(uint32_t a, uint32_t b, uint32_t p, int s) {
  const uint32_t top = uint32_t{1} << s;
  uint32_t r = 0;
  for (; b != 0; b >>= 1) {
    if (b & 1) r ^= a;
    a <<= 1;
    if (a & top) a ^= p;
  }
  return r;
}

uint32_t PowX(uint32_t e, uint32_t p, int s) {
  uint32_t r = 1, base = 2;
  for (; e != 0; e >>= 1) {
    if (e & 1) r = MulMod(r, base, p, s);
    base = MulMod(base, base, p, s);
  }
  return r;
}

// Interior coefficients a (x^s + a_1 x^(s-1) + ... + a_(s-1) x + 1, a_1
// the top bit) of the primitive polynomials of degree s, increasing: the
// order of Joe and Kuo's table. p is primitive when x has multiplicative
// order 2^s - 1 modulo p.
std::vector<uint32_t> FindPrimitivePolynomials(int s) {
  if (s == 1) return {0};
  const uint32_t order = (uint32_t{1} << s) - 1;
  std::vector<uint32_t> factors;
  uint32_t rest = order;
  for (uint32_t q = 3; q * q <= rest; q += 2) {
    if (rest % q != 0) continue;
    factors.push_back(q);
    while (rest % q == 0) rest /= q;
  }
  if (rest > 1) factors.push_back(rest);
  std::vector<uint32_t> out;
  for (uint32_t a = 0; a < (uint32_t{1} << (s - 1)); ++a) {
    const uint32_t p = (uint32_t{1} << s) | (a << 1) | 1;
    if (std::popcount(p) % 2 == 0) continue;  // x + 1 divides it
    uint32_t y = 2;  // x^(2^s) == x: the order of x divides 2^s - 1
    for (int i = 0; i < s; ++i) y = MulMod(y, y, p, s);
    if (y != 2) continue;
    bool primitive = true;
    for (const uint32_t q : factors) {
      if (PowX(order / q, p, s) == 1) {
        primitive = false;
        break;
      }
    }
    if (primitive) out.push_back(a);
  }
  return out;
}

// The primitive polynomials of degree s the table uses, found once.
const std::vector<uint32_t>& PrimitivePolynomials(int s) {
  static absl::once_flag once[kDegrees];
  static std::vector<uint32_t> lists[kDegrees];
  absl::call_once(once[s - 1], [s] {
    lists[s - 1] = FindPrimitivePolynomials(s);
    DFX_CHECK(lists[s - 1].size() >=
              static_cast<size_t>(kSobolPolynomialsPerDegree[s - 1]));
  });
  return lists[s - 1];
}

// m_1..m_31 of dimension index j (0-based) into m[].
void DirectionIntegers(int j, uint32_t* m) {
  if (j == 0) {
    for (int k = 0; k < kDigits; ++k) m[k] = 1;
    return;
  }
  int index = j - 1;  // among the polynomials
  int s = 1;
  int64_t bit = 0;
  while (index >= kSobolPolynomialsPerDegree[s - 1]) {
    index -= kSobolPolynomialsPerDegree[s - 1];
    bit += int64_t{kSobolPolynomialsPerDegree[s - 1]} * s * (s - 1) / 2;
    ++s;
  }
  bit += int64_t{index} * s * (s - 1) / 2;
  const uint32_t a = PrimitivePolynomials(s)[index];
  const std::vector<uint8_t>& bytes = TableBytes();
  m[0] = 1;
  for (int i = 1; i < s && i < kDigits; ++i) {
    uint32_t half = 0;
    for (int b = 0; b < i; ++b, ++bit) {
      half |= static_cast<uint32_t>((bytes[bit >> 3] >> (bit & 7)) & 1) << b;
    }
    m[i] = 2 * half + 1;
  }
  for (int i = s; i < kDigits; ++i) {
    uint32_t v = m[i - s] ^ (m[i - s] << s);
    for (int k = 1; k < s; ++k) {
      if ((a >> (s - 1 - k)) & 1) v ^= m[i - k] << k;
    }
    m[i] = v;
  }
}

// Bit length of n > 0, as TensorFlow's NumBinaryDigits.
int BitLength(int64_t n) {
  return static_cast<int>(std::bit_width(static_cast<uint64_t>(n)));
}

// row[lo..hi) = x[lo..hi) * scale (x below 2^31).
template <typename T>
void WriteRow(const uint32_t* x, int64_t lo, int64_t hi, T scale, T* row) {
  for (int64_t j = lo; j < hi; ++j) {
    row[j] = static_cast<T>(static_cast<int32_t>(x[j])) * scale;
  }
}

// The next row's points: x[lo..hi) ^= vk[lo..hi).
void Advance(const uint32_t* vk, int64_t lo, int64_t hi, uint32_t* x) {
  for (int64_t j = lo; j < hi; ++j) x[j] ^= vk[j];
}

absl::Status ScalarInput(OpKernelContext* ctx, int i, const char* name,
                         int32_t* value) {
  const Tensor& t = ctx->input(i);
  if (t.dims() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, " must be a scalar, but its shape is ", t.shape().DebugString()));
  }
  *value = t.scalar<int32_t>();
  return absl::OkStatus();
}

template <typename T>
class SobolSampleOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    int32_t dim, num_results, skip;
    DFX_OP_REQUIRES_OK(ctx, ScalarInput(ctx, 0, "dim", &dim));
    DFX_OP_REQUIRES_OK(ctx, ScalarInput(ctx, 1, "num_results", &num_results));
    DFX_OP_REQUIRES_OK(ctx, ScalarInput(ctx, 2, "skip", &skip));
    DFX_OP_REQUIRES(ctx, dim >= 1,
                    absl::InvalidArgumentError("dim must be at least one"));
    DFX_OP_REQUIRES(ctx, dim <= kSobolMaxDim,
                    absl::InvalidArgumentError(
                        absl::StrCat("dim must be at most ", kSobolMaxDim)));
    DFX_OP_REQUIRES(
        ctx, num_results >= 1,
        absl::InvalidArgumentError("num_results must be at least one"));
    DFX_OP_REQUIRES(ctx, skip >= 0,
                    absl::InvalidArgumentError("skip must be non-negative"));
    constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
    DFX_OP_REQUIRES(ctx, num_results < kMax - skip,
                    absl::InvalidArgumentError(absl::StrCat(
                        "num_results+skip must be less than ", kMax)));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({num_results, dim}), &out));

    // v[k * dim + j]: direction number k of dimension j, times 2^31.
    const int digits = BitLength(int64_t{skip} + num_results + 1);
    std::vector<uint32_t> v(static_cast<size_t>(digits) * dim);
    // (At most 21200 x 31 x 18 steps: below what ParallelFor would split.)
    uint32_t m[kDigits];
    for (int j = 0; j < dim; ++j) {
      DirectionIntegers(j, m);
      for (int k = 0; k < digits; ++k) {
        v[k * dim + j] = m[k] << (kDigits - 1 - k);
      }
    }

    const Device& device = *ctx->device();
    const int64_t negated_from = NegatedFrom(device, num_results, skip);
    T* const o = out->data<T>();
    const T scale = static_cast<T>(1.0 / 2147483648.0);  // 2^-31
    // Point of row r: the XOR of v over the Gray code of skip + r + 1.
    auto first_point = [&](int64_t r, int64_t j) {
      const uint32_t n = static_cast<uint32_t>(skip + r + 1);
      uint32_t g = n ^ (n >> 1), x = 0;
      for (; g != 0; g &= g - 1) x ^= v[std::countr_zero(g) * dim + j];
      return x;
    };
    // Row r's scale: TensorFlow's 2^-31, negated from negated_from on.
    auto row_scale = [scale, negated_from](int64_t r) {
      return r >= negated_from ? -scale : scale;
    };
    ParallelFor(
        device, int64_t{num_results} * dim,
        Eigen::TensorOpCost(0, sizeof(T), 4), [&](int64_t first, int64_t last) {
          const int64_t r0 = first / dim, c0 = first % dim;
          const int64_t r1 = (last - 1) / dim, c1 = (last - 1) % dim + 1;
          // x[j]: dimension j's point at the row being written.
          std::vector<uint32_t> x(dim);
          for (int64_t j = c0; j < (r0 == r1 ? c1 : dim); ++j) {
            x[j] = first_point(r0, j);
          }
          WriteRow(x.data(), c0, r0 == r1 ? c1 : dim, row_scale(r0),
                   o + r0 * dim);
          if (r0 == r1) return;
          Advance(
              &v[std::countr_one(static_cast<uint32_t>(skip + r0 + 1)) * dim],
              c0, dim, x.data());
          for (int64_t j = 0; j < c0; ++j) x[j] = first_point(r0 + 1, j);
          for (int64_t r = r0 + 1;; ++r) {
            WriteRow(x.data(), 0, r == r1 ? c1 : dim, row_scale(r),
                     o + r * dim);
            if (r == r1) break;
            Advance(
                &v[std::countr_one(static_cast<uint32_t>(skip + r + 1)) * dim],
                0, dim, x.data());
          }
        });
  }

 private:
  // The first row TensorFlow negates (num_results when none): the start of
  // the first of its blocks whose end e has skip + e + 1 >= 2^30.
  static int64_t NegatedFrom(const Device& device, int32_t num_results,
                             int32_t skip) {
    const int64_t limit = (int64_t{1} << 30) - 1 - skip;  // end >= limit
    if (num_results < limit) return num_results;
    const ThreadPool* pool = device.intra_op_pool();
    const int64_t threads = pool == nullptr ? 1 : pool->NumThreads();
    int64_t block = (num_results + threads - 1) / threads;
    if (block < 512) block = 512;
    if (threads == 1 || num_results <= block) return 0;
    // Blocks [b * block, min((b + 1) * block, num_results)).
    const int64_t b = limit <= block ? 0 : (limit - 1) / block;
    return b * block;
  }
};

}  // namespace

void RegisterSobolKernels(KernelRegistry* registry) {
  RegisterKernel<SobolSampleOp<float>>(
      registry, KernelDefBuilder("SobolSample").TypeConstraint<float>("dtype"));
  RegisterKernel<SobolSampleOp<double>>(
      registry,
      KernelDefBuilder("SobolSample").TypeConstraint<double>("dtype"));
}

}  // namespace dfx
