
,
xPlaceholder*
dtype0*
shape:
Ž
CustomAggregatorCustomAggregatorx*
calibration_method*	
ida*
max_percentile%}ÿÇB*
min_percentile%oƒ:*
num_bins"ª