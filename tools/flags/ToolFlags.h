//===- ToolFlags.h - Command lines of the tools that use Abseil -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// of-run, of-run-plan and of-check read their flags with Abseil. This
// library gives them one command-line convention: flags are written with
// dashes (--nproc-per-node) or underscores (--nproc_per_node) alike,
// --help lists every flag of the tool in its groups with dashes and exits
// 0, and --version prints the version and the build type.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_TOOLS_FLAGS_TOOLFLAGS_H
#define ONEFLOW_TOOLS_FLAGS_TOOLFLAGS_H

#include <string>
#include <vector>

namespace oftools {

/// A heading of --help and the flags under it (names as declared, with
/// underscores).
struct FlagGroup {
  std::string title;
  std::vector<std::string> flags;
};

/// How a tool presents itself.
struct ToolInfo {
  const char *name;  ///< "of-run"
  const char *about; ///< One line: what it does.
  const char *usage; ///< "of-run MODEL [flags]"
  std::vector<FlagGroup> groups;
};

/// `argv` with every "--flag-name" spelled "--flag_name" (the part before
/// any '='), and with repeated --input flags joined into one
/// comma-separated --input at the first one's place (Abseil keeps only the
/// last of a repeated flag). Arguments after "--" stay as they are.
std::vector<std::string> normalizeFlagNames(int argc, char **argv);

/// Normalizes argv (kept in `normalized`), answers --help, -h, --helpfull
/// and --version (printing to stdout and exiting 0), and parses the flags
/// with Abseil; returns the positional arguments, the program first.
std::vector<std::string> parseToolFlags(int argc, char **argv,
                                        const ToolInfo &tool,
                                        std::vector<std::string> &normalized);

/// The text of --help: the tool's line and usage, then every flag it
/// defines, group by group (flags in no group under "Other flags"), each
/// with its type, default and help.
std::string helpText(const ToolInfo &tool);

/// "of-run 0.1.0 (Release build)".
std::string versionText(const ToolInfo &tool);

} // namespace oftools

#endif // ONEFLOW_TOOLS_FLAGS_TOOLFLAGS_H
