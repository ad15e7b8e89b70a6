# -*- Python -*-
# lit configuration that runs the GoogleTest binaries in unittests/bin, so
# that one lit run reports IR and unit tests together.

import lit.formats

config.name = "OneFlow-Unit"
config.suffixes = []
config.test_source_root = config.oneflow_unittests_dir
config.test_exec_root = config.oneflow_unittests_dir
config.test_format = lit.formats.GoogleTest(".", "Tests")
