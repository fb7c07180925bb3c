// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// What main.cpp's sandbox environment provides to the tests.
#pragma once

#include <string>

namespace lltest {

// A bpffs mount private to this test process ("" when not root).
const std::string &bpffs_dir();

}  // namespace lltest
