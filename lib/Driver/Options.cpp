//===- Options.cpp - Parsing what the options spell as text ---------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofdriver/Options.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

#include <cstdlib>

using namespace ofdriver;
using ofrt::InputSource;

static const char *currentProgram = "of-run";

const char *ofdriver::programName() { return currentProgram; }
void ofdriver::setProgramName(const char *name) { currentProgram = name; }

absl::StatusOr<InputSource> ofdriver::parseInputSource(const std::string &spec) {
  InputSource source;
  auto number = [&](const std::string &text,
                    double &out) -> absl::Status {
    char *end = nullptr;
    out = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0')
      return absl::InvalidArgumentError("'" + text + "' in input source '" +
                                        spec + "' is not a number");
    return absl::OkStatus();
  };
  if (!spec.empty() && spec[0] == '@') {
    source.kind = InputSource::Kind::File;
    absl::string_view path = absl::string_view(spec).substr(1);
    source.loop = path.size() > 5 && absl::ConsumeSuffix(&path, ":loop");
    source.path = std::string(path);
    return source;
  }
  if (absl::StartsWith(spec, "fill:")) {
    source.kind = InputSource::Kind::Fill;
    if (absl::Status s = number(spec.substr(5), source.value); !s.ok())
      return s;
    return source;
  }
  if (spec == "random")
    return source;
  if (absl::StartsWith(spec, "random:")) {
    std::string rest = spec.substr(7);
    size_t colon = rest.find(':');
    if (colon == std::string::npos)
      return absl::InvalidArgumentError("input source '" + spec +
                                        "' needs random:LOW:HIGH");
    if (absl::Status s = number(rest.substr(0, colon), source.low); !s.ok())
      return s;
    if (absl::Status s = number(rest.substr(colon + 1), source.high); !s.ok())
      return s;
    if (!(source.low < source.high))
      return absl::InvalidArgumentError("input source '" + spec +
                                        "' needs LOW below HIGH");
    return source;
  }
  return absl::InvalidArgumentError(
      "unknown input source '" + spec +
      "'; use random, random:LOW:HIGH, fill:VALUE, @FILE or @FILE:loop");
}

absl::StatusOr<Mesh> ofdriver::parseMesh(const std::string &text,
                                         int64_t ranks, const std::string &flag,
                                         const std::string &ranksFlag) {
  Mesh mesh;
  mesh.oldSpelling = text.find(',') != std::string::npos;
  int64_t product = 1;
  for (absl::string_view part :
       absl::StrSplit(text, mesh.oldSpelling ? ',' : 'x')) {
    int64_t size = 0;
    // At most 4096 a size and 5 axes: the product fits in 64 bits.
    if (!absl::SimpleAtoi(part, &size) || size < 1 || size > 4096 ||
        mesh.sizes.size() == 5)
      return absl::InvalidArgumentError(
          flag + " '" + text + "' is not sizes joined by x, as 2x2");
    mesh.sizes.push_back(size);
    product *= size;
  }
  if (product != ranks)
    return absl::InvalidArgumentError(
        flag + " " + text + " has " + std::to_string(product) +
        " devices but " + ranksFlag + " gives " + std::to_string(ranks));
  return mesh;
}

std::string ofdriver::meshNote(const std::string &text, const Mesh &mesh,
                               const std::string &flag) {
  if (!mesh.oldSpelling)
    return "";
  std::string spelled;
  for (int64_t size : mesh.sizes)
    spelled += (spelled.empty() ? "" : "x") + std::to_string(size);
  return std::string(programName()) + ": note: " + flag + " " + text +
         " is the old spelling; write " + spelled + "\n";
}

absl::StatusOr<std::map<std::string, InputSource>>
ofdriver::parseInputs(const std::vector<std::string> &bindings) {
  std::map<std::string, InputSource> inputs;
  for (const std::string &binding : bindings) {
    size_t eq = binding.find('=');
    if (eq == std::string::npos || eq == 0)
      return absl::InvalidArgumentError("--input '" + binding +
                                        "' is not NAME=SOURCE");
    absl::StatusOr<InputSource> source = parseInputSource(binding.substr(eq + 1));
    if (!source.ok())
      return source.status();
    inputs[binding.substr(0, eq)] = *source;
  }
  return inputs;
}
