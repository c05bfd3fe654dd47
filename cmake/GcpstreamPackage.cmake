# `cpack` (run in the build directory) makes a Debian package of the
# `gcpstream` CLI alone: /usr/bin/gcpstream, stripped, with the shared
# libraries it loads as dependencies (dpkg-shlibdeps). Libraries and headers
# are for `cmake --install` (see docs/install.md).

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gcpstream)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Streaming pipelines into Google Cloud: Pub/Sub, Spanner, Bigtable, BigQuery, Cloud Tasks, Iceberg")
set(CPACK_PACKAGE_CONTACT "gcpstream maintainers <gcpstream@invalid>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli)
set(CPACK_DEBIAN_CLI_PACKAGE_NAME gcpstream)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
include(CPack)
