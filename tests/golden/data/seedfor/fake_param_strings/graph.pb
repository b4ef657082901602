
8
	FakeParam	FakeParam*
dtype0*
shape
:"ª