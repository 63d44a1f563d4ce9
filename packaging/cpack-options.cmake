# Read by cpack once per generator (CPACK_PROJECT_CONFIG_FILE, CMakeLists.txt): what differs
# between the Debian package and the RPM.
if(CPACK_GENERATOR STREQUAL "DEB")
  # Debian's Lmod searches /etc/lmod/modules (its /etc/lmod/modulespath); RHEL's searches
  # /usr/share/modulefiles, where the modulefile already is.
  set(CPACK_CUSTOM_INSTALL_VARIABLES
      "IOSWEEP_LMOD_LINK_DIR=/etc/lmod/modules"
      "IOSWEEP_PACKAGE_PREFIX=${CPACK_PACKAGING_INSTALL_PREFIX}")
endif()
