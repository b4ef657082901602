
/
namePlaceholder*
dtype0*
shape:
3
contentsPlaceholder*
dtype0*
shape:
&
	WriteFile	WriteFilenamecontents

ReadFileReadFilename
;
Reshape/shapeConst*
dtype0*
valueB:
B
ReshapeReshapeReadFileReshape/shape*
Tshape0*
T0"ª