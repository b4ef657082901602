
,
xPlaceholder*
dtype0*
shape:
1
h_prevPlaceholder*
dtype0*
shape:
/
w_ruPlaceholder*
dtype0*
shape:
.
w_cPlaceholder*
dtype0*
shape:
/
b_ruPlaceholder*
dtype0*
shape:
.
b_cPlaceholder*
dtype0*
shape:
,
rPlaceholder*
dtype0*
shape:
,
uPlaceholder*
dtype0*
shape:
,
cPlaceholder*
dtype0*
shape:
.
d_hPlaceholder*
dtype0*
shape:
\
GRUBlockCellGradGRUBlockCellGradxh_prevw_ruw_cb_rub_crucd_h*
T0"ª