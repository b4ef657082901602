
"
GraphDefVersionGraphDefVersion"ª