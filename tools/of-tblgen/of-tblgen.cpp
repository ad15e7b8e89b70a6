//===- of-tblgen.cpp - Kernel parameters from the op definitions ----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A TableGen backend over a dialect's ODS (the oneflow dialect's, or a
// plugin's). With -gen-kernel-params it writes, for every op of the dialect,
// a struct `<namespace>::<OpClass>` with one typed field per attribute the
// plan carries (named as in ODS, in the plan's C++ type) and a `read` that
// fills it from an ofrt::OpDesc, with the op's defaults; and `kOps`, every
// op's name (ofrt/KernelParams.h.inc for ours). Kernels read their
// parameters through these structs, so that one reading an attribute the op
// does not declare, or with another type, fails to compile. The output is
// plain C++: the runtime still links no MLIR.
//
//===----------------------------------------------------------------------===//

#include "mlir/TableGen/Attribute.h"
#include "mlir/TableGen/Operator.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/TableGen/Main.h"
#include "llvm/TableGen/Record.h"

#include <optional>
#include <string>

using namespace llvm;
namespace tblgen = mlir::tblgen;

static cl::opt<bool> genKernelParams(
    "gen-kernel-params",
    cl::desc("Generate the runtime's typed kernel parameters"));
static cl::opt<std::string>
    dialectName("dialect", cl::desc("The dialect whose ops to generate"),
                cl::init("oneflow"));
static cl::opt<std::string>
    outputNamespace("namespace",
                    cl::desc("The C++ namespace of the generated structs"),
                    cl::init("ofrt::params"));

/// The C++ type a plan gives an attribute of storage `storage` (PlanExport's
/// convertAttr), or none for those kernels read otherwise (tensors,
/// initializers, enums: their OpDesc value).
static std::optional<StringRef> planType(const tblgen::Attribute &attr) {
  if (attr.isEnumAttr() || attr.isTypeAttr() || attr.isSymbolRefAttr())
    return std::nullopt;
  StringRef storage = attr.getStorageType();
  if (storage == "::mlir::BoolAttr" || storage == "::mlir::UnitAttr")
    return StringRef("bool");
  if (storage == "::mlir::IntegerAttr")
    return StringRef("int64_t");
  if (storage == "::mlir::FloatAttr")
    return StringRef("double");
  if (storage == "::mlir::StringAttr")
    return StringRef("std::string");
  if (storage == "::mlir::DenseI64ArrayAttr")
    return StringRef("std::vector<int64_t>");
  if (storage == "::mlir::DenseF64ArrayAttr")
    return StringRef("std::vector<double>");
  if (storage == "::mlir::ArrayAttr" &&
      attr.getBaseAttr().getAttrDefName() == "StrArrayAttr")
    return StringRef("std::vector<std::string>");
  return std::nullopt;
}

/// `attr`'s value when absent from a plan, as a C++ expression of `type`;
/// none when it is required.
static std::optional<std::string> fallbackOf(const tblgen::Attribute &attr,
                                             StringRef type) {
  if (attr.getStorageType() == "::mlir::UnitAttr")
    return std::string("false");
  if (!attr.hasDefaultValue())
    return std::nullopt;
  StringRef value = attr.getDefaultValue().trim();
  if (value.starts_with("{"))
    return (type + value).str();
  return (type + "(" + value + ")").str();
}

static void emitOp(const tblgen::Operator &op, raw_ostream &os) {
  StringRef name = op.getCppClassName();
  os << formatv("/// {0}: the attributes of {1} a kernel reads.\n",
                op.getOperationName(), name);
  os << "struct " << name << " {\n";
  os << formatv("  static constexpr const char *kOpName = \"{0}\";\n",
                op.getOperationName());
  std::string reads, skipped;
  for (const tblgen::NamedAttribute &named : op.getAttributes()) {
    const tblgen::Attribute &attr = named.attr;
    if (attr.isDerivedAttr())
      continue;
    std::optional<StringRef> type = planType(attr);
    if (!type) {
      skipped += (" " + named.name).str();
      continue;
    }
    // Optional attributes without a default: the field says whether the
    // plan holds one.
    bool maybe = attr.isOptional() && !attr.hasDefaultValue() &&
                 attr.getStorageType() != "::mlir::UnitAttr";
    std::optional<std::string> fallback = fallbackOf(attr, *type);
    if (maybe) {
      os << formatv("  std::optional<{0}> {1};\n", *type, named.name);
      reads += formatv("    if (op.has(\"{0}\")) {{\n"
                       "      {1} value{{};\n"
                       "      if (::absl::Status s = ::ofrt::readAttr(op, "
                       "\"{0}\", value); !s.ok())\n"
                       "        return s;\n"
                       "      p.{0} = std::move(value);\n"
                       "    }\n",
                       named.name, *type);
      continue;
    }
    os << formatv("  {0} {1}{{};\n", *type, named.name);
    reads += formatv("    if (::absl::Status s = ::ofrt::readAttr<{0}>(op, "
                     "\"{1}\", p.{1}{2}); !s.ok())\n      return s;\n",
                     *type, named.name,
                     fallback ? ", " + *fallback : std::string());
  }
  if (!skipped.empty())
    os << "  // Read from the OpDesc:" << skipped << ".\n";
  os << "  /// Reads every attribute above from `op`: a required one that is\n"
        "  /// missing, or one of another type, is an error naming the op.\n";
  os << formatv("  static ::absl::StatusOr<{0}> read(const ::ofrt::OpDesc &op) "
                "{{\n",
                name);
  os << "    " << name << " p;\n" << reads << "    return p;\n  }\n};\n\n";
}

static bool emitKernelParams(raw_ostream &os, const RecordKeeper &records) {
  os << "// Generated by of-tblgen -gen-kernel-params from the " << dialectName
     << " dialect's op definitions. Do not edit.\n\n";
  os << "namespace " << outputNamespace << " {\n\n";
  std::vector<std::string> names;
  for (const Record *def : records.getAllDerivedDefinitions("Op")) {
    tblgen::Operator op(def);
    if (op.getDialectName() != dialectName)
      continue;
    emitOp(op, os);
    names.push_back(op.getOperationName());
  }
  if (names.empty()) {
    errs() << "of-tblgen: error: no op of dialect '" << dialectName
           << "' in the input\n";
    return true;
  }
  os << "/// Every op of the dialect, by name.\n";
  os << "inline constexpr const char *kOps[] = {\n";
  for (const std::string &name : names)
    os << "    \"" << name << "\",\n";
  os << "};\n\n} // namespace " << outputNamespace << "\n";
  return false;
}

int main(int argc, char **argv) {
  InitLLVM y(argc, argv);
  cl::ParseCommandLineOptions(argc, argv);
  if (!genKernelParams) {
    errs() << "of-tblgen: error: say what to generate (-gen-kernel-params)\n";
    return 1;
  }
  return TableGenMain(argv[0], &emitKernelParams);
}
