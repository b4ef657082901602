// A strict reader of Prometheus' text exposition format 0.0.4 for tests:
// checks the rules a scraper relies on and returns the samples.
#ifndef DFX_TESTS_TESTING_METRICS_TEXT_H_
#define DFX_TESTS_TESTING_METRICS_TEXT_H_

#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace dfx::testing {

struct MetricsText {
  // "name{a=\"x\",b=\"y\"}" (labels as written, escapes decoded) -> value.
  std::map<std::string, double> samples;
  // Family name -> "counter" | "gauge" | "histogram".
  std::map<std::string, std::string> types;

  // The sample's value, or NaN when absent.
  double Get(const std::string& series) const {
    auto it = samples.find(series);
    return it == samples.end() ? std::nan("") : it->second;
  }
};

namespace internal {

inline bool IsNameChar(char c, bool first, bool colon) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         (colon && c == ':') || (!first && c >= '0' && c <= '9');
}

inline absl::StatusOr<double> ParseValue(const std::string& v) {
  if (v == "+Inf") return HUGE_VAL;
  if (v == "-Inf") return -HUGE_VAL;
  if (v == "NaN") return std::nan("");
  double d = 0;
  if (!absl::SimpleAtod(v, &d)) {
    return absl::InvalidArgumentError(absl::StrCat("bad value '", v, "'"));
  }
  return d;
}

}  // namespace internal

// InvalidArgument naming the line for anything the format does not allow:
// a sample whose family has no TYPE line before it, TYPE or HELP twice,
// a bad name, label or escape, an unknown type, a histogram whose buckets
// are not cumulative or whose +Inf bucket is not its _count.
inline absl::StatusOr<MetricsText> ParseMetricsText(const std::string& text) {
  MetricsText out;
  std::set<std::string> helped;
  if (!text.empty() && text.back() != '\n') {
    return absl::InvalidArgumentError("the text does not end with a newline");
  }
  int n = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++n;
    if (line.empty()) continue;
    auto bad = [&](absl::string_view why) {
      return absl::InvalidArgumentError(
          absl::StrCat("line ", n, " '", line, "': ", why));
    };
    if (line[0] == '#') {
      std::vector<std::string> parts =
          absl::StrSplit(line, absl::MaxSplits(' ', 3));
      if (parts.size() < 3) continue;  // a comment
      if (parts[1] == "TYPE") {
        if (parts.size() != 4) return bad("TYPE needs a name and a type");
        if (out.types.count(parts[2])) return bad("a second TYPE");
        if (parts[3] != "counter" && parts[3] != "gauge" &&
            parts[3] != "histogram" && parts[3] != "summary" &&
            parts[3] != "untyped") {
          return bad("unknown type");
        }
        out.types[parts[2]] = parts[3];
      } else if (parts[1] == "HELP") {
        if (!helped.insert(parts[2]).second) return bad("a second HELP");
      }
      continue;
    }
    size_t i = 0;
    while (i < line.size() &&
           internal::IsNameChar(line[i], i == 0, /*colon=*/true)) {
      ++i;
    }
    if (i == 0) return bad("no metric name");
    const std::string name(line.substr(0, i));
    std::string series = name;
    if (i < line.size() && line[i] == '{') {
      series += '{';
      ++i;
      bool first = true;
      while (i < line.size() && line[i] != '}') {
        if (!first) {
          if (line[i] != ',') return bad("labels not separated by ','");
          ++i;
        }
        first = false;
        const size_t start = i;
        while (i < line.size() &&
               internal::IsNameChar(line[i], i == start, /*colon=*/false)) {
          ++i;
        }
        if (i == start) return bad("bad label name");
        const std::string label(line.substr(start, i - start));
        if (line.substr(i, 2) != "=\"") return bad("label without =\"");
        i += 2;
        std::string value;
        while (i < line.size() && line[i] != '"') {
          if (line[i] == '\\') {
            if (i + 1 >= line.size()) return bad("escape at the end");
            const char e = line[i + 1];
            if (e == '\\') value += '\\';
            else if (e == '"') value += '"';
            else if (e == 'n') value += '\n';
            else return bad("unknown escape");
            i += 2;
          } else if (line[i] == '\n') {
            return bad("raw newline in a label value");
          } else {
            value += line[i++];
          }
        }
        if (i >= line.size()) return bad("unterminated label value");
        ++i;
        absl::StrAppend(&series, series.back() == '{' ? "" : ",", label,
                        "=\"", value, "\"");
      }
      if (i >= line.size()) return bad("unterminated labels");
      ++i;
      series += '}';
    }
    if (i >= line.size() || line[i] != ' ') return bad("no space before value");
    const std::string value(line.substr(i + 1));
    absl::StatusOr<double> v = internal::ParseValue(value);
    if (!v.ok()) return bad(v.status().message());
    // The family: the name, or for a histogram its base name.
    std::string family = name;
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
      const std::string s(suffix);
      if (name.size() > s.size() &&
          name.compare(name.size() - s.size(), s.size(), s) == 0 &&
          out.types.count(name.substr(0, name.size() - s.size())) &&
          out.types[name.substr(0, name.size() - s.size())] == "histogram") {
        family = name.substr(0, name.size() - s.size());
      }
    }
    if (!out.types.count(family)) return bad("sample before its TYPE");
    if (out.types[family] == "histogram" && family == name) {
      return bad("a histogram sample without _bucket, _sum or _count");
    }
    if (!out.samples.emplace(series, *v).second) return bad("a second sample");
  }
  // Histograms: cumulative buckets ending in +Inf equal to _count.
  for (const auto& [family, type] : out.types) {
    if (type != "histogram") continue;
    std::map<std::string, std::map<double, double>> buckets;  // by labels
    for (const auto& [series, v] : out.samples) {
      const std::string prefix = family + "_bucket{";
      if (series.rfind(prefix, 0) != 0) continue;
      // The label "le", not one ending in it ("role").
      size_t le = series.find("{le=\"");
      if (le == std::string::npos) le = series.find(",le=\"");
      if (le != std::string::npos) ++le;
      if (le == std::string::npos) {
        return absl::InvalidArgumentError(series + ": a bucket without le");
      }
      const size_t end = series.find('"', le + 4);
      absl::StatusOr<double> bound =
          internal::ParseValue(series.substr(le + 4, end - le - 4));
      if (!bound.ok()) return bound.status();
      std::string rest = series.substr(prefix.size() - 1);
      rest.erase(le - prefix.size() + 1, end + 1 - le);
      buckets[rest][*bound] = v;
    }
    for (const auto& [labels, by_bound] : buckets) {
      double last = 0;
      for (const auto& [bound, count] : by_bound) {
        if (count < last) {
          return absl::InvalidArgumentError(
              absl::StrCat(family, labels, ": buckets not cumulative"));
        }
        last = count;
      }
      if (by_bound.empty() || !std::isinf(by_bound.rbegin()->first)) {
        return absl::InvalidArgumentError(
            absl::StrCat(family, labels, ": no +Inf bucket"));
      }
      std::string labels_clean = labels;
      // "{,...}" or "{}" left after taking le out.
      std::string l = labels_clean;
      if (l == "{}") l = "";
      for (size_t p; (p = l.find("{,")) != std::string::npos;) {
        l.erase(p + 1, 1);
      }
      for (size_t p; (p = l.find(",}")) != std::string::npos;) l.erase(p, 1);
      for (size_t p; (p = l.find(",,")) != std::string::npos;) l.erase(p, 1);
      const double count = out.Get(family + "_count" + l);
      if (count != by_bound.rbegin()->second) {
        return absl::InvalidArgumentError(absl::StrCat(
            family, l, ": _count is not the +Inf bucket"));
      }
      if (std::isnan(out.Get(family + "_sum" + l))) {
        return absl::InvalidArgumentError(absl::StrCat(family, l, ": no _sum"));
      }
    }
  }
  return out;
}

}  // namespace dfx::testing

#endif  // DFX_TESTS_TESTING_METRICS_TEXT_H_
