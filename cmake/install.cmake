# What `cmake --install` lays out (every path relative to the prefix; nothing refers back to the build tree):
#   bin/nvemu, bin/nvemu-ext-task
#   LIBDIR/nvemu/policies/*.so, LIBDIR/nvemu/libnvemu-record.so, LIBDIR/libnvemu-preload.so
#   include/nvemu/{policy.h,nvemu.h}, LIBDIR/pkgconfig/{nvemu-policy,nvemu}.pc, LIBDIR/cmake/nvemu/
#   share/man/man1/nvemu.1, share/bash-completion/completions/nvemu
#   include/nvemu/{policy_util.h,nv_gpu_sched.bpf.h}, LIBDIR/libnvemu-policy-util.a (policies)
#   share/doc/nvemu/ (README, scenario schema, policy guide, profiles, every command's --help)
#   share/nvemu/examples/ (bundled scenarios, a C plugin project, a BPF policy project), share/nvemu/profiles/
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
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/doc/nvemu.1 ${CMAKE_BINARY_DIR}/doc/nvemu.bash ${CMAKE_BINARY_DIR}/doc/cli.txt
  COMMAND ${CMAKE_SOURCE_DIR}/cmake/gen-docs.sh $<TARGET_FILE:nvemu> ${CMAKE_BINARY_DIR}/doc
  DEPENDS nvemu ${CMAKE_SOURCE_DIR}/cmake/gen-docs.sh
  COMMENT "man page and bash completion from nvemu --help")
add_custom_target(nvemu_docs ALL DEPENDS ${CMAKE_BINARY_DIR}/doc/nvemu.1 ${CMAKE_BINARY_DIR}/doc/nvemu.bash
                  ${CMAKE_BINARY_DIR}/doc/cli.txt)
install(FILES ${CMAKE_BINARY_DIR}/doc/nvemu.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${CMAKE_BINARY_DIR}/doc/nvemu.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME nvemu)

# Documentation and examples, so the installed tree is usable without the source: what `--help`, the man page
# and `nvemu init` point at.
set(NVEMU_DOCDIR ${CMAKE_INSTALL_DATADIR}/doc/nvemu)
install(FILES README.md docs/policy-guide.md docs/profiles.md docs/sources.md docs/driver-sources.md
        ${CMAKE_BINARY_DIR}/doc/cli.txt DESTINATION ${NVEMU_DOCDIR})
install(FILES scenarios/README.md DESTINATION ${NVEMU_DOCDIR} RENAME scenarios.md)
install(FILES policies/README.md DESTINATION ${NVEMU_DOCDIR} RENAME policies.md)
file(GLOB _nvemu_scenarios ${CMAKE_SOURCE_DIR}/scenarios/*.yaml)
install(FILES ${_nvemu_scenarios} DESTINATION ${CMAKE_INSTALL_DATADIR}/nvemu/examples/scenarios)
install(DIRECTORY examples/policy examples/c-policy examples/bpf-policy examples/ci
        DESTINATION ${CMAKE_INSTALL_DATADIR}/nvemu/examples)
install(DIRECTORY emu/profiles/ DESTINATION ${CMAKE_INSTALL_DATADIR}/nvemu/profiles FILES_MATCHING PATTERN "*.yaml")
