
,
xPlaceholder*
dtype0*
shape:
2
cs_prevPlaceholder*
dtype0*
shape:
1
h_prevPlaceholder*
dtype0*
shape:
,
wPlaceholder*
dtype0*
shape:
.
wciPlaceholder*
dtype0*
shape:
.
wcfPlaceholder*
dtype0*
shape:
.
wcoPlaceholder*
dtype0*
shape:
,
bPlaceholder*
dtype0*
shape:
,
iPlaceholder*
dtype0*
shape:
-
csPlaceholder*
dtype0*
shape:
,
fPlaceholder*
dtype0*
shape:
,
oPlaceholder*
dtype0*
shape:
-
ciPlaceholder*
dtype0*
shape:
-
coPlaceholder*
dtype0*
shape:
2
cs_gradPlaceholder*
dtype0*
shape:
1
h_gradPlaceholder*
dtype0*
shape:
’
LSTMBlockCellGradLSTMBlockCellGradxcs_prevh_prevwwciwcfwcobicsfocicocs_gradh_grad*
T0*
use_peephole("ª