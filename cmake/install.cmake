# `make install`: what goes where (README.md "Installing"). Included last
# by the top-level CMakeLists.txt: the manifest rule at the end must run
# after every other install rule.
#
# The prefix is the one given at install time (`make install PREFIX=P`
# runs `cmake --install BUILD --prefix P`; default /usr/local), and
# $DESTDIR is prepended to everything. Under the prefix:
#
#   sbin/losslessd, sbin/losslessctl,    daemon/CMakeLists.txt
#   sbin/lossless-ingress,
#   sbin/lossless-cc
#   lib/lossless/lossless_ingress.bpf.o  the linked ingress program, for
#                                        bpftool or `tc filter ... bpf obj`;
#                                        losslessd and lossless-ingress do
#                                        not read it (their libbpf skeleton
#                                        carries the same object)
#   lib/systemd/system/losslessd.service from daemon/systemd/losslessd.service.in,
#                                        with this prefix's paths
#   lib/modules-load.d/sch_lossless.conf daemon/systemd/sch_lossless.conf:
#                                        systemd-modules-load loads the
#                                        module at boot
#   share/doc/lossless/                  README.md, docs/*.md, docs/img/*.png and
#                                        examples/losslessd.toml, host-cc.toml,
#                                        grafana-lossless.json
#   share/man/man8/*.8.gz                man/*.8 (tc-lossless, losslessd,
#                                        losslessctl, lossless-ingress,
#                                        lossless-cc),
#                                        gzip -9n as Debian policy has them
#   share/lossless/install_manifest.txt  every file this install wrote;
#                                        `make uninstall` removes them
#
# And outside it, where Debian's tc looks for plugins whatever the prefix:
#
#   TC_PLUGIN_INSTALL_DIR/q_lossless.so  tc-plugins/CMakeLists.txt
#
# A relative directory below is taken under the install prefix, an
# absolute one as it is.

set(LL_INSTALL_BPFDIR lib/lossless CACHE STRING
    "Where make install puts the BPF object (relative: under the prefix)")
set(LL_INSTALL_UNITDIR lib/systemd/system CACHE STRING
    "Where make install puts losslessd.service (relative: under the prefix; systemd reads /usr/lib/systemd/system, /usr/local/lib/systemd/system and /etc/systemd/system)")
set(LL_INSTALL_MODULESLOADDIR lib/modules-load.d CACHE STRING
    "Where make install puts sch_lossless.conf (relative: under the prefix; systemd-modules-load reads /usr/lib/modules-load.d, /usr/local/lib/modules-load.d and /etc/modules-load.d)")
set(LL_INSTALL_DOCDIR share/doc/lossless CACHE STRING
    "Where make install puts the documentation and the example configuration (relative: under the prefix)")
set(LL_INSTALL_MANDIR share/man CACHE STRING
    "Where make install puts the man pages, in its man8/ (relative: under the prefix)")
set(LL_CONFIG_FILE /etc/lossless/losslessd.toml CACHE FILEPATH
    "The configuration file the installed systemd unit passes to losslessd")

# The BPF object.
get_property(_ll_bpf_obj GLOBAL PROPERTY LL_INGRESS_BPF_OBJECT)
install(FILES ${_ll_bpf_obj} DESTINATION ${LL_INSTALL_BPFDIR}
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)

# The documentation and the example configuration.
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${LL_INSTALL_DOCDIR}
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${LL_INSTALL_DOCDIR}
        FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ
        FILES_MATCHING PATTERN "*.md" PATTERN "*.png" PATTERN "examples" EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/docs/examples/losslessd.toml
              ${PROJECT_SOURCE_DIR}/docs/examples/host-cc.toml
              ${PROJECT_SOURCE_DIR}/docs/examples/grafana-lossless.json
        DESTINATION ${LL_INSTALL_DOCDIR}/examples
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)

# The man pages, compressed at build time (the `man_pages` target, part of
# `all`): gzip -9n stores neither the name nor the time, so the same page
# gives the same bytes. tests/install/lint_man.py lints the sources
# (ctest docs.man_lint) and test_install.py the installed pages.
find_program(GZIP_EXECUTABLE gzip REQUIRED)
file(GLOB _ll_man_pages CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/man/*.8)
set(_ll_man_gz "")
foreach(_ll_page IN LISTS _ll_man_pages)
  get_filename_component(_ll_name "${_ll_page}" NAME)
  set(_ll_out "${CMAKE_BINARY_DIR}/man/${_ll_name}.gz")
  add_custom_command(OUTPUT "${_ll_out}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${CMAKE_BINARY_DIR}/man"
    COMMAND sh -c "\"$1\" -9n -c \"$2\" >\"$3.tmp\" && mv \"$3.tmp\" \"$3\""
            sh "${GZIP_EXECUTABLE}" "${_ll_page}" "${_ll_out}"
    DEPENDS "${_ll_page}"
    COMMENT "gzip -9n man/${_ll_name}"
    VERBATIM)
  list(APPEND _ll_man_gz "${_ll_out}")
endforeach()
add_custom_target(man_pages ALL DEPENDS ${_ll_man_gz})
install(FILES ${_ll_man_gz} DESTINATION ${LL_INSTALL_MANDIR}/man8
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)

# The module's modules-load.d file, installed with the unit.
install(FILES ${PROJECT_SOURCE_DIR}/daemon/systemd/sch_lossless.conf
        DESTINATION ${LL_INSTALL_MODULESLOADDIR}
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)

# The systemd unit, written at install time: its paths are the prefix's,
# and `cmake --install --prefix` chooses the prefix after configuring.
# What the install-time scripts need from this configuration:
install(CODE "
  set(LL_SOURCE_DIR \"${PROJECT_SOURCE_DIR}\")
  set(LL_INSTALL_GEN_DIR \"${CMAKE_BINARY_DIR}/install-gen\")
  set(LL_INSTALL_UNITDIR \"${LL_INSTALL_UNITDIR}\")
  set(LL_INSTALL_DOCDIR \"${LL_INSTALL_DOCDIR}\")
  set(LL_CONFIG_FILE \"${LL_CONFIG_FILE}\")
")
install(SCRIPT ${CMAKE_CURRENT_LIST_DIR}/install-unit.cmake)

# tc finds plugins only in its compiled-in directory (or $TC_LIB_DIR):
# say so at configure time if TC_PLUGIN_INSTALL_DIR is not it.
file(STRINGS ${TC_EXECUTABLE} _ll_tc_dirs REGEX "^/.*/tc/?$")
list(TRANSFORM _ll_tc_dirs REPLACE "/$" "")
if(NOT TC_PLUGIN_INSTALL_DIR IN_LIST _ll_tc_dirs)
  message(WARNING "TC_PLUGIN_INSTALL_DIR=${TC_PLUGIN_INSTALL_DIR} is not the plugin "
                  "directory compiled into ${TC_EXECUTABLE} (${_ll_tc_dirs}): tc will not "
                  "find the installed q_lossless.so without TC_LIB_DIR")
endif()

# Last: the manifest of this install, from the files the rules above (and
# those of every subdirectory) installed. It lives in the installed tree,
# so each PREFIX/DESTDIR has its own and `make uninstall` removes what was
# installed there (the build directory's install_manifest.txt only knows
# the last install).
install(SCRIPT ${CMAKE_CURRENT_LIST_DIR}/install-manifest.cmake)
