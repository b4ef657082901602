
,
xPlaceholder*
dtype0	*
shape:
©
Dump
DumpTensorx*
T0	*
enabled(*
	file_name	values.pb* 
	func_namecomposite_conv_fn*)
log_dir_path@SCRATCH_DIR@/dumps/sub*
	node_nameDump"ª