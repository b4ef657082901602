
8
PlaceholderPlaceholder*
shape:[*
dtype0
Q
StringToHashBucketFastStringToHashBucketFastPlaceholder*
num_bucketsè"ª