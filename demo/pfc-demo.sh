#!/usr/bin/env bash
# Runs inside the VM (make demo): load the module, run the PFC demo, then
# the incast through a lossless switch next to a FIFO switch.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
export LL_BUILD_DIR=${LL_BUILD_DIR:-$top/build}
export TC_LIB_DIR=$LL_BUILD_DIR/tc-plugins
for m in veth bridge sch_ingress cls_bpf sch_tbf; do modprobe "$m"; done
insmod "$top/kernel/sch_lossless.ko"
"$top/demo/pfc_demo.py"
"$top/demo/incast_demo.py"
