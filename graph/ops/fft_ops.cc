// Complex-number ops (Complex, Real, Imag, ComplexAbs, Angle, Conj) and the
// FFT family (FFT, IFFT, RFFT, IRFFT in 1, 2 and 3 dimensions) with their
// shape functions. Signatures follow TensorFlow 2.21.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

constexpr char kTcomplex[] =
    "Tcomplex: {complex64, complex128} = DT_COMPLEX64";
constexpr char kTreal[] = "Treal: {float, double} = DT_FLOAT";

// The part-extracting ops: complex T in, real Tout out, same shape.
absl::Status RegisterComplexToReal(OpRegistry* registry, const char* name,
                                   const char* in, const char* out) {
  return registry->Register(
      OpDefBuilder(name)
          .Input(absl::StrCat(in, ": T"))
          .Output(absl::StrCat(out, ": Tout"))
          .Attr("T: {complex64, complex128} = DT_COMPLEX64")
          .Attr("Tout: {float, double} = DT_FLOAT")
          .SetShapeFn(shape_fn::UnchangedShape));
}

// FFT, IFFT and their 2D/3D forms: the input must have at least `rank`
// dims; the output has its shape.
absl::Status ComplexFftShape(InferenceContext* c, int rank) {
  const PartialShape& in = c->input(0);
  if (in.RankKnown() && in.rank() < rank) {
    return c->Error(absl::StrCat("Shape must be at least rank ", rank,
                                 " but is rank ", in.rank()));
  }
  c->set_output(0, in);
  return absl::OkStatus();
}

// RFFT/IRFFT (forward true for RFFT): the innermost `rank` dims of the
// output come from fft_length when it is a constant (the last one
// fft_length/2+1 for RFFT), else are unknown.
absl::Status RealFftShape(InferenceContext* c, int rank, bool forward) {
  const PartialShape& in = c->input(0);
  if (in.RankKnown() && in.rank() < rank) {
    return c->Error(absl::StrCat("Shape must be at least rank ", rank,
                                 " but is rank ", in.rank()));
  }
  const PartialShape& len = c->input(1);
  DFX_RETURN_IF_ERROR(c->WithRank(len, 1));
  if (len.RankKnown() && len.dims[0] >= 0 && len.dims[0] != rank) {
    return c->Error(absl::StrCat("Dimension must be ", rank, " but is ",
                                 len.dims[0]));
  }
  if (!in.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  PartialShape out = in;
  std::vector<int64_t> lengths;
  const bool known = ConstantInts(c->input_tensor(1), &lengths) &&
                     static_cast<int>(lengths.size()) == rank;
  for (int i = 0; i < rank; ++i) {
    int64_t& d = out.dims[out.rank() - rank + i];
    if (!known) {
      d = -1;
    } else if (forward && i == rank - 1) {
      d = lengths[i] == 0 ? 0 : lengths[i] / 2 + 1;
    } else {
      d = lengths[i];
    }
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterFftOps(OpRegistry* registry) {
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("Complex")
          .Input("real: T")
          .Input("imag: T")
          .Output("out: Tout")
          .Attr("T: {float, double} = DT_FLOAT")
          .Attr("Tout: {complex64, complex128} = DT_COMPLEX64")
          .SetShapeFn(shape_fn::BroadcastBinaryOp)));
  DFX_RETURN_IF_ERROR(
      RegisterComplexToReal(registry, "Real", "input", "output"));
  DFX_RETURN_IF_ERROR(
      RegisterComplexToReal(registry, "Imag", "input", "output"));
  DFX_RETURN_IF_ERROR(
      RegisterComplexToReal(registry, "Angle", "input", "output"));
  DFX_RETURN_IF_ERROR(RegisterComplexToReal(registry, "ComplexAbs", "x", "y"));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("Conj")
          .Input("input: T")
          .Output("output: T")
          .Attr("T: {complex64, complex128, variant} = DT_COMPLEX64")
          .SetShapeFn(shape_fn::UnchangedShape)));

  const char* const suffixes[] = {"", "2D", "3D"};
  for (int rank = 1; rank <= 3; ++rank) {
    const std::string suffix = suffixes[rank - 1];
    for (const char* base : {"FFT", "IFFT"}) {
      DFX_RETURN_IF_ERROR(registry->Register(
          OpDefBuilder(absl::StrCat(base, suffix))
              .Input("input: Tcomplex")
              .Output("output: Tcomplex")
              .Attr(kTcomplex)
              .SetShapeFn([rank](InferenceContext* c) {
                return ComplexFftShape(c, rank);
              })));
    }
    DFX_RETURN_IF_ERROR(registry->Register(
        OpDefBuilder(absl::StrCat("RFFT", suffix))
            .Input("input: Treal")
            .Input("fft_length: int32")
            .Output("output: Tcomplex")
            .Attr(kTreal)
            .Attr(kTcomplex)
            .SetShapeFn([rank](InferenceContext* c) {
              return RealFftShape(c, rank, /*forward=*/true);
            })));
    DFX_RETURN_IF_ERROR(registry->Register(
        OpDefBuilder(absl::StrCat("IRFFT", suffix))
            .Input("input: Tcomplex")
            .Input("fft_length: int32")
            .Output("output: Treal")
            .Attr(kTreal)
            .Attr(kTcomplex)
            .SetShapeFn([rank](InferenceContext* c) {
              return RealFftShape(c, rank, /*forward=*/false);
            })));
  }
  return absl::OkStatus();
}

}  // namespace dfx
