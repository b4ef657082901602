// IteratorState, and the defaults and helpers of iterator save/restore.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/data/dataset.h"
#include "kernels/data/state_util.h"

namespace dfx::data {
namespace {

// What IteratorBase's defaults answer; SaveIterator and RestoreIterator
// replace it with an error that names the dataset.
constexpr char kUnsupportedMarker[] = "iterator state is not supported";

std::string Key(absl::string_view prefix, absl::string_view name) {
  return absl::StrCat(prefix, "/", name);
}

// "ShuffleDataset" of "ShuffleDataset(buffer_size=10)".
std::string OpNameOf(const DatasetBase& dataset) {
  std::string name = dataset.DebugString();
  const size_t paren = name.find('(');
  if (paren != std::string::npos) name.resize(paren);
  return name;
}

}  // namespace

void IteratorState::WriteInt(absl::string_view prefix, absl::string_view name,
                             int64_t value) {
  entries_[Key(prefix, name)] = Tensor::Scalar<int64_t>(value);
}

void IteratorState::WriteString(absl::string_view prefix,
                                absl::string_view name, std::string value) {
  entries_[Key(prefix, name)] = Tensor::Scalar<std::string>(std::move(value));
}

void IteratorState::WriteTensor(absl::string_view prefix,
                                absl::string_view name, Tensor value) {
  entries_[Key(prefix, name)] = std::move(value);
}

void IteratorState::WriteElement(absl::string_view prefix,
                                 absl::string_view name,
                                 const std::vector<Tensor>& element) {
  const std::string key = Key(prefix, name);
  WriteInt(key, "size", static_cast<int64_t>(element.size()));
  for (size_t i = 0; i < element.size(); ++i) {
    WriteTensor(key, absl::StrCat(i), element[i]);
  }
}

bool IteratorState::Contains(absl::string_view prefix,
                             absl::string_view name) const {
  return entries_.contains(Key(prefix, name));
}

absl::StatusOr<Tensor> IteratorState::ReadTensor(absl::string_view prefix,
                                                 absl::string_view name) const {
  auto it = entries_.find(Key(prefix, name));
  if (it == entries_.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the iterator state has no entry ", Key(prefix, name),
                     ": it was saved from another input pipeline"));
  }
  return it->second;
}

absl::StatusOr<int64_t> IteratorState::ReadInt(absl::string_view prefix,
                                               absl::string_view name) const {
  DFX_ASSIGN_OR_RETURN(Tensor t, ReadTensor(prefix, name));
  if (t.dtype() != DT_INT64 || t.dims() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("the iterator state's entry ", Key(prefix, name),
                     " is not an int64 scalar"));
  }
  return t.scalar<int64_t>();
}

absl::StatusOr<std::string> IteratorState::ReadString(
    absl::string_view prefix, absl::string_view name) const {
  DFX_ASSIGN_OR_RETURN(Tensor t, ReadTensor(prefix, name));
  if (t.dtype() != DT_STRING || t.dims() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("the iterator state's entry ", Key(prefix, name),
                     " is not a string scalar"));
  }
  return t.scalar<std::string>();
}

absl::StatusOr<std::vector<Tensor>> IteratorState::ReadElement(
    absl::string_view prefix, absl::string_view name) const {
  const std::string key = Key(prefix, name);
  DFX_ASSIGN_OR_RETURN(int64_t size, ReadInt(key, "size"));
  if (size < 0 || size > static_cast<int64_t>(entries_.size())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the iterator state's element ", key, " has ", size, " components"));
  }
  std::vector<Tensor> element;
  for (int64_t i = 0; i < size; ++i) {
    DFX_ASSIGN_OR_RETURN(Tensor t, ReadTensor(key, absl::StrCat(i)));
    element.push_back(std::move(t));
  }
  return element;
}

absl::Status IteratorBase::Save(const std::string&, IteratorState*) {
  return absl::UnimplementedError(kUnsupportedMarker);
}

absl::Status IteratorBase::Restore(IteratorContext*, const std::string&,
                                   const IteratorState&) {
  return absl::UnimplementedError(kUnsupportedMarker);
}

absl::Status SaveIterator(const DatasetBase& dataset, IteratorBase& it,
                          const std::string& prefix, IteratorState* state) {
  absl::Status s = it.Save(prefix, state);
  if (absl::IsUnimplemented(s) && s.message() == kUnsupportedMarker) {
    return absl::UnimplementedError(absl::StrCat(
        "Saving iterators of ", OpNameOf(dataset), " is not supported"));
  }
  return s;
}

absl::Status RestoreIterator(const DatasetBase& dataset, IteratorBase& it,
                             IteratorContext* ctx, const std::string& prefix,
                             const IteratorState& state) {
  absl::Status s = it.Restore(ctx, prefix, state);
  if (absl::IsUnimplemented(s) && s.message() == kUnsupportedMarker) {
    return absl::UnimplementedError(absl::StrCat(
        "Restoring iterators of ", OpNameOf(dataset), " is not supported"));
  }
  return s;
}

absl::Status SaveInput(const DatasetBase& input, IteratorBase* it,
                       const std::string& prefix, IteratorState* state) {
  if (it == nullptr) {
    state->WriteInt(prefix, "absent", 1);
    return absl::OkStatus();
  }
  return SaveIterator(input, *it, prefix, state);
}

absl::Status RestoreInput(IteratorContext* ctx, const DatasetBase& input,
                          std::unique_ptr<IteratorBase>* it,
                          const std::string& prefix,
                          const IteratorState& state) {
  if (state.Contains(prefix, "absent")) {
    it->reset();
    return absl::OkStatus();
  }
  // A fresh one: the iterator passed in may have been read or reset.
  DFX_ASSIGN_OR_RETURN(*it, input.MakeIterator(ctx));
  return RestoreIterator(input, **it, ctx, prefix, state);
}

absl::StatusOr<int64_t> ReadIntInRange(const IteratorState& state,
                                       absl::string_view prefix,
                                       absl::string_view name, int64_t lo,
                                       int64_t hi) {
  DFX_ASSIGN_OR_RETURN(int64_t value, state.ReadInt(prefix, name));
  if (value < lo || value > hi) {
    return absl::InvalidArgumentError(
        absl::StrCat("the iterator state's entry ", Key(prefix, name), " is ",
                     value, ", outside [", lo, ", ", hi, "]"));
  }
  return value;
}

void WriteElements(IteratorState* state, absl::string_view prefix,
                   absl::string_view name,
                   const std::vector<std::vector<Tensor>>& elements) {
  const std::string key = Key(prefix, name);
  state->WriteInt(key, "count", static_cast<int64_t>(elements.size()));
  for (size_t i = 0; i < elements.size(); ++i) {
    state->WriteElement(key, absl::StrCat("[", i, "]"), elements[i]);
  }
}

absl::StatusOr<std::vector<std::vector<Tensor>>> ReadElements(
    const IteratorState& state, absl::string_view prefix,
    absl::string_view name) {
  const std::string key = Key(prefix, name);
  // Each element takes at least one entry (its size).
  DFX_ASSIGN_OR_RETURN(
      int64_t count,
      ReadIntInRange(state, key, "count", 0,
                     static_cast<int64_t>(state.entries().size())));
  std::vector<std::vector<Tensor>> elements;
  elements.reserve(count);
  for (int64_t i = 0; i < count; ++i) {
    DFX_ASSIGN_OR_RETURN(std::vector<Tensor> e,
                         state.ReadElement(key, absl::StrCat("[", i, "]")));
    elements.push_back(std::move(e));
  }
  return elements;
}

void WriteStatus(IteratorState* state, absl::string_view prefix,
                 absl::string_view name, const absl::Status& status) {
  const std::string key = Key(prefix, name);
  state->WriteInt(key, "code", static_cast<int64_t>(status.code()));
  if (!status.ok())
    state->WriteString(key, "message", std::string(status.message()));
}

absl::Status ReadStatus(const IteratorState& state, absl::string_view prefix,
                        absl::string_view name, absl::Status* status) {
  const std::string key = Key(prefix, name);
  DFX_ASSIGN_OR_RETURN(int64_t code, ReadIntInRange(state, key, "code", 0, 16));
  if (code == 0) {
    *status = absl::OkStatus();
    return absl::OkStatus();
  }
  DFX_ASSIGN_OR_RETURN(std::string message, state.ReadString(key, "message"));
  *status = absl::Status(static_cast<absl::StatusCode>(code), message);
  return absl::OkStatus();
}

}  // namespace dfx::data
