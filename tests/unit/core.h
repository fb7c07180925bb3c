// The algorithm core is C; include it with C linkage.
#pragma once

extern "C" {
#include "pfc.h"
#include "pause.h"
}
