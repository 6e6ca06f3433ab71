# What `cmake --install` lays out (every path relative to the prefix; nothing refers back to the build tree):
#   bin/nvemu, bin/nvemu-ext-task
#   LIBDIR/nvemu/policies/*.so, LIBDIR/nvemu/libnvemu-record.so, LIBDIR/libnvemu-preload.so
#   include/nvemu/{policy.h,nvemu.h}, LIBDIR/pkgconfig/{nvemu-policy,nvemu}.pc, LIBDIR/cmake/nvemu/
#   share/man/man1/nvemu.1, share/bash-completion/completions/nvemu
install(TARGETS nvemu RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
get_property(_module_targets GLOBAL PROPERTY NVEMU_MODULE_TARGETS)
install(TARGETS ${_module_targets} ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/nvemu DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# pkg-config and CMake package files find their prefix relative to themselves (relocatable).
file(RELATIVE_PATH NVEMU_PC_TO_PREFIX "${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
file(RELATIVE_PATH NVEMU_CMAKE_TO_PREFIX "${CMAKE_INSTALL_FULL_LIBDIR}/cmake/nvemu" "${CMAKE_INSTALL_PREFIX}")
configure_file(cmake/nvemu.pc.in ${CMAKE_BINARY_DIR}/nvemu.pc @ONLY)
configure_file(cmake/nvemu-policy.pc.in ${CMAKE_BINARY_DIR}/nvemu-policy.pc @ONLY)
configure_file(cmake/nvemuConfig.cmake.in ${CMAKE_BINARY_DIR}/nvemuConfig.cmake @ONLY)
include(CMakePackageConfigHelpers)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/nvemuConfigVersion.cmake COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/nvemu.pc ${CMAKE_BINARY_DIR}/nvemu-policy.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
install(FILES ${CMAKE_BINARY_DIR}/nvemuConfig.cmake ${CMAKE_BINARY_DIR}/nvemuConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/nvemu)

# The man page and the bash completion are generated from the built tool's own --help texts.
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/doc/nvemu.1 ${CMAKE_BINARY_DIR}/doc/nvemu.bash
  COMMAND ${CMAKE_SOURCE_DIR}/cmake/gen-docs.sh $<TARGET_FILE:nvemu> ${CMAKE_BINARY_DIR}/doc
  DEPENDS nvemu ${CMAKE_SOURCE_DIR}/cmake/gen-docs.sh
  COMMENT "man page and bash completion from nvemu --help")
add_custom_target(nvemu_docs ALL DEPENDS ${CMAKE_BINARY_DIR}/doc/nvemu.1 ${CMAKE_BINARY_DIR}/doc/nvemu.bash)
install(FILES ${CMAKE_BINARY_DIR}/doc/nvemu.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${CMAKE_BINARY_DIR}/doc/nvemu.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME nvemu)
