
A
	FakeParam	FakeParam*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ"ª