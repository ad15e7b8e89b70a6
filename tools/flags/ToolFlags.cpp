//===- ToolFlags.cpp - Command lines of the tools that use Abseil ---------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ToolFlags.h"

#include "absl/flags/commandlineflag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

using namespace oftools;

std::vector<std::string> oftools::normalizeFlagNames(int argc, char **argv) {
  std::vector<std::string> args;
  std::optional<size_t> firstInput;
  bool flags = true;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--")
      flags = false;
    if (i > 0 && flags && arg.size() > 2 && arg.compare(0, 2, "--") == 0) {
      size_t end = std::min(arg.find('='), arg.size());
      for (size_t c = 2; c < end; ++c)
        if (arg[c] == '-')
          arg[c] = '_';
    }
    bool isInput = flags && i > 0 && (arg == "--input" || arg == "-input");
    if (isInput && i + 1 < argc) {
      arg = "--input=" + std::string(argv[++i]);
    } else if (flags && i > 0 && arg.rfind("-input=", 0) == 0) {
      arg = "-" + arg;
    }
    if (flags && i > 0 && arg.rfind("--input=", 0) == 0) {
      if (firstInput) {
        args[*firstInput] += "," + arg.substr(8);
        continue;
      }
      firstInput = args.size();
    }
    args.push_back(arg);
  }
  return args;
}

namespace {

std::string dashed(std::string name) {
  std::replace(name.begin(), name.end(), '_', '-');
  return name;
}

/// "--name=N", "--name=TEXT", or "--name" for a switch.
std::string synopsis(const absl::CommandLineFlag &flag) {
  std::string name = "--" + dashed(std::string(flag.Name()));
  if (flag.IsOfType<bool>())
    return name;
  if (flag.IsOfType<double>())
    return name + "=X";
  if (flag.IsOfType<std::string>())
    return name + "=TEXT";
  if (flag.IsOfType<std::vector<std::string>>())
    return name + "=VALUE[,VALUE...]";
  return name + "=N";
}

/// `text` wrapped at 79 columns, each line indented by `indent` spaces.
std::string wrap(const std::string &text, size_t indent) {
  std::string out, line;
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    if (!line.empty() && indent + line.size() + 1 + word.size() > 79) {
      out += std::string(indent, ' ') + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + std::string(word);
  }
  if (!line.empty())
    out += std::string(indent, ' ') + line + "\n";
  return out;
}

void describe(const absl::CommandLineFlag &flag, std::string &out) {
  out += "  " + synopsis(flag) + "\n";
  std::string help = flag.Help();
  std::string fallback = flag.DefaultValue();
  if (!fallback.empty() && !(flag.IsOfType<bool>() && fallback == "false"))
    help += " (default: " + fallback + ")";
  out += wrap(help, 6);
}

} // namespace

std::string oftools::helpText(const ToolInfo &tool) {
  std::map<std::string, const absl::CommandLineFlag *> ours;
  for (const auto &[name, flag] : absl::GetAllFlags())
    if (!flag->IsRetired() && !absl::StrContains(flag->Filename(), "absl/"))
      ours[std::string(name)] = flag;
  std::string out = wrap(std::string(tool.name) + ": " + tool.about, 0) +
                    "\nUsage: " + tool.usage + "\n";
  std::set<std::string> shown;
  auto section = [&](const std::string &title,
                     const std::vector<std::string> &names) {
    std::string body;
    for (const std::string &name : names) {
      auto it = ours.find(name);
      if (it == ours.end() || !shown.insert(name).second)
        continue;
      describe(*it->second, body);
    }
    if (!body.empty())
      out += "\n" + title + ":\n" + body;
  };
  for (const FlagGroup &group : tool.groups)
    section(group.title, group.flags);
  std::vector<std::string> rest;
  for (const auto &[name, flag] : ours)
    rest.push_back(name);
  section("Other flags", rest);
  out += "\nHelp:\n  --help\n      This text.\n  --version\n      The "
         "version and build type.\n\nFlags are written with dashes or "
         "underscores alike (--print-limit, --print_limit).\n";
  return out;
}

std::string oftools::versionText(const ToolInfo &tool) {
  return std::string(tool.name) + " " + ONEFLOW_VERSION + " (" +
         ONEFLOW_BUILD_TYPE + " build)\n";
}

std::vector<std::string>
oftools::parseToolFlags(int argc, char **argv, const ToolInfo &tool,
                        std::vector<std::string> &normalized) {
  absl::SetProgramUsageMessage(std::string(tool.about) +
                               "\nUsage: " + tool.usage);
  normalized = normalizeFlagNames(argc, argv);
  for (size_t i = 1; i < normalized.size() && normalized[i] != "--"; ++i) {
    const std::string &arg = normalized[i];
    if (arg == "--help" || arg == "-help" || arg == "-h" ||
        arg == "--helpfull") {
      std::fputs(helpText(tool).c_str(), stdout);
      std::exit(0);
    }
    if (arg == "--version" || arg == "-version") {
      std::fputs(versionText(tool).c_str(), stdout);
      std::exit(0);
    }
  }
  // An empty string is each string flag's "not given": one given empty is
  // a mistake (an unset shell variable), not a choice.
  for (size_t i = 1; i < normalized.size() && normalized[i] != "--"; ++i) {
    const std::string &arg = normalized[i];
    size_t dashes = arg.rfind("--", 0) == 0 ? 2 : arg.rfind("-", 0) == 0;
    if (dashes == 0)
      continue;
    size_t eq = arg.find('=');
    std::string name = arg.substr(dashes, eq == std::string::npos
                                              ? std::string::npos
                                              : eq - dashes);
    const absl::CommandLineFlag *flag = absl::FindCommandLineFlag(name);
    if (!flag || !(flag->IsOfType<std::string>() ||
                   flag->IsOfType<std::vector<std::string>>()))
      continue;
    bool empty = eq != std::string::npos
                     ? eq + 1 == arg.size()
                     : i + 1 < normalized.size() && normalized[i + 1].empty();
    if (empty) {
      std::fprintf(stderr,
                   "%s: error: --%s is given an empty value; leave the flag "
                   "out for its default\n",
                   tool.name, dashed(name).c_str());
      std::exit(1);
    }
  }
  std::vector<char *> pointers;
  for (std::string &arg : normalized)
    pointers.push_back(arg.data());
  std::vector<char *> positional =
      absl::ParseCommandLine(pointers.size(), pointers.data());
  return std::vector<std::string>(positional.begin(), positional.end());
}
