# The source lists that more than one build compiles: the main build
# (CMakeLists.txt, daemon/CMakeLists.txt, the tc plugin) and the fuzz
# project (tests/fuzz, a build of its own with clang). One list per
# library, here only, so that a new file is one line for all of them.
# The includer sets LL_SOURCE_ROOT to the tree's top.

# The freestanding core (kernel/core), also compiled into the module
# (kernel/Kbuild) and BPF programs (bpf/).
set(LL_CORE_SOURCES
  ${LL_SOURCE_ROOT}/kernel/core/pfc.c ${LL_SOURCE_ROOT}/kernel/core/ctrl.c
  ${LL_SOURCE_ROOT}/kernel/core/pause.c
  ${LL_SOURCE_ROOT}/kernel/core/mmu.c ${LL_SOURCE_ROOT}/kernel/core/headroom.c
  ${LL_SOURCE_ROOT}/kernel/core/shaper.c ${LL_SOURCE_ROOT}/kernel/core/watchdog.c
  ${LL_SOURCE_ROOT}/kernel/core/scheme.c ${LL_SOURCE_ROOT}/kernel/core/scheme_dt.c
  ${LL_SOURCE_ROOT}/kernel/core/scheme_st.c ${LL_SOURCE_ROOT}/kernel/core/scheme_dsh.c
  ${LL_SOURCE_ROOT}/kernel/core/scheme_spfc.c ${LL_SOURCE_ROOT}/kernel/core/scheme_portfc.c
  ${LL_SOURCE_ROOT}/kernel/core/bifrost.c
  ${LL_SOURCE_ROOT}/kernel/core/mode.c ${LL_SOURCE_ROOT}/kernel/core/mode_bifrost.c
  ${LL_SOURCE_ROOT}/kernel/core/pcn.c ${LL_SOURCE_ROOT}/kernel/core/dcqcn.c
  ${LL_SOURCE_ROOT}/kernel/core/cnp.c ${LL_SOURCE_ROOT}/kernel/core/portfc.c)

# The policies (daemon/policy): one file per scheme, scheme_<name>.cpp.
set(LL_POLICY_SOURCES
  ${LL_SOURCE_ROOT}/daemon/policy/pfc_policy.cpp ${LL_SOURCE_ROOT}/daemon/policy/registry.cpp
  ${LL_SOURCE_ROOT}/daemon/policy/mode_policy.cpp ${LL_SOURCE_ROOT}/daemon/policy/ownership.cpp
  ${LL_SOURCE_ROOT}/daemon/policy/spfc_slow.cpp ${LL_SOURCE_ROOT}/daemon/policy/scheme_dt.cpp
  ${LL_SOURCE_ROOT}/daemon/policy/scheme_st.cpp ${LL_SOURCE_ROOT}/daemon/policy/scheme_dsh.cpp
  ${LL_SOURCE_ROOT}/daemon/policy/scheme_spfc.cpp ${LL_SOURCE_ROOT}/daemon/policy/scheme_portfc.cpp)

# The hosts' congestion control parameters without BPF (daemon/cc:
# ll_cc_params), which the configuration loader's [host_cc] uses.
set(LL_CC_PARAMS_SOURCES ${LL_SOURCE_ROOT}/daemon/cc/cc_params.cpp)

# PortFC's pure policy (daemon/portfc/portfc_policy.h: sizing, queues,
# the stuck detector), without BPF: the configuration loader's [portfc].
set(LL_PORTFC_POLICY_SOURCES ${LL_SOURCE_ROOT}/daemon/portfc/portfc_policy.cpp)

# The configuration loader (daemon/config), one file per section.
set(LL_CONFIG_SOURCES
  ${LL_SOURCE_ROOT}/daemon/config/config.cpp ${LL_SOURCE_ROOT}/daemon/config/config_daemon.cpp
  ${LL_SOURCE_ROOT}/daemon/config/config_pool.cpp
  ${LL_SOURCE_ROOT}/daemon/config/config_watchdog.cpp
  ${LL_SOURCE_ROOT}/daemon/config/config_port.cpp
  ${LL_SOURCE_ROOT}/daemon/config/config_host_cc.cpp
  ${LL_SOURCE_ROOT}/daemon/config/config_portfc.cpp)
