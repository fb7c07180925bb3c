# Install-time script (cmake/install.cmake): writes losslessd.service from
# daemon/systemd/losslessd.service.in with the paths of this install's
# prefix, and installs it. file(INSTALL) prepends $DESTDIR and records the
# file in the install manifest.
function(ll_under_prefix out dir)
  if(IS_ABSOLUTE "${dir}")
    set(${out} "${dir}" PARENT_SCOPE)
  else()
    set(${out} "${CMAKE_INSTALL_PREFIX}/${dir}" PARENT_SCOPE)
  endif()
endfunction()

if(NOT IS_ABSOLUTE "${CMAKE_INSTALL_PREFIX}")
  message(FATAL_ERROR "the install prefix must be an absolute path, not '${CMAKE_INSTALL_PREFIX}'")
endif()
ll_under_prefix(LL_SBINDIR sbin)  # where daemon/CMakeLists.txt installs the binaries
ll_under_prefix(LL_DOCDIR "${LL_INSTALL_DOCDIR}")
ll_under_prefix(_ll_unitdir "${LL_INSTALL_UNITDIR}")
set(LL_GENERATED_NOTE
    "Written by `make install PREFIX=${CMAKE_INSTALL_PREFIX}` from daemon/systemd/losslessd.service.in.")

# One directory per DESTDIR and prefix: two installs from one build tree
# do not write the same file.
# (cmake/install-manifest.cmake removes the directory at the end.)
string(MD5 _ll_key "$ENV{DESTDIR}|${CMAKE_INSTALL_PREFIX}")
set(_ll_unit "${LL_INSTALL_GEN_DIR}/${_ll_key}/losslessd.service")
configure_file("${LL_SOURCE_DIR}/daemon/systemd/losslessd.service.in" "${_ll_unit}" @ONLY)
file(STRINGS "${_ll_unit}" _ll_left REGEX "@[A-Z_]+@")
if(_ll_left)
  message(FATAL_ERROR "losslessd.service.in: unsubstituted: ${_ll_left}")
endif()
file(INSTALL DESTINATION "${_ll_unitdir}" TYPE FILE
     PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ
     FILES "${_ll_unit}")
