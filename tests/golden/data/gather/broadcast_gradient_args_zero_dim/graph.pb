
8
s0Placeholder*
shape:ÿÿÿÿÿÿÿÿÿ*
dtype0
8
s1Placeholder*
shape:ÿÿÿÿÿÿÿÿÿ*
dtype0
?
BroadcastGradientArgsBroadcastGradientArgss0s1*
T0"ª