#include "tools/cli/tensor_format.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tools/cli/internal/elements.h"
#include "tools/cli/json_tensor.h"

namespace dfx::cli {
namespace {

template <typename T>
std::string ElementText(const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "True" : "False";
  } else if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    std::string s = internal::ShortestFloat(v);
    // NumPy marks an integral float with a trailing dot: "2.".
    if (s.find_first_of(".eE") == std::string::npos) s.push_back('.');
    return s;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return JsonQuote(v);
  } else if constexpr (std::is_signed_v<T>) {
    return absl::StrCat(static_cast<int64_t>(v));
  } else {
    return absl::StrCat(static_cast<uint64_t>(v));
  }
}

// Renders the tensor from pre-formatted element texts, so that every shown
// element can be padded to the widest one.
class Renderer {
 public:
  Renderer(const Tensor& t, bool summarize, int64_t edge)
      : t_(t), summarize_(summarize), edge_(edge) {
    strides_.assign(t.dims(), 1);
    for (int d = t.dims() - 2; d >= 0; --d) {
      strides_[d] = strides_[d + 1] * t.dim_size(d + 1);
    }
  }

  // The indices of dim `d` to show; -1 stands for the ellipsis.
  std::vector<int64_t> Shown(int d) const {
    const int64_t n = t_.dim_size(d);
    std::vector<int64_t> idx;
    if (summarize_ && n > 2 * edge_) {
      for (int64_t i = 0; i < edge_; ++i) idx.push_back(i);
      idx.push_back(-1);
      for (int64_t i = n - edge_; i < n; ++i) idx.push_back(i);
    } else {
      for (int64_t i = 0; i < n; ++i) idx.push_back(i);
    }
    return idx;
  }

  // Calls fn(flat_index) for every shown element, in order.
  template <typename Fn>
  void ForEachShown(int d, int64_t offset, Fn& fn) const {
    if (d == t_.dims()) {
      fn(offset);
      return;
    }
    for (int64_t i : Shown(d)) {
      if (i >= 0) ForEachShown(d + 1, offset + i * strides_[d], fn);
    }
  }

  template <typename T>
  std::string Render() {
    const T* data = t_.data<T>();
    size_t width = 0;
    auto measure = [&](int64_t i) {
      width = std::max(width, ElementText<T>(data[i]).size());
    };
    ForEachShown(0, 0, measure);
    auto text = [&](int64_t i) {
      std::string s = ElementText<T>(data[i]);
      if (s.size() < width) s.insert(0, width - s.size(), ' ');
      return s;
    };
    if (t_.dims() == 0) return ElementText<T>(data[0]);
    std::string out;
    Block<T>(0, 0, text, &out);
    return out;
  }

 private:
  template <typename T, typename TextFn>
  void Block(int d, int64_t offset, TextFn& text, std::string* out) const {
    const int rank = t_.dims();
    out->push_back('[');
    bool first = true;
    const std::string row_sep =
        std::string(static_cast<size_t>(rank - 1 - d), '\n') +
        std::string(static_cast<size_t>(d + 1), ' ');
    for (int64_t i : Shown(d)) {
      if (!first) out->append(d == rank - 1 ? " " : row_sep);
      first = false;
      if (i < 0) {
        out->append("...");
        continue;
      }
      const int64_t at = offset + i * strides_[d];
      if (d == rank - 1) {
        out->append(text(at));
      } else {
        Block<T>(d + 1, at, text, out);
      }
    }
    out->push_back(']');
  }

  const Tensor& t_;
  const bool summarize_;
  const int64_t edge_;
  std::vector<int64_t> strides_;
};

}  // namespace

std::string FormatTensorValues(const Tensor& tensor,
                               const FormatOptions& options) {
  if (!tensor.IsInitialized()) return "<uninitialized>";
  if (tensor.NumElements() == 0) return "[]";
  Renderer renderer(tensor, tensor.NumElements() > options.threshold,
                    std::max<int64_t>(options.edge_items, 1));
  std::string out;
  if (!internal::VisitElementType(tensor.dtype(), [&]<typename T>() {
        out = renderer.Render<T>();
      })) {
    return absl::StrCat("<", DataTypeString(tensor.dtype()), " values>");
  }
  return out;
}

}  // namespace dfx::cli
