#!/usr/bin/env bash
# The BPF ingress tests (BPF_PROG_TEST_RUN and the veth end-to-end ones) on
# the VM's Debian 6.1 kernel: the host runs a much newer verifier, and the
# program must load on the oldest kernel the project supports.
set -euo pipefail
b=${LL_BUILD_DIR:?}/tests/bpf
"$b/ll_bpf_test" --gtest_brief=1
"$b/ll_bpf_e2e_test" --gtest_brief=1
