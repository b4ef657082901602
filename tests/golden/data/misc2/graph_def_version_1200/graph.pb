

versionGraphDefVersion"°	