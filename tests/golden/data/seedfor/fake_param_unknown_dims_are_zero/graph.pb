
E
	FakeParam	FakeParam*
dtype0* 
shape:ÿÿÿÿÿÿÿÿÿ
@
ShapeShape	FakeParam*
T0*
out_type0:íÏ"ª