
0
sizesPlaceholder*
dtype0*
shape:
-
v0Placeholder*
dtype0*
shape:
™
EncodeProtoEncodeProtosizesv0*
Tinput_types
2* 
descriptor_source	bytes://
*
field_names
	f_int32*
message_typedfxtest.All"ª