// The algorithm core is C; include it with C linkage.
#pragma once

extern "C" {
#include "ctrl.h"
#include "pause.h"
}
