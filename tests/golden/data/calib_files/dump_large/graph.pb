
,
xPlaceholder*
dtype0*
shape:
>
Tile/multiplesConst*
dtype0*
valueB: œ
:
TileTilexTile/multiples*

Tmultiples0*
T0
¡
Dump
DumpTensorTile*
T0*
enabled(*
	file_namebig.pb* 
	func_namecomposite_conv_fn*!
log_dir_path@SCRATCH_DIR@/d*
	node_nameDump"ª