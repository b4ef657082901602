
6
PlaceholderPlaceholder*
dtype0*
shape:
8
Placeholder_1Placeholder*
dtype0*
shape:
8
Placeholder_2Placeholder*
dtype0*
shape:
8
Placeholder_3Placeholder*
dtype0*
shape:
‰
CropAndResizeGradImageCropAndResizeGradImagePlaceholderPlaceholder_1Placeholder_2Placeholder_3*
T0*
method
bilinear"ª