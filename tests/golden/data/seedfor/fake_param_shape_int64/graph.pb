
4
	FakeParam	FakeParam*
dtype0	*
shape:
3
ShapeConst*
dtype0*
valueB:"ª