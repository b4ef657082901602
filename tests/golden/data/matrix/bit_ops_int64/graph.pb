
8
PlaceholderPlaceholder*
dtype0	*
shape:
:
Placeholder_1Placeholder*
dtype0	*
shape:
:
Placeholder_2Placeholder*
dtype0	*
shape:
:
Placeholder_3Placeholder*
dtype0	*
shape:
=

BitwiseAnd
BitwiseAndPlaceholderPlaceholder_1*
T0	
;
	BitwiseOr	BitwiseOrPlaceholderPlaceholder_1*
T0	
=

BitwiseXor
BitwiseXorPlaceholderPlaceholder_3*
T0	
&
InvertInvertPlaceholder*
T0	
8
PopulationCountPopulationCountPlaceholder*
T0	
;
	LeftShift	LeftShiftPlaceholderPlaceholder_2*
T0	
=

RightShift
RightShiftPlaceholderPlaceholder_2*
T0	"ª