
,
xPlaceholder*
dtype0*
shape:
‘
CustomAggregatorCustomAggregatorx*
calibration_method*
idonly*
max_percentile%}ÿÇB*
min_percentile%oƒ:*
num_bins
Ì
SaverCalibrationStatisticsSaverCustomAggregator:1CustomAggregator:2CustomAggregator:3*
Tin
2	*
calibration_methods
*
ids
only*,
output_file_path@SCRATCH_DIR@/stats.pb"ª