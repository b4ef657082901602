

versionGraphDefVersion"