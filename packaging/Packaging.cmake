# Installation layout and the Debian package (cpack -G DEB), included from the top-level CMakeLists.txt.
# Build the package from a configured, built tree:
#   cmake --build --preset release && cd build/release && cpack -G DEB
# scripts/package-check builds it from build/ci (RelWithDebInfo; the binaries are stripped on packaging)
# and validates and installs it.
include(GNUInstallDirs)

# Not yet published: the homepage and the AppStream id (BLOBBENCH_APP_ID, set in the top-level
# CMakeLists.txt because the GUI needs it too) are placeholders under the reserved example.org
# domain until the project has a home; both can be set at configure time.
set(BLOBBENCH_HOMEPAGE "https://blobbench.example.org" CACHE STRING "Project homepage (package and AppStream metadata)")
set(BLOBBENCH_SCREENSHOT_URL "${BLOBBENCH_HOMEPAGE}/docs" CACHE STRING "Where docs/screenshot-*.png are published")
set(BLOBBENCH_MAINTAINER "BlobBench maintainers <maintainers@users.noreply.a-seed-c8d1927f.example>"
    CACHE STRING "Maintainer field of the Debian package")

set(_pkg ${CMAKE_CURRENT_SOURCE_DIR}/packaging)
set(_gen ${CMAKE_CURRENT_BINARY_DIR}/packaging)
file(MAKE_DIRECTORY ${_gen})

# Presets: the *.blobbench.json projects only (never a run journal left beside them).
install(DIRECTORY resources/presets/ DESTINATION ${CMAKE_INSTALL_DATADIR}/blobbench/presets
        FILES_MATCHING PATTERN "*.blobbench.json")

# Icons: the scalable SVG and the PNG sizes rendered from it (packaging/render-icons).
install(FILES resources/icons/blobbench.svg DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
foreach(size 16 22 24 32 48 64 128 256)
  install(FILES resources/icons/blobbench-${size}.png DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps
          RENAME blobbench.png)
endforeach()

# Desktop entry (named by the application id, as AppStream's launchable names it), MIME type, metainfo.
install(FILES ${_pkg}/blobbench.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications RENAME ${BLOBBENCH_APP_ID}.desktop)
install(FILES ${_pkg}/blobbench-mime.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages RENAME blobbench.xml)
configure_file(${_pkg}/blobbench.metainfo.xml.in ${_gen}/${BLOBBENCH_APP_ID}.metainfo.xml @ONLY)
install(FILES ${_gen}/${BLOBBENCH_APP_ID}.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)

# Man pages and the changelog, compressed as Debian policy wants them (gzip -9n: no name, no timestamp).
find_program(BLOBBENCH_GZIP gzip REQUIRED)
set(_gz_outputs)
foreach(src blobbench-cli.1 blobbench.1 changelog)
  add_custom_command(OUTPUT ${_gen}/${src}.gz
                     COMMAND ${BLOBBENCH_GZIP} -9n -c ${_pkg}/${src} > ${_gen}/${src}.gz
                     DEPENDS ${_pkg}/${src} VERBATIM)
  list(APPEND _gz_outputs ${_gen}/${src}.gz)
endforeach()
add_custom_target(blobbench_packaging_files ALL DEPENDS ${_gz_outputs})
install(FILES ${_gen}/blobbench-cli.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
if(TARGET blobbench)
  install(FILES ${_gen}/blobbench.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()
install(FILES ${_gen}/changelog.gz ${_pkg}/copyright DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/blobbench)
# The guide for reading outside the application (F1 shows its compiled-in copy, ui/UserGuide.cpp).
install(FILES docs/user-guide.md docs/screenshot-compare.png docs/screenshot-firebird.png docs/screenshot-idle.png
              docs/screenshot-link.png docs/screenshot-run.png docs/screenshot-sweep.png
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/blobbench)

# The package.
set(CPACK_PACKAGE_NAME blobbench)
set(CPACK_PACKAGE_VENDOR "BlobBench")
set(CPACK_PACKAGE_CONTACT "${BLOBBENCH_MAINTAINER}")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "measure how databases move large values (BLOBs)")
set(CPACK_STRIP_FILES ON)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
    WORLD_READ WORLD_EXECUTE)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${BLOBBENCH_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION database)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${BLOBBENCH_HOMEPAGE}")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# The synopsis is CPACK_PACKAGE_DESCRIPTION_SUMMARY; this is the extended description under it.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "BlobBench measures how databases move large values (BLOB, bytea, CLOB, large
objects) between client and server: elapsed time per phase, rows and content
bytes, and for networked engines the bytes, packets and round trips on the
wire, and how each of these changes with inline BLOB size, wire compression,
text versus binary format, fetch mode, storage format and link latency and
bandwidth.
.
It provides a Qt workbench (blobbench) and a command-line runner
(blobbench-cli) that run the same projects on SQLite (embedded), Firebird and
PostgreSQL.")
# Library dependencies are computed by dpkg-shlibdeps from the binaries (Qt 6, libpq5, libsqlite3,
# zlib, libzstd, libstdc++). What it cannot see is added here:
# - qt6-qpa-plugins: the GUI cannot show a window without a platform plugin, and libqt6gui6 only
#   recommends the package that holds them.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins")
# - libfbclient2: the Firebird driver dlopen()s libfbclient at connect time (so that a newer client can be
#   chosen with --client-library), hence no link-time dependency for dpkg-shlibdeps to find; SQLite and
#   PostgreSQL work without it, so it is recommended rather than required.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libfbclient2")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "postgresql, firebird3.0-server")
set(CPACK_GENERATOR DEB)
include(CPack)
