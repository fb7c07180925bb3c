# Install-time script (cmake/install.cmake), run after every other install
# rule: writes PREFIX/share/lossless/install_manifest.txt, the files this
# install wrote, one absolute path (without $DESTDIR) a line, itself
# included. `make uninstall` (scripts/uninstall.sh) removes them.
set(_ll_manifest "${CMAKE_INSTALL_PREFIX}/share/lossless/install_manifest.txt")
set(_ll_destdir "$ENV{DESTDIR}")
string(LENGTH "${_ll_destdir}" _ll_n)
set(_ll_files "")
foreach(_f IN LISTS CMAKE_INSTALL_MANIFEST_FILES)
  if(_ll_n GREATER 0)
    string(SUBSTRING "${_f}" 0 ${_ll_n} _ll_head)
    if(_ll_head STREQUAL _ll_destdir)
      string(SUBSTRING "${_f}" ${_ll_n} -1 _f)
    endif()
  endif()
  list(APPEND _ll_files "${_f}")
endforeach()
list(APPEND _ll_files "${_ll_manifest}")
list(REMOVE_DUPLICATES _ll_files)
string(REPLACE ";" "\n" _ll_text "${_ll_files}")
string(MD5 _ll_key "${_ll_destdir}|${CMAKE_INSTALL_PREFIX}")
set(_ll_tmp "${LL_INSTALL_GEN_DIR}/${_ll_key}/install_manifest.txt")
file(WRITE "${_ll_tmp}" "${_ll_text}\n")
file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/share/lossless" TYPE FILE
     PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ
     FILES "${_ll_tmp}")
# Both written files are installed: leave no per-install directory behind.
file(REMOVE_RECURSE "${LL_INSTALL_GEN_DIR}/${_ll_key}")
