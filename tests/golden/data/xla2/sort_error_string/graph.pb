
6
ConstConst*
dtype0*
valueBBbBa
"
XlaSortXlaSortConst*
T0"ª