
2
xPlaceholder*
dtype0*
shape
:
.
yPlaceholder*
dtype0*
shape:
5
SquaredDifferenceSquaredDifferencexy*
T0
#
xdivy/XdivyXdivyxy*
T0

XlogyXlogyxy*
T0
)
xlog1py/Xlog1pyXlog1pyxy*
T0"ª