//===- Launch.cpp - Ranks of a multi-process of-run job -------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "Launch.h"
#include "RunFlags.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <filesystem>

using namespace ofrun;

namespace {

/// The integer in environment variable `name`, nullopt if unset.
absl::StatusOr<std::optional<int>> intFromEnv(const char *name) {
  const char *text = std::getenv(name);
  if (!text)
    return std::nullopt;
  char *end = nullptr;
  long value = std::strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || value < 0 || value > 1 << 20)
    return absl::InvalidArgumentError(std::string("environment variable ") +
                                      name + "='" + text +
                                      "' is not a rank or a size");
  return static_cast<int>(value);
}

} // namespace

absl::StatusOr<std::optional<ProcessRank>> ofrun::rankFromEnvironment() {
  struct Source {
    const char *rank, *world, *launcher;
  };
  const Source sources[] = {{"OF_RANK", "OF_WORLD_SIZE", "of-run"},
                            {"RANK", "WORLD_SIZE", "torchrun"},
                            {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
                             "mpirun"},
                            {"SLURM_PROCID", "SLURM_NTASKS", "srun"}};
  for (const Source &source : sources) {
    absl::StatusOr<std::optional<int>> rank = intFromEnv(source.rank);
    if (!rank.ok())
      return rank.status();
    if (!*rank)
      continue;
    absl::StatusOr<std::optional<int>> world = intFromEnv(source.world);
    if (!world.ok())
      return world.status();
    if (!*world)
      return absl::InvalidArgumentError(
          std::string(source.rank) + " is set but " + source.world +
          " is not (" + source.launcher + " sets both)");
    if (**rank >= **world)
      return absl::InvalidArgumentError(
          std::string(source.rank) + "=" + std::to_string(**rank) +
          " is not below " + source.world + "=" + std::to_string(**world));
    ProcessRank result{**rank, **world, source.launcher, ""};
    if (const char *dir = std::getenv("OF_STORE_DIR"))
      result.storeDir = dir;
    return std::optional<ProcessRank>(result);
  }
  return std::nullopt;
}

std::vector<std::string> ofrun::normalizeFlagNames(int argc, char **argv) {
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

int ofrun::launchProcesses(int processes, const std::vector<std::string> &args) {
  char dirTemplate[] = "/tmp/of-run-store-XXXXXX";
  if (!mkdtemp(dirTemplate)) {
    std::fprintf(stderr, "%s: error: cannot create a store directory: %s\n",
                 programName(), std::strerror(errno));
    return 1;
  }
  std::string storeDir = dirTemplate;
  std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  std::vector<pid_t> children;
  for (int rank = 0; rank < processes; ++rank) {
    pid_t pid = fork();
    if (pid < 0) {
      std::fprintf(stderr, "%s: error: cannot start rank %d: %s\n",
                   programName(), rank, std::strerror(errno));
      break;
    }
    if (pid == 0) {
      setenv("OF_RANK", std::to_string(rank).c_str(), 1);
      setenv("OF_WORLD_SIZE", std::to_string(processes).c_str(), 1);
      setenv("OF_STORE_DIR", storeDir.c_str(), 1);
      std::vector<char *> argv{const_cast<char *>(self.c_str())};
      for (const std::string &arg : args)
        argv.push_back(const_cast<char *>(arg.c_str()));
      argv.push_back(nullptr);
      execv(self.c_str(), argv.data());
      std::fprintf(stderr, "%s: error: cannot run %s: %s\n", programName(),
                   self.c_str(), std::strerror(errno));
      _exit(127);
    }
    children.push_back(pid);
  }
  std::vector<int> failed;
  for (size_t rank = 0; rank < children.size(); ++rank) {
    int status = 0;
    if (waitpid(children[rank], &status, 0) < 0 || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
      failed.push_back(rank);
  }
  std::error_code ignored;
  std::filesystem::remove_all(storeDir, ignored);
  if (children.size() != static_cast<size_t>(processes) || !failed.empty()) {
    std::string ranks;
    for (int rank : failed)
      ranks += (ranks.empty() ? "" : ", ") + std::to_string(rank);
    std::fprintf(stderr, "%s: error: %zu of %d ranks failed%s%s\n",
                 programName(),
                 failed.size() + (processes - children.size()), processes,
                 ranks.empty() ? "" : ": ", ranks.c_str());
    return 1;
  }
  return 0;
}
