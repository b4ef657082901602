
8
PlaceholderPlaceholder*
dtype0*
shape:
˜
CustomAggregatorCustomAggregatorPlaceholder*
calibration_method*	
ida*
max_percentile%}ÿÇB*
min_percentile%oƒ:*
num_bins"ª